// gemm: float32 through oneDNN's sgemm when oneDNN is built in (see Note [sgemm]),
// float32/float64 through OpenBLAS otherwise, reading the operands in place whenever each
// matrix has a unit stride along one of its axes (row- or column-major); bfloat16 through a
// oneDNN matmul accumulating in float32 (Note [bf16 gemm], gemm_dnnl.cc); float16, and
// bfloat16 on CPUs without native bf16 dot products or with strides oneDNN has no JIT
// kernel for, through float32 temporaries; integers and bool by a plain loop.

#include <cblas.h>
#ifdef RENSA_WITH_DNNL
#include <oneapi/dnnl/dnnl.h>
#endif

#include <algorithm>
#include <climits>
#include <cmath>
#include <concepts>
#include <memory>
#include <optional>

#include "core/error.h"
#include "core/native/dtype_dispatch.h"
#include "core/native/gemm_dnnl.h"
#include "core/native/native_kernels.h"
#include "core/native/parallel.h"

namespace rensa::native {
namespace {

// Address of element (i, r, c) of a 3-D array.
template <class T>
T* element(const Array& x, int64_t i, int64_t r, int64_t c) {
    char* p = static_cast<char*>(x.raw_data());
    return reinterpret_cast<T*>(p + i * x.strides()[0] + r * x.strides()[1] + c * x.strides()[2]);
}

// Note [BLAS layouts]: every operand here is a "logical" 3-D array (batch, rows, cols)
// whose transposes are already applied as views. BLAS (row-major calls) can read a
// matrix in place when its column stride is 1 (CblasNoTrans, ld = row stride) or its
// row stride is 1 (CblasTrans, ld = column stride); anything else is copied first.
struct BlasMatrix {
    CBLAS_TRANSPOSE trans = CblasNoTrans;
    blasint ld = 1;
};

bool fits_blasint(int64_t v) { return v >= 0 && v <= INT_MAX; }

std::optional<BlasMatrix> blas_matrix(const Array& x) {
    const int64_t item = x.itemsize();
    const int64_t rows = x.shape()[1], cols = x.shape()[2];
    const int64_t rs = x.strides()[1], cs = x.strides()[2];
    if (rs % item != 0 || cs % item != 0) return std::nullopt;
    // A length-1 axis may carry any stride; BLAS only needs ld >= the other extent.
    if (cs == item || cols == 1) {
        const int64_t ld = rows == 1 ? std::max<int64_t>(cols, 1) : rs / item;
        if (ld >= std::max<int64_t>(cols, 1) && fits_blasint(ld)) {
            return BlasMatrix{CblasNoTrans, static_cast<blasint>(ld)};
        }
    }
    if (rs == item || rows == 1) {
        const int64_t ld = cols == 1 ? std::max<int64_t>(rows, 1) : cs / item;
        if (ld >= std::max<int64_t>(rows, 1) && fits_blasint(ld)) {
            return BlasMatrix{CblasTrans, static_cast<blasint>(ld)};
        }
    }
    return std::nullopt;
}

// A contiguous copy of `x` in `dtype`; a broadcast batch (stride 0) is copied once.
Array contiguous_operand(const Array& x, Dtype dtype) {
    const bool broadcast_batch = x.shape()[0] > 1 && x.strides()[0] == 0;
    const Array src = broadcast_batch ? x.index({Slice{0, 1}}) : x;
    Array tmp = Array::empty(src.shape(), dtype, x.device());
    tmp.assign(src);
    return tmp.broadcast_to(x.shape());
}

// Note [sgemm]: Debian 12's OpenBLAS (0.3.21) does not know recent AVX-512 Xeons and falls
// back to its generic SSE3 ("Prescott") kernels: about 43 GFLOP/s on 2 threads here for a
// 100x1000x784 sgemm, against about 190 for oneDNN's JIT sgemm (and 155 for OpenBLAS
// forced to SkylakeX with OPENBLAS_CORETYPE, which a library cannot set once loaded). So
// float32 goes to dnnl_sgemm, which is row-major like our calls; OpenBLAS stays the
// fallback and serves float64.
template <class T>
void call_blas(const BlasMatrix& ma, const BlasMatrix& mb, blasint m, blasint n, blasint k, double alpha, const T* a,
               const T* b, double beta, T* c, blasint ldc) {
    if constexpr (std::same_as<T, float>) {
#ifdef RENSA_WITH_DNNL
        const char ta = ma.trans == CblasTrans ? 'T' : 'N', tb = mb.trans == CblasTrans ? 'T' : 'N';
        if (dnnl_sgemm(ta, tb, m, n, k, static_cast<float>(alpha), a, ma.ld, b, mb.ld, static_cast<float>(beta), c,
                       ldc) == dnnl_success) {
            return;
        }
#endif
        cblas_sgemm(CblasRowMajor, ma.trans, mb.trans, m, n, k, static_cast<float>(alpha), a, ma.ld, b, mb.ld,
                    static_cast<float>(beta), c, ldc);
    } else {
        cblas_dgemm(CblasRowMajor, ma.trans, mb.trans, m, n, k, alpha, a, ma.ld, b, mb.ld, beta, c, ldc);
    }
}

// c = alpha * a @ b + beta * c for logical (batch, m, k) a, (batch, k, n) b, (batch, m, n) c
// with m, n, k > 0. See Note [BLAS layouts].
template <class T>
void blas_gemm(Array a, Array b, Array c, double alpha, double beta) {
    std::optional<BlasMatrix> mc = blas_matrix(c);
    if (mc && mc->trans == CblasTrans) {  // column-major c: compute c^T = b^T @ a^T instead
        Array at = a.swapaxes(1, 2);
        a = b.swapaxes(1, 2);
        b = at;
        c = c.swapaxes(1, 2);
        mc = blas_matrix(c);
    }
    if (!mc) {  // c has no unit stride: compute into a contiguous temporary
        const Array tmp = Array::empty(c.shape(), c.dtype(), c.device());
        if (beta != 0.0) tmp.assign(c);
        blas_gemm<T>(a, b, tmp, alpha, beta);
        c.assign(tmp);
        return;
    }
    if (!blas_matrix(a)) a = contiguous_operand(a, a.dtype());
    if (!blas_matrix(b)) b = contiguous_operand(b, b.dtype());
    const BlasMatrix ma = *blas_matrix(a), mb = *blas_matrix(b);
    const int64_t m = c.shape()[1], n = c.shape()[2], k = a.shape()[2];
    RENSA_CHECK(fits_blasint(m) && fits_blasint(n) && fits_blasint(k), ValueError, "gemm: OpenBLAS takes ",
                "dimensions below 2^31, got m=", m, ", n=", n, ", k=", k);
    // OpenBLAS threads inside each call, so the batch loop stays serial.
    for (int64_t i = 0; i < c.shape()[0]; ++i) {
        call_blas<T>(ma, mb, static_cast<blasint>(m), static_cast<blasint>(n), static_cast<blasint>(k), alpha,
                     element<T>(a, i, 0, 0), element<T>(b, i, 0, 0), beta, element<T>(c, i, 0, 0), mc->ld);
    }
}

// float16/bfloat16: float32 temporaries, sgemm, then rounded back into c.
void half_gemm(const Array& a, const Array& b, const Array& c, double alpha, double beta) {
    const Array a32 = contiguous_operand(a, Dtype::kFloat32);
    const Array b32 = contiguous_operand(b, Dtype::kFloat32);
    const Array c32 = Array::empty(c.shape(), Dtype::kFloat32, c.device());
    if (beta != 0.0) c32.assign(c);
    blas_gemm<float>(a32, b32, c32, alpha, beta);
    c.assign(c32);
}

// Note [Integer gemm]: integers accumulate modulo 2^64 in uint64_t and wrap to T at the
// end, which is numpy's wrap-around in T without signed-overflow UB. Integral alpha and
// beta stay in that arithmetic; others go through double and truncate.
template <class T>
struct LoopMath {
    using Acc =
        std::conditional_t<std::same_as<T, bool>, bool, std::conditional_t<std::integral<T>, uint64_t, ComputeT<T>>>;

