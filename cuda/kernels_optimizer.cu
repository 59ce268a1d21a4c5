// Optimizer updates on the GPU (Kernels::optimizer_step and optimizer_step_multi), the
// formulas of core/native/kernels_optimizer.cc in the same order, in float for
// float16/bfloat16 and in the dtype otherwise.
//
// Note [Multi-tensor apply]: one kernel per dtype takes a list of up to kMaxTensors tensors
// by value (pointers, sizes, an index into a small table of distinct hyperparameter sets,
// each with its rule), under 4 KB of kernel parameters, so no host-to-device staging is
// needed. The tensors are cut into chunks of kChunk elements, numbered across the list;
// each block takes chunks in a grid-stride loop, finds the chunk's tensor by a linear
// search of the chunk offsets (uniform across the block) and switches on its rule (also
// uniform). A whole optimizer update is then one launch per dtype and per kMaxTensors
// tensors (or kMaxHyper distinct hyperparameter sets), instead of one per parameter.

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/error.h"
#include "core/ops/optimizer_step.h"
#include "cuda/check.h"
#include "cuda/cuda_kernels.h"
#include "cuda/device_guard.h"
#include "cuda/dtype_dispatch.cuh"
#include "cuda/launch.cuh"
#include "cuda/stream.h"

namespace rensa::cuda {
namespace {

inline constexpr int kMaxTensors = 36;
inline constexpr int kMaxHyper = 6;
inline constexpr int64_t kChunk = 4096;

// The scalars of OptimizerStepArgs in the compute type C with the native kernel's
// precomputed constants, the rule and its flags; no padding, so memcmp finds equal sets.
template <class C>
struct Hyper {
    C lr, momentum, alpha, one_minus_alpha, rho, one_minus_rho, eps;
    C one_minus_beta, one_minus_beta1, one_minus_beta2, eta, weight_decay_rate, lower, upper;
    C inv_one_minus_beta_power, inv_one_minus_msvag_rho;
    int32_t rule;   // an OptimizerRule
    int32_t flags;  // kEpsInsideSqrt | kAmsgrad | kAdabound
};
inline constexpr int32_t kEpsInsideSqrt = 1, kAmsgrad = 2, kAdabound = 4;
static_assert(sizeof(Hyper<float>) == 18 * sizeof(float) && sizeof(Hyper<double>) == 17 * sizeof(double));

template <class C>
Hyper<C> make_hyper(const OptimizerStepArgs& a) {
    Hyper<C> h;
    std::memset(static_cast<void*>(&h), 0, sizeof(h));
    h.lr = static_cast<C>(a.lr);
    h.momentum = static_cast<C>(a.momentum);
    h.alpha = static_cast<C>(a.alpha);
    h.one_minus_alpha = static_cast<C>(1.0 - a.alpha);
    h.rho = static_cast<C>(a.rho);
    h.one_minus_rho = static_cast<C>(1.0 - a.rho);
    h.eps = static_cast<C>(a.eps);
    h.one_minus_beta = static_cast<C>(1.0 - a.beta);
    h.one_minus_beta1 = static_cast<C>(1.0 - a.beta1);
    h.one_minus_beta2 = static_cast<C>(1.0 - a.beta2);
    h.eta = static_cast<C>(a.eta);
    h.weight_decay_rate = static_cast<C>(a.weight_decay_rate);
    h.lower = static_cast<C>(a.lower);
    h.upper = static_cast<C>(a.upper);
    h.inv_one_minus_beta_power = static_cast<C>(1.0 / (1.0 - a.beta_power));
    h.inv_one_minus_msvag_rho = static_cast<C>(1.0 / (1.0 - a.rho));
    h.rule = static_cast<int32_t>(a.rule);
    h.flags = (a.eps_inside_sqrt ? kEpsInsideSqrt : 0) | (a.amsgrad ? kAmsgrad : 0) | (a.adabound ? kAdabound : 0);
    return h;
}

// The tensor list of one launch (see Note [Multi-tensor apply]).
template <class T>
struct TensorList {
    T* p[kMaxTensors];
    const T* g[kMaxTensors];
    T* s[3][kMaxTensors];  // null for the states the rule does not use
    int64_t n[kMaxTensors];
    int64_t chunk_start[kMaxTensors];  // the tensor's first chunk in the list's numbering
    uint8_t hyper_index[kMaxTensors];
    Hyper<ComputeT<T>> hyper[kMaxHyper];
    int count, n_hyper;
    int64_t total_chunks;
};
static_assert(sizeof(TensorList<double>) <= 4096, "kernel parameters must stay under 4 KB");

// std::min / std::max exactly (NaN handling included): min(a, b) = b < a ? b : a.
template <class C>
__device__ inline C std_min(C a, C b) {
    return b < a ? b : a;
}
template <class C>
__device__ inline C std_max(C a, C b) {
    return a < b ? b : a;
}
__device__ inline float dsqrt(float v) { return sqrtf(v); }
__device__ inline double dsqrt(double v) { return sqrt(v); }

// One element of the rule's update, as core/native/kernels_optimizer.cc writes it.
template <class C>
__device__ inline void step_element(const Hyper<C>& h, C& p, C g, C& s0, C& s1, C& s2) {
    switch (static_cast<OptimizerRule>(h.rule)) {
        case OptimizerRule::kSgd:
            p -= h.lr * g;
            break;
        case OptimizerRule::kMomentumSgd:
            s0 = h.momentum * s0 - h.lr * g;
            p += s0;
            break;
        case OptimizerRule::kNesterovAg:
            s0 = h.momentum * s0 - h.lr * g;
            p += h.momentum * h.momentum * s0 - (C{1} + h.momentum) * h.lr * g;
            break;
        case OptimizerRule::kCorrectedMomentumSgd:
            s0 = h.momentum * s0 - g;
            p += h.lr * s0;
            break;
        case OptimizerRule::kAdaGrad:
            s0 += g * g;
            p -= h.lr * g / (dsqrt(s0) + h.eps);
            break;
        case OptimizerRule::kAdaDelta: {
            s0 = h.rho * s0 + h.one_minus_rho * g * g;
            const C dx = dsqrt((s1 + h.eps) / (s0 + h.eps)) * g;
            s1 = h.rho * s1 + h.one_minus_rho * dx * dx;
            p -= dx;
            break;
        }
        case OptimizerRule::kRmsprop:
            s0 = h.alpha * s0 + h.one_minus_alpha * g * g;
            if (h.flags & kEpsInsideSqrt) {
                p -= h.lr * g / dsqrt(s0 + h.eps);
            } else {
                p -= h.lr * g / (dsqrt(s0) + h.eps);
            }
            break;
        case OptimizerRule::kRmspropGraves:
            s0 = h.alpha * s0 + h.one_minus_alpha * g * g;
            s1 = h.alpha * s1 + h.one_minus_alpha * g;
            s2 = h.momentum * s2 - h.lr * g / dsqrt(s0 - s1 * s1 + h.eps);
            p += s2;
            break;
        case OptimizerRule::kSmorms3: {
            const C r = C{1} / (s0 + C{1});
            s1 = (C{1} - r) * s1 + r * g;
            s2 = (C{1} - r) * s2 + r * g * g;
            const C x = s1 * s1 / (s2 + h.eps);
            p -= g * std_min(x, h.lr) / (dsqrt(s2) + h.eps);
            s0 = C{1} + s0 * (C{1} - x);
            break;
        }
        case OptimizerRule::kAdam: {
            s0 += h.one_minus_beta1 * (g - s0);
            s1 += h.one_minus_beta2 * (g * g - s1);
            C vhat = s1;
            if (h.flags & kAmsgrad) vhat = s2 = std_max(s2, s1);
            C step = h.lr / (dsqrt(vhat) + h.eps);
            if (h.flags & kAdabound) step = std_max(std_min(step, h.upper), h.lower);
            p -= h.eta * (step * s0 + h.weight_decay_rate * p);
            break;
        }
        case OptimizerRule::kMsvag: {
            s0 += h.one_minus_beta * (g - s0);
            s1 += h.one_minus_beta * (g * g - s1);
            const C mt = s0 * h.inv_one_minus_beta_power;
            const C vt = s1 * h.inv_one_minus_beta_power;
            const C mt2 = mt * mt;
            const C var = (vt - mt2) * h.inv_one_minus_msvag_rho;
            const C f = mt2 / (mt2 + h.rho * var);
            const C factor = f >= C{0} ? std_min(f, C{1}) : C{0};  // NaN (0 / 0) and negatives give 0
            p -= h.eta * (h.lr * mt * factor + h.weight_decay_rate * p);
            break;
        }
    }
}

template <class T>
__global__ void multi_step_kernel(const TensorList<T> list) {
    using C = ComputeT<T>;
    for (int64_t chunk = blockIdx.x; chunk < list.total_chunks; chunk += gridDim.x) {
        int t = 0;
        while (t + 1 < list.count && list.chunk_start[t + 1] <= chunk) ++t;
        const Hyper<C> h = list.hyper[list.hyper_index[t]];
        T* const p = list.p[t];
        const T* const g = list.g[t];
        T* const s0 = list.s[0][t];
        T* const s1 = list.s[1][t];
        T* const s2 = list.s[2][t];
        const int64_t begin = (chunk - list.chunk_start[t]) * kChunk;
        const int64_t end = begin + kChunk < list.n[t] ? begin + kChunk : list.n[t];
        for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
            C pv = to_compute(p[i]);
            const C gv = to_compute(g[i]);
            C v0 = s0 ? to_compute(s0[i]) : C{0};
            C v1 = s1 ? to_compute(s1[i]) : C{0};
            C v2 = s2 ? to_compute(s2[i]) : C{0};
            step_element<C>(h, pv, gv, v0, v1, v2);
            if (s0) s0[i] = from_compute<T>(v0);
            if (s1) s1[i] = from_compute<T>(v1);
            if (s2) s2[i] = from_compute<T>(v2);
            p[i] = from_compute<T>(pv);
        }
    }
}

// Packs the steps (all of dtype T, non-empty) into tensor lists and launches each.
template <class T>
void run_steps(const std::vector<const OptimizerStepArgs*>& steps, cudaStream_t stream) {
    using C = ComputeT<T>;
    TensorList<T> list;
    auto reset = [&] { std::memset(static_cast<void*>(&list), 0, sizeof(list)); };
    auto launch = [&] {
        if (list.count == 0) return;
        const unsigned int blocks = grid_for(list.total_chunks, 1);
        multi_step_kernel<T><<<blocks, kThreads, 0, stream>>>(list);
        check_launch("optimizer_step");
        reset();
    };
    reset();
    for (const OptimizerStepArgs* step : steps) {
        if (list.count == kMaxTensors) launch();
        const Hyper<C> h = make_hyper<C>(*step);
        int index = 0;
        while (index < list.n_hyper && std::memcmp(&list.hyper[index], &h, sizeof(h)) != 0) ++index;
        if (index == kMaxHyper) {
            launch();
            index = 0;
        }
        if (index == list.n_hyper) list.hyper[list.n_hyper++] = h;
        const int t = list.count++;
        list.p[t] = static_cast<T*>(step->param.raw_data());
        list.g[t] = static_cast<const T*>(step->grad.raw_data());
        const Array* states[3] = {&step->s0, &step->s1, &step->s2};
        const int n_states = ops::optimizer_state_count(*step);
        for (int k = 0; k < n_states; ++k) list.s[k][t] = static_cast<T*>(states[k]->raw_data());
        list.n[t] = step->param.size();
        list.chunk_start[t] = list.total_chunks;
        list.hyper_index[t] = static_cast<uint8_t>(index);
        list.total_chunks += (list.n[t] + kChunk - 1) / kChunk;
    }
    launch();
}

}  // namespace

void CudaKernels::optimizer_step(const OptimizerStepArgs& args) { optimizer_step_multi({&args, 1}); }

void CudaKernels::optimizer_step_multi(std::span<const OptimizerStepArgs> steps) {
    for (const OptimizerStepArgs& step : steps) {
        RENSA_CHECK(is_float(step.param.dtype()), DtypeError, "optimizer_step: param must be floating point, got ",
                    dtype_name(step.param.dtype()));
    }
    DeviceGuard guard{device_};
    const cudaStream_t stream = current_stream(device_);
    // One pass of launches per float dtype; steps share no array, so the order is free.
    for (const Dtype dtype : {Dtype::kFloat16, Dtype::kBFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
        std::vector<const OptimizerStepArgs*> group;
        for (const OptimizerStepArgs& step : steps) {
            if (step.param.dtype() == dtype && step.param.size() > 0) group.push_back(&step);
        }
        if (group.empty()) continue;
        visit_float_dtype(dtype, [&]<typename T>() { run_steps<T>(group, stream); });
    }
}

}  // namespace rensa::cuda
