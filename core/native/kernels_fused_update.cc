// The fused update on the CPU (Kernels::fused_update, Note [Update programs] in
// core/kernels.h): each update's elements are split among threads as one parallel pass, and
// each thread walks its range in blocks of kBlockBytes. On a block the program runs one
// instruction at a time, each a tight vectorised loop over the block; the block stays in the
// L1 cache, so every element is read from and written to memory once, as a hand-written
// fused loop would. float32/float64 registers param, grad and the states point into the
// arrays themselves; float16/bfloat16 ones are float copies loaded and stored per block.
// Every element's result depends only on its own inputs and each arithmetic operation rounds
// once (this file is built with -ffp-contract=off: no FMA), so results never depend on the
// block size, the thread count or the CPU, and match the CUDA kernel's.
// The sqrt loop vectorises only when this file is built with -fno-math-errno (std::sqrt's
// errno branch is control flow in the loop; GCC 12 ignores the flag in `#pragma GCC optimize`).

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/native/dtype_dispatch.h"
#include "core/native/native_kernels.h"
#include "core/native/parallel.h"
#include "core/ops/update_host.h"

namespace rensa::native {
namespace {

inline constexpr int64_t kBlockBytes = 1024;  // ~10 registers of a block stay in L1

// An operand on a block: the register's values, or one scalar (p == nullptr).
template <class C>
struct Src {
    const C* p;
    C v;
};

// Calls k with the operand's pointer or its scalar, so each mix of registers and scalars
// gets its own loop with the scalar in a register.
template <class C, class K>
void with(const Src<C>& s, const K& k) {
    if (s.p != nullptr) {
        k(s.p);
    } else {
        k(s.v);
    }
}

template <class X>
auto at(X x, int64_t i) {
    if constexpr (std::is_pointer_v<X>) {
        return x[i];
    } else {
        return x;
    }
}

template <class C, class F>
void apply1(int64_t n, C* d, const Src<C>& a, const F& f) {
    with(a, [&](auto av) {
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) d[i] = f(at(av, i));
    });
}

template <class C, class F>
void apply2(int64_t n, C* d, const Src<C>& a, const Src<C>& b, const F& f) {
    with(a, [&](auto av) {
        with(b, [&](auto bv) {
#pragma omp simd
            for (int64_t i = 0; i < n; ++i) d[i] = f(at(av, i), at(bv, i));
        });
    });
}

template <class C, class F>
void apply3(int64_t n, C* d, const Src<C>& a, const Src<C>& b, const Src<C>& c, const F& f) {
    with(a, [&](auto av) {
        with(b, [&](auto bv) {
            with(c, [&](auto cv) {
#pragma omp simd
                for (int64_t i = 0; i < n; ++i) d[i] = f(at(av, i), at(bv, i), at(cv, i));
            });
        });
    });
}

// One instruction on n elements; reg holds the block's registers, scalars the step's.
template <class C>
void run_instruction(const UpdateInstruction& in, C* const* reg, const C* scalars, int64_t n) {
    const auto src = [&](uint8_t r) {
        return r >= kUpdateScalar0 ? Src<C>{nullptr, scalars[r - kUpdateScalar0]} : Src<C>{reg[r], C{}};
    };
    C* const d = reg[in.dst];
    switch (in.op) {
        case UpdateOp::kCopy:
            return apply1(n, d, src(in.a), [](C a) { return ops::update_value<UpdateOp::kCopy>(a, a, a); });
        case UpdateOp::kAdd:
            return apply2(n, d, src(in.a), src(in.b),
                          [](C a, C b) { return ops::update_value<UpdateOp::kAdd>(a, b, b); });
        case UpdateOp::kSub:
            return apply2(n, d, src(in.a), src(in.b),
                          [](C a, C b) { return ops::update_value<UpdateOp::kSub>(a, b, b); });
        case UpdateOp::kMul:
            return apply2(n, d, src(in.a), src(in.b),
                          [](C a, C b) { return ops::update_value<UpdateOp::kMul>(a, b, b); });
        case UpdateOp::kDiv:
            return apply2(n, d, src(in.a), src(in.b),
                          [](C a, C b) { return ops::update_value<UpdateOp::kDiv>(a, b, b); });
        case UpdateOp::kMin:
            return apply2(n, d, src(in.a), src(in.b),
                          [](C a, C b) { return ops::update_value<UpdateOp::kMin>(a, b, b); });
        case UpdateOp::kMax:
            return apply2(n, d, src(in.a), src(in.b),
                          [](C a, C b) { return ops::update_value<UpdateOp::kMax>(a, b, b); });
        case UpdateOp::kSqrt:
            return apply1(n, d, src(in.a), [](C a) { return ops::update_value<UpdateOp::kSqrt>(a, a, a); });
        case UpdateOp::kMulAdd:
            return apply3(n, d, src(in.a), src(in.b), src(in.c),
                          [](C a, C b, C c) { return ops::update_value<UpdateOp::kMulAdd>(a, b, c); });
        case UpdateOp::kMulSub:
            return apply3(n, d, src(in.a), src(in.b), src(in.c),
                          [](C a, C b, C c) { return ops::update_value<UpdateOp::kMulSub>(a, b, c); });
        case UpdateOp::kSubMul:
            return apply3(n, d, src(in.a), src(in.b), src(in.c),
                          [](C a, C b, C c) { return ops::update_value<UpdateOp::kSubMul>(a, b, c); });
    }
}

// One update of dtype T: the program with its scalars in the compute type, the arrays'
// addresses and which registers the program writes.
template <class T>
struct Update {
    using C = ComputeT<T>;
    static constexpr int64_t kBlock = kBlockBytes / static_cast<int64_t>(sizeof(C));

