// gemm through cuBLAS: float32 (TF32 when cuda::allow_tf32()), float64, and float16 /
// bfloat16 on tensor cores with float32 accumulation. Integers, bool and k == 0 go to the
// plain kernel of kernels_gemm_int.cu. See Note [cuBLAS layouts].

#include <cublas_v2.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>

#include "core/error.h"
#include "cuda/check.h"
#include "cuda/cuda_kernels.h"
#include "cuda/device_guard.h"
#include "cuda/handles.h"

namespace rensa::cuda {

// c = alpha * a @ b + beta * c by one thread per output element, for every dtype and any
// strides; a (batch, m, k), b (batch, k, n), c (batch, m, n). In kernels_gemm_int.cu.
void loop_gemm(int device, const Array& a, const Array& b, const Array& c, double alpha, double beta);

namespace {

// Note [cuBLAS layouts]: operands are logical row-major 3-D arrays (batch, rows, cols),
// transposes already applied as views. A matrix with unit column stride is, to
// column-major cuBLAS, its own transpose stored with ld = row stride (CUBLAS_OP_N); one
// with unit row stride is itself with ld = column stride (CUBLAS_OP_T). So with a
// row-major c, c^T = b^T a^T is one call gemm(op_b, op_a, n, m, k, b, a, c). A
// column-major c is handled as c^T = b^T @ a^T; anything else is copied.
struct BlasMatrix {
    cublasOperation_t op = CUBLAS_OP_N;
    int ld = 1;
    long long batch_stride = 0;  // elements
};

bool fits_int(int64_t v) { return v >= 0 && v <= INT_MAX; }

std::optional<BlasMatrix> blas_matrix(const Array& x, bool output) {
    const int64_t item = x.itemsize();
    const int64_t batch = x.shape()[0], rows = x.shape()[1], cols = x.shape()[2];
    const int64_t bs = x.strides()[0], rs = x.strides()[1], cs = x.strides()[2];
    if (bs % item != 0 || rs % item != 0 || cs % item != 0) return std::nullopt;
    const long long batch_stride = batch == 1 ? 0 : bs / item;
    // A broadcast output batch would race; negative batch strides are not documented.
    if (batch_stride < 0 || (output && batch > 1 && batch_stride == 0)) return std::nullopt;
    // A length-1 axis may carry any stride; cuBLAS only needs ld >= the other extent.
    if (cs == item || cols == 1) {
        const int64_t ld = rows == 1 ? std::max<int64_t>(cols, 1) : rs / item;
        if (ld >= std::max<int64_t>(cols, 1) && fits_int(ld)) {
            return BlasMatrix{CUBLAS_OP_N, static_cast<int>(ld), batch_stride};
        }
    }
    if (rs == item || rows == 1) {
        const int64_t ld = cols == 1 ? std::max<int64_t>(rows, 1) : cs / item;
        if (ld >= std::max<int64_t>(rows, 1) && fits_int(ld)) {
            return BlasMatrix{CUBLAS_OP_T, static_cast<int>(ld), batch_stride};
        }
    }
    return std::nullopt;
}

// A contiguous copy of `x` on its GPU; a broadcast batch (stride 0) is copied once.
Array contiguous_operand(const Array& x) {
    const bool broadcast_batch = x.shape()[0] > 1 && x.strides()[0] == 0;
    const Array src = broadcast_batch ? x.index({Slice{0, 1}}) : x;
    return src.copy().broadcast_to(x.shape());
}

// The cuBLAS types of one dtype: data, compute, and whether alpha/beta are double.
struct BlasTypes {
    cudaDataType_t data;
    cublasComputeType_t compute;
    bool double_scalars;
};

BlasTypes blas_types(Dtype dtype) {
    switch (dtype) {
        case Dtype::kFloat16:
            return {CUDA_R_16F, CUBLAS_COMPUTE_32F, false};
        case Dtype::kBFloat16:
            return {CUDA_R_16BF, CUBLAS_COMPUTE_32F, false};
        case Dtype::kFloat32:
            return {CUDA_R_32F, allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, false};
        case Dtype::kFloat64:
            return {CUDA_R_64F, CUBLAS_COMPUTE_64F, true};
        case Dtype::kBool:
        case Dtype::kInt8:
        case Dtype::kUInt8:
        case Dtype::kInt32:
        case Dtype::kInt64:
            break;
    }
    RENSA_THROW(DtypeError, "gemm: cuBLAS takes float dtypes only, got ", dtype_name(dtype));
}

bool is_blas_dtype(Dtype dtype) {
    return dtype == Dtype::kFloat16 || dtype == Dtype::kBFloat16 || dtype == Dtype::kFloat32 ||
           dtype == Dtype::kFloat64;
}

// cuBLAS scalars in host memory, of the compute type (float, or double for float64).
struct BlasScalars {
    float alpha_f, beta_f;
    double alpha_d, beta_d;
    const void* alpha(bool d) const { return d ? static_cast<const void*>(&alpha_d) : &alpha_f; }
    const void* beta(bool d) const { return d ? static_cast<const void*>(&beta_d) : &beta_f; }
};

// Grid limits of some cuBLAS kernels: batches go in chunks of at most this many.
constexpr int64_t kMaxBatchPerCall = 65535;

// One gemm on BLAS-ready operands: c row-major (op N). See Note [cuBLAS layouts].
void call_cublas(int device, const Array& a, const BlasMatrix& ma, const Array& b, const BlasMatrix& mb, const Array& c,
                 const BlasMatrix& mc, double alpha, double beta) {
    const int64_t batch = c.shape()[0], m = c.shape()[1], n = c.shape()[2], k = a.shape()[2];
    const BlasTypes t = blas_types(c.dtype());
    const BlasScalars s{static_cast<float>(alpha), static_cast<float>(beta), alpha, beta};
    const cublasHandle_t handle = cublas_handle(device);
    const int64_t item = c.itemsize();
    const char* pa = static_cast<const char*>(a.raw_data());
    const char* pb = static_cast<const char*>(b.raw_data());
    char* pc = static_cast<char*>(c.raw_data());
    if (batch == 1) {
        check_cublas(cublasGemmEx(handle, mb.op, ma.op, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k),
                                  s.alpha(t.double_scalars), pb, t.data, mb.ld, pa, t.data, ma.ld,
                                  s.beta(t.double_scalars), pc, t.data, mc.ld, t.compute, CUBLAS_GEMM_DEFAULT),
                     "cublasGemmEx");
        return;
    }
    for (int64_t start = 0; start < batch; start += kMaxBatchPerCall) {
        const int count = static_cast<int>(std::min(kMaxBatchPerCall, batch - start));
        check_cublas(cublasGemmStridedBatchedEx(handle, mb.op, ma.op, static_cast<int>(n), static_cast<int>(m),
                                                static_cast<int>(k), s.alpha(t.double_scalars),
                                                pb + start * mb.batch_stride * item, t.data, mb.ld, mb.batch_stride,
                                                pa + start * ma.batch_stride * item, t.data, ma.ld, ma.batch_stride,
                                                s.beta(t.double_scalars), pc + start * mc.batch_stride * item, t.data,
                                                mc.ld, mc.batch_stride, count, t.compute, CUBLAS_GEMM_DEFAULT),
                     "cublasGemmStridedBatchedEx");
    }
}

// c = alpha * a @ b + beta * c for logical (batch, m, k) a, (batch, k, n) b, (batch, m, n)
// c with m, n, k > 0 and a float dtype.
void blas_gemm(int device, Array a, Array b, Array c, double alpha, double beta) {
    const int64_t m = c.shape()[1], n = c.shape()[2], k = a.shape()[2];
    // Checked first: a contiguous temporary then always has a valid ld (no endless retry).
    RENSA_CHECK(fits_int(m) && fits_int(n) && fits_int(k), ValueError, "gemm: cuBLAS takes dimensions below 2^31, ",
                "got m=", m, ", n=", n, ", k=", k);
    std::optional<BlasMatrix> mc = blas_matrix(c, true);
    if (mc && mc->op == CUBLAS_OP_T) {  // column-major c: compute c^T = b^T @ a^T instead
        const Array at = a.swapaxes(1, 2);
        a = b.swapaxes(1, 2);
        b = at;
        c = c.swapaxes(1, 2);
        mc = blas_matrix(c, true);
    }
    if (!mc || mc->op != CUBLAS_OP_N) {  // compute into a contiguous temporary
        const Array tmp = Array::empty(c.shape(), c.dtype(), c.device());
        if (beta != 0.0) tmp.assign(c);
        blas_gemm(device, a, b, tmp, alpha, beta);
        c.assign(tmp);
        return;
    }
    if (!blas_matrix(a, false)) a = contiguous_operand(a);
    if (!blas_matrix(b, false)) b = contiguous_operand(b);
    call_cublas(device, a, *blas_matrix(a, false), b, *blas_matrix(b, false), c, *mc, alpha, beta);
}

}  // namespace

void CudaKernels::gemm(const GemmArgs& args) {
    DeviceGuard guard{device_};
    const Array a = args.trans_a ? args.a.swapaxes(1, 2) : args.a;
    const Array b = args.trans_b ? args.b.swapaxes(1, 2) : args.b;
    const Array& c = args.out;
    if (c.size() == 0) return;
    // k == 0 (c = beta * c) runs the plain kernel too: it reads neither a nor b.
    if (is_blas_dtype(c.dtype()) && a.shape()[2] > 0) {
        blas_gemm(device_, a, b, c, args.alpha, args.beta);
    } else {
        loop_gemm(device_, a, b, c, args.alpha, args.beta);
    }
}

}  // namespace rensa::cuda
