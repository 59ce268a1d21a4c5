#pragma once
// Update programs compiled for the host: what an optimizer hands core so that its formula
// runs on the CPU as one fused loop. See Note [Programs compiled for the host].
//
// Note [Programs compiled for the host]: an optimizer writes its formula once, as a
// StaticUpdateCode constant (the instructions of Note [Update programs], known at compile
// time). ops::make_update_program<Code> (core/ops/update_program.h) turns it into the
// UpdateProgram every backend can interpret (the CUDA kernel does) and sets its `host` to
// host_update<Code>: the same instructions unrolled at compile time into the body of one
// loop over the elements, their registers locals the compiler keeps in vector registers.
// Interpreting a program on the CPU costs a load and a store per instruction and element
// (Adam: 2.5x the fused loop); the unrolled loop reads and writes each array once. Both
// paths compute each instruction with update_value below, one rounding per operation: the
// files that instantiate host_update (optimizers/) and the native interpreter are built with
// -ffp-contract=off (no FMA) and -fno-math-errno (sqrt vectorises), so they agree bit for bit
// (tests/optimizers/test_host_programs.cc).

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <utility>

#include "core/error.h"
#include "core/half.h"
#include "core/kernels.h"

namespace rensa::ops {

// The value of one instruction on the compute type C (operands past its arity ignored).
template <UpdateOp Op, class C>
inline C update_value(C a, C b, C c) {
    if constexpr (Op == UpdateOp::kCopy) return a;
    if constexpr (Op == UpdateOp::kAdd) return a + b;
    if constexpr (Op == UpdateOp::kSub) return a - b;
    if constexpr (Op == UpdateOp::kMul) return a * b;
    if constexpr (Op == UpdateOp::kDiv) return a / b;
    if constexpr (Op == UpdateOp::kMin) return b < a ? b : a;
    if constexpr (Op == UpdateOp::kMax) return a < b ? b : a;
    if constexpr (Op == UpdateOp::kSqrt) return std::sqrt(a);
    if constexpr (Op == UpdateOp::kMulAdd) return a * b + c;
    if constexpr (Op == UpdateOp::kMulSub) return a * b - c;
    if constexpr (Op == UpdateOp::kSubMul) return c - a * b;
}

// An update program's instructions as a compile-time constant (a structural type, so it can
// be a template argument).
struct StaticUpdateCode {
    std::array<UpdateInstruction, kUpdateMaxInstructions> code{};
    int size = 0;

    constexpr StaticUpdateCode() = default;
    constexpr StaticUpdateCode(std::initializer_list<UpdateInstruction> instructions) {
        for (const UpdateInstruction& in : instructions) push(in);
    }
    constexpr void push(const UpdateInstruction& in) {
        if (size < kUpdateMaxInstructions) code[static_cast<std::size_t>(size)] = in;
        ++size;  // past the limit: make_update_program's check names the program
    }
    // Whether an instruction writes register r / reads it.
    constexpr bool writes(uint8_t r) const {
        for (int i = 0; i < size && i < kUpdateMaxInstructions; ++i)
            if (code[static_cast<std::size_t>(i)].dst == r) return true;
        return false;
    }
    constexpr bool reads(uint8_t r) const {
        for (int i = 0; i < size && i < kUpdateMaxInstructions; ++i) {
            const UpdateInstruction& in = code[static_cast<std::size_t>(i)];
            if (in.a == r || in.b == r || in.c == r) return true;
        }
        return false;
    }
};

namespace host_detail {

template <class C, std::size_t N>
inline C update_operand(const C (&r)[N], const C* scalars, uint8_t x) {
    return x >= kUpdateScalar0 ? scalars[x - kUpdateScalar0] : r[x];
}

template <StaticUpdateCode Code, std::size_t I, class C, std::size_t N>
inline void update_step(C (&r)[N], const C* scalars) {
    constexpr UpdateInstruction in = Code.code[I];
    const C a = update_operand(r, scalars, in.a);
    const C b = update_op_arity(in.op) >= 2 ? update_operand(r, scalars, in.b) : C{};
    const C c = update_op_arity(in.op) >= 3 ? update_operand(r, scalars, in.c) : C{};
    r[in.dst] = update_value<in.op, C>(a, b, c);
}

// The loop over elements [begin, end) of one update of element type T (compute type C).
template <StaticUpdateCode Code, class T, class C>
void host_update_typed(const FusedUpdateArgs& args, int64_t begin, int64_t end) {
    T* __restrict param = static_cast<T*>(args.param.raw_data());
    const T* __restrict grad = static_cast<const T*>(args.grad.raw_data());
    const int n_states = args.program->n_states();
    T* __restrict s0 = n_states > 0 ? static_cast<T*>(args.states[0].raw_data()) : nullptr;
    T* __restrict s1 = n_states > 1 ? static_cast<T*>(args.states[1].raw_data()) : nullptr;
    T* __restrict s2 = n_states > 2 ? static_cast<T*>(args.states[2].raw_data()) : nullptr;
    C scalars[kUpdateMaxScalars];
    for (int i = 0; i < kUpdateMaxScalars; ++i) scalars[i] = static_cast<C>(args.scalars[static_cast<std::size_t>(i)]);
    constexpr uint8_t k0 = kUpdateState0, k1 = kUpdateState0 + 1, k2 = kUpdateState0 + 2;
    for (int64_t i = begin; i < end; ++i) {
        C r[kUpdateRegisters] = {};
        r[kUpdateParam] = static_cast<C>(param[i]);
        r[kUpdateGrad] = static_cast<C>(grad[i]);
        if constexpr (Code.reads(k0)) r[k0] = static_cast<C>(s0[i]);
        if constexpr (Code.reads(k1)) r[k1] = static_cast<C>(s1[i]);
        if constexpr (Code.reads(k2)) r[k2] = static_cast<C>(s2[i]);
        [&]<std::size_t... I>(std::index_sequence<I...>) { (update_step<Code, I>(r, scalars), ...); }
        (std::make_index_sequence<static_cast<std::size_t>(Code.size)>{});
        if constexpr (Code.writes(kUpdateParam)) param[i] = static_cast<T>(r[kUpdateParam]);
        if constexpr (Code.writes(k0)) s0[i] = static_cast<T>(r[k0]);
        if constexpr (Code.writes(k1)) s1[i] = static_cast<T>(r[k1]);
        if constexpr (Code.writes(k2)) s2[i] = static_cast<T>(r[k2]);
    }
}

}  // namespace host_detail

// Elements [begin, end) of one fused update, the program's code unrolled (the native backend
// splits an update among threads and calls this per range).
template <StaticUpdateCode Code>
void host_update(const FusedUpdateArgs& args, int64_t begin, int64_t end) {
    switch (args.param.dtype()) {
        case Dtype::kFloat32:
            return host_detail::host_update_typed<Code, float, float>(args, begin, end);
        case Dtype::kFloat64:
            return host_detail::host_update_typed<Code, double, double>(args, begin, end);
        case Dtype::kFloat16:
            return host_detail::host_update_typed<Code, Half, float>(args, begin, end);
        case Dtype::kBFloat16:
            return host_detail::host_update_typed<Code, BFloat16, float>(args, begin, end);
        default:
            RENSA_ASSERT(false);  // ops::fused_update checks the dtype
    }
}

}  // namespace rensa::ops