    explicit Update(const FusedUpdateArgs& a) : program{*a.program} {
        n_states = program.n_states();
        for (int i = 0; i < program.n_scalars; ++i)
            scalars[static_cast<size_t>(i)] = static_cast<C>(a.scalars[static_cast<size_t>(i)]);
        arrays[kUpdateParam] = static_cast<T*>(a.param.raw_data());
        arrays[kUpdateGrad] = static_cast<T*>(a.grad.raw_data());
        for (int i = 0; i < n_states; ++i)
            arrays[kUpdateState0 + i] = static_cast<T*>(a.states[static_cast<size_t>(i)].raw_data());
        for (int i = 0; i < program.size; ++i) written[program.code[static_cast<size_t>(i)].dst] = true;
    }

    // Elements [begin, begin + n), n <= kBlock; buffer holds kUpdateRegisters blocks.
    void run_block(int64_t begin, int64_t n, C* buffer) const {
        constexpr bool kInPlace = std::is_same_v<T, C>;
        C* reg[kUpdateRegisters];
        for (int r = 0; r < kUpdateRegisters; ++r) reg[r] = buffer + r * kBlock;
        const int n_arrays = kUpdateState0 + n_states;
        for (int r = 0; r < n_arrays; ++r) {
            if constexpr (kInPlace) {
                reg[r] = arrays[r] + begin;
            } else {
                const T* from = arrays[r] + begin;
                C* to = reg[r];
#pragma omp simd
                for (int64_t i = 0; i < n; ++i) to[i] = static_cast<C>(from[i]);
            }
        }
        for (int i = 0; i < program.size; ++i)
            run_instruction(program.code[static_cast<size_t>(i)], reg, scalars.data(), n);
        if constexpr (!kInPlace) {
            for (int r = 0; r < n_arrays; ++r) {
                if (!written[r]) continue;
                const C* from = reg[r];
                T* to = arrays[r] + begin;
#pragma omp simd
                for (int64_t i = 0; i < n; ++i) to[i] = static_cast<T>(from[i]);
            }
        }
    }

    const UpdateProgram& program;
    int n_states = 0;
    std::array<C, kUpdateMaxScalars> scalars{};
    T* arrays[kUpdateState0 + kUpdateMaxStates] = {};
    bool written[kUpdateRegisters] = {};
};

template <class T>
void fused_update_typed(const FusedUpdateArgs& args) {
    using U = Update<T>;
    const U update{args};
    parallel_for(args.param.size(), kParallelGrain, [&](int64_t begin, int64_t end) {
        alignas(64) typename U::C buffer[kUpdateRegisters * U::kBlock];
        for (int64_t b = begin; b < end; b += U::kBlock) update.run_block(b, std::min(U::kBlock, end - b), buffer);
    });
}

}  // namespace

// Each update is one OpenMP-parallel pass; running them in order keeps the cache warm. A
// program compiled for the host runs as its one fused loop (Note [Programs compiled for the
// host]); the others are interpreted.
void NativeKernels::fused_update(std::span<const FusedUpdateArgs> updates) {
    for (const FusedUpdateArgs& u : updates) {
        if (u.program->host != nullptr) {
            parallel_for(u.param.size(), kParallelGrain,
                         [&](int64_t begin, int64_t end) { u.program->host(u, begin, end); });
            continue;
        }
        visit_dtype(u.param.dtype(), [&]<typename T>() {
            if constexpr (kIsFloating<T>) {
                fused_update_typed<T>(u);
            } else {
                RENSA_ASSERT(false);  // core/ops/fused_update checks the dtype
            }
        });
    }
}

}  // namespace rensa::native
