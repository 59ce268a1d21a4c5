// The fused update on the GPU (Kernels::fused_update, Note [Update programs] in
// core/kernels.h): each thread loads its element's param, grad and states, interprets the
// program on them in the compute type (float for float16/bfloat16, else the dtype) and
// stores param and the states back.
//
// Note [Multi-tensor apply]: one kernel per dtype takes a list of up to kMaxTensors tensors
// by value (pointers, sizes, an index into a small table of distinct programs with their
// scalars), under 4 KB of kernel parameters, so no host-to-device staging is needed. The
// tensors are cut into chunks of kChunk elements, numbered across the list; each block takes
// chunks in a grid-stride loop, finds the chunk's tensor by a linear search of the chunk
// offsets (uniform across the block) and runs its program (also uniform: no divergence). A
// whole optimizer update is then one launch per dtype and per kMaxTensors tensors (or
// kMaxPrograms distinct program and scalar sets), instead of one per parameter.

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/error.h"
#include "cuda/check.h"
#include "cuda/cuda_kernels.h"
#include "cuda/device_guard.h"
#include "cuda/dtype_dispatch.cuh"
#include "cuda/launch.cuh"
#include "cuda/stream.h"

namespace rensa::cuda {
namespace {

inline constexpr int kMaxTensors = 36;
inline constexpr int kMaxPrograms = 6;
inline constexpr int64_t kChunk = 4096;

// A program with its scalars in the compute type C; zero-filled past its size, so memcmp
// finds equal sets.
template <class C>
struct DeviceProgram {
    C scalars[kUpdateMaxScalars];
    UpdateInstruction code[kUpdateMaxInstructions];
    int32_t size, n_states;
};

template <class C>
DeviceProgram<C> make_device_program(const FusedUpdateArgs& a) {
    DeviceProgram<C> d;
    std::memset(static_cast<void*>(&d), 0, sizeof(d));
    const UpdateProgram& p = *a.program;
    for (int i = 0; i < p.n_scalars; ++i) d.scalars[i] = static_cast<C>(a.scalars[static_cast<size_t>(i)]);
    for (int i = 0; i < p.size; ++i) d.code[i] = p.code[static_cast<size_t>(i)];
    d.size = p.size;
    d.n_states = p.n_states();
    return d;
}

// The tensor list of one launch (see Note [Multi-tensor apply]).
template <class T>
struct TensorList {
    T* p[kMaxTensors];
    const T* g[kMaxTensors];
    T* s[kUpdateMaxStates][kMaxTensors];  // null past the program's states
    int64_t n[kMaxTensors];
    int64_t chunk_start[kMaxTensors];  // the tensor's first chunk in the list's numbering
    uint8_t program_index[kMaxTensors];
    DeviceProgram<ComputeT<T>> programs[kMaxPrograms];
    int count, n_programs;
    int64_t total_chunks;
};
static_assert(sizeof(TensorList<double>) <= 4096, "kernel parameters must stay under 4 KB");

// IEEE round-to-nearest arithmetic that nvcc never contracts into an FMA, so each op rounds
// as core/kernels.h says (as the native kernel, built with -ffp-contract=off); sqrtf and /
// are correctly rounded under nvcc's defaults (-prec-sqrt=true, -prec-div=true).
__device__ inline float dsqrt(float v) { return sqrtf(v); }
__device__ inline double dsqrt(double v) { return sqrt(v); }
__device__ inline float mul(float a, float b) { return __fmul_rn(a, b); }
__device__ inline double mul(double a, double b) { return __dmul_rn(a, b); }
__device__ inline float add(float a, float b) { return __fadd_rn(a, b); }
__device__ inline double add(double a, double b) { return __dadd_rn(a, b); }
__device__ inline float sub(float a, float b) { return __fsub_rn(a, b); }
__device__ inline double sub(double a, double b) { return __dsub_rn(a, b); }

template <class C>
__device__ inline C operand(const DeviceProgram<C>& prog, const C* reg, uint8_t r) {
    return r >= kUpdateScalar0 ? prog.scalars[r - kUpdateScalar0] : reg[r];
}

// The program on one element's registers, with the ops' definitions of core/kernels.h.
template <class C>
__device__ inline void run_program(const DeviceProgram<C>& prog, C* reg) {
    for (int i = 0; i < prog.size; ++i) {
        const UpdateInstruction in = prog.code[i];
        const C a = operand(prog, reg, in.a);
        const C b = operand(prog, reg, in.b);
        const C c = operand(prog, reg, in.c);
        C d = a;
        switch (in.op) {
            case UpdateOp::kCopy:
                break;
            case UpdateOp::kAdd:
                d = add(a, b);
                break;
            case UpdateOp::kSub:
                d = sub(a, b);
                break;
            case UpdateOp::kMul:
                d = mul(a, b);
                break;
            case UpdateOp::kDiv:
                d = a / b;
                break;
            case UpdateOp::kMin:
                d = b < a ? b : a;
                break;
            case UpdateOp::kMax:
                d = a < b ? b : a;
                break;
            case UpdateOp::kSqrt:
                d = dsqrt(a);
                break;
            case UpdateOp::kMulAdd:
                d = add(mul(a, b), c);
                break;
            case UpdateOp::kMulSub:
                d = sub(mul(a, b), c);
                break;
            case UpdateOp::kSubMul:
                d = sub(c, mul(a, b));
                break;
        }
        reg[in.dst] = d;
    }
}

template <class T>
__global__ void fused_update_kernel(const TensorList<T> list) {
    using C = ComputeT<T>;
    for (int64_t chunk = blockIdx.x; chunk < list.total_chunks; chunk += gridDim.x) {
        int t = 0;
        while (t + 1 < list.count && list.chunk_start[t + 1] <= chunk) ++t;
        const DeviceProgram<C>& prog = list.programs[list.program_index[t]];
        const int n_states = prog.n_states;
        T* const p = list.p[t];
        const T* const g = list.g[t];
        const int64_t begin = (chunk - list.chunk_start[t]) * kChunk;
        const int64_t end = begin + kChunk < list.n[t] ? begin + kChunk : list.n[t];
        for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
            C reg[kUpdateRegisters];
            reg[kUpdateParam] = to_compute(p[i]);
            reg[kUpdateGrad] = to_compute(g[i]);
            for (int k = 0; k < n_states; ++k) reg[kUpdateState0 + k] = to_compute(list.s[k][t][i]);
            run_program(prog, reg);
            for (int k = 0; k < n_states; ++k) list.s[k][t][i] = from_compute<T>(reg[kUpdateState0 + k]);
            p[i] = from_compute<T>(reg[kUpdateParam]);
        }
    }
}

// Packs the updates (all of dtype T, non-empty) into tensor lists and launches each.
template <class T>
void run_updates(const std::vector<const FusedUpdateArgs*>& updates, cudaStream_t stream) {
    using C = ComputeT<T>;
    TensorList<T> list;
    auto reset = [&] { std::memset(static_cast<void*>(&list), 0, sizeof(list)); };
    auto launch = [&] {
        if (list.count == 0) return;
        const unsigned int blocks = grid_for(list.total_chunks, 1);
        fused_update_kernel<T><<<blocks, kThreads, 0, stream>>>(list);
        check_launch("fused_update");
        reset();
    };
    reset();
    for (const FusedUpdateArgs* u : updates) {
        if (list.count == kMaxTensors) launch();
        const DeviceProgram<C> prog = make_device_program<C>(*u);
        int index = 0;
        while (index < list.n_programs && std::memcmp(&list.programs[index], &prog, sizeof(prog)) != 0) ++index;
        if (index == kMaxPrograms) {
            launch();
            index = 0;
        }
        if (index == list.n_programs) list.programs[list.n_programs++] = prog;
        const int t = list.count++;
        list.p[t] = static_cast<T*>(u->param.raw_data());
        list.g[t] = static_cast<const T*>(u->grad.raw_data());
        for (int k = 0; k < prog.n_states; ++k)
            list.s[k][t] = static_cast<T*>(u->states[static_cast<size_t>(k)].raw_data());
        list.n[t] = u->param.size();
        list.chunk_start[t] = list.total_chunks;
        list.program_index[t] = static_cast<uint8_t>(index);
        list.total_chunks += (list.n[t] + kChunk - 1) / kChunk;
    }
    launch();
}

}  // namespace

void CudaKernels::fused_update(std::span<const FusedUpdateArgs> updates) {
    for (const FusedUpdateArgs& u : updates) {
        RENSA_CHECK(is_float(u.param.dtype()), DtypeError, "fused_update: param must be floating point, got ",
                    dtype_name(u.param.dtype()));
    }
    DeviceGuard guard{device_};
    const cudaStream_t stream = current_stream(device_);
    // One pass of launches per float dtype; updates share no written array, so the order is free.
    for (const Dtype dtype : {Dtype::kFloat16, Dtype::kBFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
        std::vector<const FusedUpdateArgs*> group;
        for (const FusedUpdateArgs& u : updates) {
            if (u.param.dtype() == dtype && u.param.size() > 0) group.push_back(&u);
        }
        if (group.empty()) continue;
        visit_float_dtype(dtype, [&]<typename T>() { run_updates<T>(group, stream); });
    }
}

}  // namespace rensa::cuda
