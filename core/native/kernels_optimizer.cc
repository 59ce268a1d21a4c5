// The fused optimizer update (Kernels::optimizer_step): one pass over contiguous
// param, grad and state arrays, each element loaded once, updated by the rule's formula
// in the compute type (float for float16/bfloat16) and stored once. The rule and the
// number of state arrays are template parameters, so each rule's loop is straight-line
// code the compiler vectorises. Threads split the elements; every element's result
// depends only on its own inputs, so results never depend on the thread count.
// Loops with a square root (Adam, RMSprop, ...) vectorise only when this file is built
// with -fno-math-errno (std::sqrt's errno branch is control flow in the loop; GCC 12
// ignores the flag in `#pragma GCC optimize`): Adam on bench_optimizers' MLP 2.3 -> 0.7 ms.

#include <algorithm>
#include <cmath>

#include "core/native/dtype_dispatch.h"
#include "core/native/native_kernels.h"
#include "core/native/parallel.h"

namespace rensa::native {
namespace {

// The scalars of OptimizerStepArgs in the compute type C, with the constants the
// formulas use precomputed.
template <class C>
struct Hyper {
    explicit Hyper(const OptimizerStepArgs& a)
        : lr(static_cast<C>(a.lr)),
          momentum(static_cast<C>(a.momentum)),
          alpha(static_cast<C>(a.alpha)),
          one_minus_alpha(static_cast<C>(1.0 - a.alpha)),
          rho(static_cast<C>(a.rho)),
          one_minus_rho(static_cast<C>(1.0 - a.rho)),
          eps(static_cast<C>(a.eps)),
          one_minus_beta(static_cast<C>(1.0 - a.beta)),
          one_minus_beta1(static_cast<C>(1.0 - a.beta1)),
          one_minus_beta2(static_cast<C>(1.0 - a.beta2)),
          eta(static_cast<C>(a.eta)),
          weight_decay_rate(static_cast<C>(a.weight_decay_rate)),
          lower(static_cast<C>(a.lower)),
          upper(static_cast<C>(a.upper)),
          inv_one_minus_beta_power(static_cast<C>(1.0 / (1.0 - a.beta_power))),
          inv_one_minus_msvag_rho(static_cast<C>(1.0 / (1.0 - a.rho))) {}
    C lr, momentum, alpha, one_minus_alpha, rho, one_minus_rho, eps;
    C one_minus_beta, one_minus_beta1, one_minus_beta2, eta, weight_decay_rate, lower, upper;
    C inv_one_minus_beta_power, inv_one_minus_msvag_rho;
};

// step(p, g, s0, ..., s<S-1>) on elements [begin, end): p and the states are the element's
// values in the compute type, passed by reference (in/out). Pointers restrict and `step` a
// local copy, so the hyperparameters stay in registers and the loop vectorises; scalars
// rather than a local array, which `omp simd` would keep in memory.
template <int S, class T, class Step>
void run_range(T* __restrict p, const T* __restrict g, T* __restrict s0, T* __restrict s1, T* __restrict s2,
               int64_t begin, int64_t end, const Step step) {
    using C = ComputeT<T>;
#pragma omp simd
    for (int64_t i = begin; i < end; ++i) {
        C pv = static_cast<C>(p[i]);
        const C gv = static_cast<C>(g[i]);
        if constexpr (S == 0) {
            step(pv, gv);
        } else if constexpr (S == 1) {
            C v0 = static_cast<C>(s0[i]);
            step(pv, gv, v0);
            s0[i] = static_cast<T>(v0);
        } else if constexpr (S == 2) {
            C v0 = static_cast<C>(s0[i]), v1 = static_cast<C>(s1[i]);
            step(pv, gv, v0, v1);
            s0[i] = static_cast<T>(v0);
            s1[i] = static_cast<T>(v1);
        } else {
            C v0 = static_cast<C>(s0[i]), v1 = static_cast<C>(s1[i]), v2 = static_cast<C>(s2[i]);
            step(pv, gv, v0, v1, v2);
            s0[i] = static_cast<T>(v0);
            s1[i] = static_cast<T>(v1);
            s2[i] = static_cast<T>(v2);
        }
        p[i] = static_cast<T>(pv);
    }
}

// Runs `step` on every element, the elements split among threads.
template <int S, class T, class Step>
void for_each_element(const OptimizerStepArgs& a, const Step& step) {
    T* const p = static_cast<T*>(a.param.raw_data());
    const T* const g = static_cast<const T*>(a.grad.raw_data());
    T* const s0 = S > 0 ? static_cast<T*>(a.s0.raw_data()) : nullptr;
    T* const s1 = S > 1 ? static_cast<T*>(a.s1.raw_data()) : nullptr;
    T* const s2 = S > 2 ? static_cast<T*>(a.s2.raw_data()) : nullptr;
    parallel_for(a.param.size(), kParallelGrain,
                 [&](int64_t begin, int64_t end) { run_range<S>(p, g, s0, s1, s2, begin, end, step); });
}

template <class T>
void momentum_sgd(const OptimizerStepArgs& a, const Hyper<ComputeT<T>>& h) {
    for_each_element<1, T>(a, [h](ComputeT<T>& p, ComputeT<T> g, ComputeT<T>& s0) {
        s0 = h.momentum * s0 - h.lr * g;
        p += s0;
    });
}

template <class T>
void nesterov_ag(const OptimizerStepArgs& a, const Hyper<ComputeT<T>>& h) {
    using C = ComputeT<T>;
    for_each_element<1, T>(a, [h](C& p, C g, C& s0) {
        s0 = h.momentum * s0 - h.lr * g;
        p += h.momentum * h.momentum * s0 - (C{1} + h.momentum) * h.lr * g;
    });
}

template <class T>
void corrected_momentum_sgd(const OptimizerStepArgs& a, const Hyper<ComputeT<T>>& h) {
    for_each_element<1, T>(a, [h](ComputeT<T>& p, ComputeT<T> g, ComputeT<T>& s0) {
        s0 = h.momentum * s0 - g;
        p += h.lr * s0;
    });
}

template <class T>
void ada_grad(const OptimizerStepArgs& a, const Hyper<ComputeT<T>>& h) {
    for_each_element<1, T>(a, [h](ComputeT<T>& p, ComputeT<T> g, ComputeT<T>& s0) {
        s0 += g * g;
        p -= h.lr * g / (std::sqrt(s0) + h.eps);
    });
}

template <class T>
void ada_delta(const OptimizerStepArgs& a, const Hyper<ComputeT<T>>& h) {
    using C = ComputeT<T>;
    for_each_element<2, T>(a, [h](C& p, C g, C& s0, C& s1) {
        s0 = h.rho * s0 + h.one_minus_rho * g * g;
        const C dx = std::sqrt((s1 + h.eps) / (s0 + h.eps)) * g;
        s1 = h.rho * s1 + h.one_minus_rho * dx * dx;
        p -= dx;
    });
}

template <class T>
void rmsprop(const OptimizerStepArgs& a, const Hyper<ComputeT<T>>& h) {
    using C = ComputeT<T>;
    if (a.eps_inside_sqrt) {
        return for_each_element<1, T>(a, [h](C& p, C g, C& s0) {
            s0 = h.alpha * s0 + h.one_minus_alpha * g * g;
            p -= h.lr * g / std::sqrt(s0 + h.eps);
        });
    }
    for_each_element<1, T>(a, [h](C& p, C g, C& s0) {
        s0 = h.alpha * s0 + h.one_minus_alpha * g * g;
        p -= h.lr * g / (std::sqrt(s0) + h.eps);
    });
}

// State n (mean square), g (mean), delta (the momentum of the step).
template <class T>
void rmsprop_graves(const OptimizerStepArgs& a, const Hyper<ComputeT<T>>& h) {
    using C = ComputeT<T>;
    for_each_element<3, T>(a, [h](C& p, C g, C& s0, C& s1, C& s2) {
        s0 = h.alpha * s0 + h.one_minus_alpha * g * g;
        s1 = h.alpha * s1 + h.one_minus_alpha * g;
        s2 = h.momentum * s2 - h.lr * g / std::sqrt(s0 - s1 * s1 + h.eps);
        p += s2;
    });
}

// State mem, g, g2.
template <class T>
void smorms3(const OptimizerStepArgs& a, const Hyper<ComputeT<T>>& h) {
    using C = ComputeT<T>;
    for_each_element<3, T>(a, [h](C& p, C g, C& s0, C& s1, C& s2) {
        const C r = C{1} / (s0 + C{1});
        s1 = (C{1} - r) * s1 + r * g;
        s2 = (C{1} - r) * s2 + r * g * g;
        const C x = s1 * s1 / (s2 + h.eps);
        p -= g * std::min(x, h.lr) / (std::sqrt(s2) + h.eps);
        s0 = C{1} + s0 * (C{1} - x);
    });
}

// Adam, AMSGrad, AdaBound and AMSBound; h.lr is alpha_t.
template <class T, bool kAmsgrad, bool kAdabound>
void adam(const OptimizerStepArgs& a, const Hyper<ComputeT<T>>& h) {
    using C = ComputeT<T>;
    for_each_element<kAmsgrad ? 3 : 2, T>(a, [h](C& p, C g, C& s0, C& s1, auto&... s2) {
        s0 += h.one_minus_beta1 * (g - s0);
        s1 += h.one_minus_beta2 * (g * g - s1);
        C vhat = s1;
        ((vhat = s2 = std::max(s2, s1)), ...);  // vhat (AMSGrad's s2) is there only with kAmsgrad
        C step = h.lr / (std::sqrt(vhat) + h.eps);
        if constexpr (kAdabound) step = std::max(std::min(step, h.upper), h.lower);
        p -= h.eta * (step * s0 + h.weight_decay_rate * p);
    });
}

template <class T>
void msvag(const OptimizerStepArgs& a, const Hyper<ComputeT<T>>& h) {
    using C = ComputeT<T>;
    for_each_element<2, T>(a, [h](C& p, C g, C& s0, C& s1) {
        s0 += h.one_minus_beta * (g - s0);
        s1 += h.one_minus_beta * (g * g - s1);
        const C mt = s0 * h.inv_one_minus_beta_power;
        const C vt = s1 * h.inv_one_minus_beta_power;
        const C mt2 = mt * mt;
        const C var = (vt - mt2) * h.inv_one_minus_msvag_rho;
        const C f = mt2 / (mt2 + h.rho * var);
        const C factor = f >= C{0} ? std::min(f, C{1}) : C{0};  // NaN (0 / 0) and negatives give 0
        p -= h.eta * (h.lr * mt * factor + h.weight_decay_rate * p);
    });
}

template <class T>
void optimizer_step_typed(const OptimizerStepArgs& a) {
    using C = ComputeT<T>;
    const Hyper<C> h{a};
    switch (a.rule) {
        case OptimizerRule::kSgd:
            return for_each_element<0, T>(a, [h](C& p, C g) { p -= h.lr * g; });
        case OptimizerRule::kMomentumSgd:
            return momentum_sgd<T>(a, h);
        case OptimizerRule::kNesterovAg:
            return nesterov_ag<T>(a, h);
        case OptimizerRule::kCorrectedMomentumSgd:
            return corrected_momentum_sgd<T>(a, h);
        case OptimizerRule::kAdaGrad:
            return ada_grad<T>(a, h);
        case OptimizerRule::kAdaDelta:
            return ada_delta<T>(a, h);
        case OptimizerRule::kRmsprop:
            return rmsprop<T>(a, h);
        case OptimizerRule::kRmspropGraves:
            return rmsprop_graves<T>(a, h);
        case OptimizerRule::kSmorms3:
            return smorms3<T>(a, h);
        case OptimizerRule::kAdam:
            if (a.amsgrad) return a.adabound ? adam<T, true, true>(a, h) : adam<T, true, false>(a, h);
            return a.adabound ? adam<T, false, true>(a, h) : adam<T, false, false>(a, h);
        case OptimizerRule::kMsvag:
            return msvag<T>(a, h);
    }
}

}  // namespace

void NativeKernels::optimizer_step(const OptimizerStepArgs& args) {
    visit_dtype(args.param.dtype(), [&]<typename T>() {
        if constexpr (kIsFloating<T>) {
            optimizer_step_typed<T>(args);
        } else {
            RENSA_ASSERT(false);  // core/ops/optimizer_step checks the dtype
        }
    });
}

// Each step is one OpenMP-parallel pass already; running them in order keeps the cache warm.
void NativeKernels::optimizer_step_multi(std::span<const OptimizerStepArgs> steps) {
    for (const OptimizerStepArgs& step : steps) optimizer_step(step);
}

}  // namespace rensa::native