    static Acc multiply_add(Acc acc, T x, T y) {
        if constexpr (std::same_as<T, bool>) {
            return acc || (x && y);
        } else if constexpr (std::integral<T>) {
            return acc + static_cast<uint64_t>(x) * static_cast<uint64_t>(y);
        } else {
            return acc + static_cast<Acc>(x) * static_cast<Acc>(y);
        }
    }

    // alpha * acc + beta * old; `old` is not read when beta == 0 (BLAS semantics).
    static T combine(Acc acc, double alpha, double beta, const T* old) {
        if constexpr (std::same_as<T, bool>) {
            return (alpha != 0.0 && acc) || (beta != 0.0 && *old);
        } else if constexpr (std::integral<T>) {
            const bool integral = std::trunc(alpha) == alpha && std::trunc(beta) == beta && std::abs(alpha) < 0x1p63 &&
                                  std::abs(beta) < 0x1p63;
            if (integral) {
                uint64_t r = static_cast<uint64_t>(static_cast<int64_t>(alpha)) * acc;
                if (beta != 0.0) r += static_cast<uint64_t>(static_cast<int64_t>(beta)) * static_cast<uint64_t>(*old);
                return static_cast<T>(r);
            }
            const double r = alpha * static_cast<double>(static_cast<T>(acc)) +
                             (beta != 0.0 ? beta * static_cast<double>(*old) : 0.0);
            return cast_value<T>(r);
        } else {
            const Acc old_term = beta != 0.0 ? static_cast<Acc>(beta) * static_cast<Acc>(*old) : Acc{0};
            return cast_value<T>(static_cast<Acc>(alpha) * acc + old_term);
        }
    }
};

// Plain loop for any dtype and any strides, parallel over output rows. Each row is
// accumulated in a buffer (i-p-j order) so rows of b are read along their length.
template <class T>
void loop_gemm(const Array& a, const Array& b, const Array& c, double alpha, double beta) {
    using Math = LoopMath<T>;
    const int64_t m = c.shape()[1], n = c.shape()[2], k = a.shape()[2];
    const int64_t rows = c.shape()[0] * m;
    const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, n * k));
    parallel_for(rows, grain, [&](int64_t begin, int64_t end) {
        const auto storage = std::make_unique<typename Math::Acc[]>(static_cast<size_t>(n));  // not vector<bool>
        typename Math::Acc* const acc = storage.get();
        const int64_t b_col = b.strides()[2];
        for (int64_t row = begin; row < end; ++row) {
            const int64_t i = row / m, r = row % m;
            std::fill(acc, acc + n, typename Math::Acc{});
            for (int64_t p = 0; p < k; ++p) {
                const T x = *element<T>(a, i, r, p);
                const char* b_row = reinterpret_cast<const char*>(element<T>(b, i, p, 0));
                for (int64_t j = 0; j < n; ++j) {
                    const T y = *reinterpret_cast<const T*>(b_row + j * b_col);
                    acc[j] = Math::multiply_add(acc[j], x, y);
                }
            }
            for (int64_t j = 0; j < n; ++j) {
                T* out = element<T>(c, i, r, j);
                *out = Math::combine(acc[j], alpha, beta, out);
            }
        }
    });
}

}  // namespace

void NativeKernels::gemm(const GemmArgs& args) {
    const Array a = args.trans_a ? args.a.swapaxes(1, 2) : args.a;
    const Array b = args.trans_b ? args.b.swapaxes(1, 2) : args.b;
    const Array& c = args.out;
    if (c.size() == 0) return;
    const bool empty_sum = a.shape()[2] == 0;  // k == 0: c = beta * c, done by the loop
    visit_dtype(c.dtype(), [&]<typename T>() {
        if constexpr (std::same_as<T, float> || std::same_as<T, double>) {
            if (!empty_sum) return blas_gemm<T>(a, b, c, args.alpha, args.beta);
        } else if constexpr (kIsHalfLike<T>) {
            if (empty_sum) return loop_gemm<T>(a, b, c, args.alpha, args.beta);
            if (std::same_as<T, BFloat16> && dnnl_gemm_bf16(a, b, c, args.alpha, args.beta)) return;
            return half_gemm(a, b, c, args.alpha, args.beta);
        }
        loop_gemm<T>(a, b, c, args.alpha, args.beta);
    });
}

}  // namespace rensa::native
