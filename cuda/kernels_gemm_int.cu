// The plain gemm kernel: integers, bool, and any dtype with k == 0 (c = beta * c), one
// thread per output element over arbitrary byte strides. Semantics of loop_gemm in
// core/native/kernels_gemm.cc (see Note [Integer gemm] there): integers accumulate modulo
// 2^64 and wrap to T; integral alpha/beta stay integral, others go through double; bool
// is or-of-ands; floats accumulate in ComputeT. beta == 0 never reads c.

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/array.h"
#include "cuda/check.h"
#include "cuda/dtype_dispatch.cuh"
#include "cuda/launch.cuh"
#include "cuda/stream.h"

namespace rensa::cuda {
namespace {

struct LoopGemmParams {
    int64_t batch = 0, m = 0, n = 0, k = 0;
    int64_t a_stride[3] = {}, b_stride[3] = {}, c_stride[3] = {};  // bytes
    double alpha = 1.0, beta = 0.0;
    bool integral = false;  // alpha and beta are integers below 2^63 in magnitude
};

template <class T>
using LoopAcc =
    std::conditional_t<std::is_same_v<T, bool>, bool, std::conditional_t<std::is_integral_v<T>, uint64_t, ComputeT<T>>>;

template <class T>
__device__ inline T load(const char* p) {
    return *reinterpret_cast<const T*>(p);
}

template <class T>
__device__ inline LoopAcc<T> multiply_add(LoopAcc<T> acc, T x, T y) {
    if constexpr (std::is_same_v<T, bool>) {
        return acc || (x && y);
    } else if constexpr (std::is_integral_v<T>) {
        return acc + static_cast<uint64_t>(x) * static_cast<uint64_t>(y);
    } else {
        return acc + to_compute(x) * to_compute(y);
    }
}

// alpha * acc + beta * old; `old` is not read when beta == 0.
template <class T>
__device__ inline T combine(LoopAcc<T> acc, const LoopGemmParams& p, const T* old) {
    if constexpr (std::is_same_v<T, bool>) {
        return (p.alpha != 0.0 && acc) || (p.beta != 0.0 && *old);
    } else if constexpr (std::is_integral_v<T>) {
        if (p.integral) {
            uint64_t r = static_cast<uint64_t>(static_cast<int64_t>(p.alpha)) * acc;
            if (p.beta != 0.0) r += static_cast<uint64_t>(static_cast<int64_t>(p.beta)) * static_cast<uint64_t>(*old);
            return static_cast<T>(r);
        }
        const double r = p.alpha * static_cast<double>(static_cast<T>(acc)) +
                         (p.beta != 0.0 ? p.beta * static_cast<double>(*old) : 0.0);
        return cast_value<T>(r);
    } else {
        using Acc = LoopAcc<T>;
        const Acc old_term = p.beta != 0.0 ? static_cast<Acc>(p.beta) * to_compute(*old) : Acc{0};
        return cast_value<T>(static_cast<Acc>(p.alpha) * acc + old_term);
    }
}

template <class T>
__global__ void loop_gemm_kernel(const char* a, const char* b, char* c, LoopGemmParams p) {
    const int64_t total = p.batch * p.m * p.n;
    for (int64_t idx = grid_index(); idx < total; idx += grid_stride()) {
        const int64_t j = idx % p.n, row = idx / p.n;
        const int64_t r = row % p.m, i = row / p.m;
        const char* a_row = a + i * p.a_stride[0] + r * p.a_stride[1];
        const char* b_col = b + i * p.b_stride[0] + j * p.b_stride[2];
        LoopAcc<T> acc{};
        for (int64_t q = 0; q < p.k; ++q) {
            acc = multiply_add<T>(acc, load<T>(a_row + q * p.a_stride[2]), load<T>(b_col + q * p.b_stride[1]));
        }
        T* out = reinterpret_cast<T*>(c + i * p.c_stride[0] + r * p.c_stride[1] + j * p.c_stride[2]);
        *out = combine<T>(acc, p, out);
    }
}

// a, b may be empty (k == 0) and then hold no storage worth reading.
const char* data_or_null(const Array& x) { return x.size() == 0 ? nullptr : static_cast<const char*>(x.raw_data()); }

}  // namespace

void loop_gemm(int device, const Array& a, const Array& b, const Array& c, double alpha, double beta) {
    LoopGemmParams p;
    p.batch = c.shape()[0];
    p.m = c.shape()[1];
    p.n = c.shape()[2];
    p.k = a.shape()[2];
    for (int d = 0; d < 3; ++d) {
        p.a_stride[d] = a.strides()[d];
        p.b_stride[d] = b.strides()[d];
        p.c_stride[d] = c.strides()[d];
    }
    p.alpha = alpha;
    p.beta = beta;
    p.integral =
        std::trunc(alpha) == alpha && std::trunc(beta) == beta && std::abs(alpha) < 0x1p63 && std::abs(beta) < 0x1p63;
    const int64_t total = p.batch * p.m * p.n;
    if (total == 0) return;
    const char* pa = data_or_null(a);
    const char* pb = data_or_null(b);
    char* pc = static_cast<char*>(c.raw_data());
    visit_dtype(c.dtype(), [&]<typename T>() {
        loop_gemm_kernel<T><<<grid_for(total), kThreads, 0, current_stream(device)>>>(pa, pb, pc, p);
        check_launch("loop_gemm_kernel");
    });
}

}  // namespace rensa::cuda
