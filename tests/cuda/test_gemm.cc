// cuBLAS gemm (and the plain kernel for integers, bool and k == 0) against the native
// backend: every dtype, transposes, broadcast batches, non-contiguous operands and
// outputs, alpha/beta, empty dims and a batch over cuBLAS's 65535 grid limit.

#include <catch2/catch.hpp>
#include <utility>
#include <vector>

#include "core/backend.h"
#include "core/ops/linalg.h"
#include "cuda/handles.h"
#include "tests/cuda/cuda_testing.h"

namespace rensa::testing {
namespace {

// Floats in [-2, 2), integers in [1, 5) (uint8 holds them), bools random.
Array operand(const Shape& shape, Dtype dtype, uint64_t seed) {
    return is_float(dtype) ? random_array(shape, dtype, seed) : random_array(shape, dtype, seed, 1.0, 5.0);
}

std::vector<Array> matmul_fn(const std::vector<Array>& in) { return {ops::matmul(in[0], in[1])}; }

using ShapePair = std::pair<Shape, Shape>;

const std::vector<ShapePair> kMatmulShapes = {
    {{3, 5}, {5, 7}}, {{1, 1}, {1, 1}}, {{17, 33}, {33, 9}},    {{4, 3, 6}, {4, 6, 5}}, {{2, 1, 3, 4}, {5, 4, 2}},
    {{7}, {7, 3}},    {{6, 7}, {7}},    {{1, 6, 7}, {3, 7, 2}}, {{65, 129}, {129, 31}},
};

TEST_CASE("cuda: cuBLAS never reduces half and bfloat16 GEMMs in their own dtype", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    for (const bool tf32 : {false, true}) {
        const bool before = cuda::allow_tf32();
        cuda::set_allow_tf32(tf32);
        cublasMath_t mode{};
        REQUIRE(cublasGetMathMode(cuda::cublas_handle(0), &mode) == CUBLAS_STATUS_SUCCESS);
        cuda::set_allow_tf32(before);
        CHECK((mode & CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION) != 0);
        CHECK((mode & CUBLAS_TF32_TENSOR_OP_MATH) == (tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : 0));
    }
}

TEST_CASE("cuda: matmul matches native for every dtype and layout", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    for (Dtype dtype : kCudaAllDtypes) {
        for (Layout layout : kAllLayouts) {
            for (const auto& [sa, sb] : kMatmulShapes) {
                INFO("dtype " << dtype_name(dtype) << ", shapes " << sa << " @ " << sb);
                check_matches_native(matmul_fn, {operand(sa, dtype, 1), operand(sb, dtype, 2)}, layout,
                                     product_tolerance(dtype));
            }
        }
    }
}

TEST_CASE("cuda: matmul with empty dims matches native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    const std::vector<ShapePair> shapes = {
        {{0, 4}, {4, 3}}, {{3, 0}, {0, 4}}, {{2, 3, 0}, {2, 0, 5}}, {{0, 2, 3}, {0, 3, 4}}};
    for (Dtype dtype : kCudaAllDtypes) {
        for (const auto& [sa, sb] : shapes) {
            INFO("dtype " << dtype_name(dtype) << ", shapes " << sa << " @ " << sb);
            check_matches_native(matmul_fn, {operand(sa, dtype, 3), operand(sb, dtype, 4)}, Layout::kContiguous,
                                 product_tolerance(dtype));
        }
    }
}

TEST_CASE("cuda: batch_matmul transposes and broadcast batches match native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    const int64_t m = 5, k = 9, n = 3;
    for (Dtype dtype : kCudaAllDtypes) {
        for (const bool ta : {false, true}) {
            for (const bool tb : {false, true}) {
                for (const auto& [batch_a, batch_b] : {std::pair<int64_t, int64_t>{4, 4}, {1, 4}, {4, 1}}) {
                    const Shape sa = ta ? Shape{batch_a, k, m} : Shape{batch_a, m, k};
                    const Shape sb = tb ? Shape{batch_b, n, k} : Shape{batch_b, k, n};
                    INFO("dtype " << dtype_name(dtype) << ", trans " << ta << tb << ", batches " << batch_a << ", "
                                  << batch_b);
                    check_matches_native(
                        [ta, tb](const std::vector<Array>& in) {
                            return std::vector<Array>{ops::batch_matmul(in[0], in[1], ta, tb)};
                        },
                        {operand(sa, dtype, 5), operand(sb, dtype, 6)}, Layout::kStrided, product_tolerance(dtype));
                }
            }
        }
    }
}

TEST_CASE("cuda: matmul of sliced operands (leading dimension over the extent) matches native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    for (Dtype dtype : kCudaFloatDtypes) {
        INFO("dtype " << dtype_name(dtype));
        const auto fn = [](const std::vector<Array>& in) {
            const Array a = in[0].index({Slice{}, Slice{0, 5}, Slice{1, 10}});  // (3, 5, 9), row stride 11
            const Array b = in[1].index({Slice{}, Slice{}, Slice{2, 7}});       // (3, 9, 5), row stride 8
            // Row-major views, then their column-major transposes read in place.
            return std::vector<Array>{ops::matmul(a, b), ops::matmul(b.swapaxes(1, 2), a.swapaxes(1, 2))};
        };
        check_matches_native(fn, {random_array({3, 6, 11}, dtype, 21), random_array({3, 9, 8}, dtype, 22)},
                             Layout::kContiguous, product_tolerance(dtype));
    }
}

TEST_CASE("cuda: batch_matmul over 65535 batches matches native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    for (Dtype dtype : {Dtype::kFloat32, Dtype::kFloat16, Dtype::kInt32}) {
        INFO("dtype " << dtype_name(dtype));
        const auto fn = [](const std::vector<Array>& in) {
            return std::vector<Array>{ops::batch_matmul(in[0], in[1], false, true)};
        };
        check_matches_native(fn, {operand({70001, 2, 3}, dtype, 7), operand({70001, 4, 3}, dtype, 8)},
                             Layout::kContiguous, product_tolerance(dtype));
    }
}

// The output of the CUDA call in a layout of its own: contiguous, column-major matrices
// (cuBLAS computes the transpose), every other element, or the reversed-axes view.
enum class OutLayout { kContiguous, kColumnMajor, kStrided, kTransposed };

Array cuda_output(const Array& values, OutLayout layout) {
    const Shape& s = values.shape();
    Array out;
    switch (layout) {
        case OutLayout::kContiguous:
            return to_cuda(values);
        case OutLayout::kColumnMajor:
            out = Array::empty({s[0], s[2], s[1]}, values.dtype(), cuda0()).swapaxes(1, 2);
            break;
        case OutLayout::kStrided:
            return to_cuda(values, Layout::kStrided);
        case OutLayout::kTransposed:
            return to_cuda(values, Layout::kTransposed);
    }
    out.assign(to_cuda(values));
    return out;
}

// kernels.gemm with alpha and beta on both devices, from the same values.
void check_gemm(Dtype dtype, int64_t batch, int64_t m, int64_t k, int64_t n, bool ta, bool tb, double alpha,
                double beta, OutLayout out_layout) {
    const Array a = operand(ta ? Shape{batch, k, m} : Shape{batch, m, k}, dtype, 11);
    const Array b = operand(tb ? Shape{batch, n, k} : Shape{batch, k, n}, dtype, 12);
    const Array c = operand({batch, m, n}, dtype, 13);
    const Array expected = c.copy();
    global_context()
        .kernels(Device::native())
        .gemm({.a = a, .b = b, .out = expected, .trans_a = ta, .trans_b = tb, .alpha = alpha, .beta = beta});
    const Array actual = cuda_output(c, out_layout);
    global_context().kernels(cuda0()).gemm({.a = to_cuda(a, a.size() == 0 ? Layout::kContiguous : Layout::kStrided),
                                            .b = to_cuda(b),
                                            .out = actual,
                                            .trans_a = ta,
                                            .trans_b = tb,
                                            .alpha = alpha,
                                            .beta = beta});
    check_allclose(actual, expected, product_tolerance(dtype));
}

TEST_CASE("cuda: gemm alpha, beta and output layouts match native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    for (Dtype dtype : kCudaAllDtypes) {
        for (const OutLayout out :
             {OutLayout::kContiguous, OutLayout::kColumnMajor, OutLayout::kStrided, OutLayout::kTransposed}) {
            for (const auto& [alpha, beta] : {std::pair<double, double>{1.0, 0.0}, {2.0, -1.0}, {1.5, 0.5}}) {
                for (const bool ta : {false, true}) {
                    INFO("dtype " << dtype_name(dtype) << ", out layout " << static_cast<int>(out) << ", alpha "
                                  << alpha << ", beta " << beta << ", trans_a " << ta);
                    check_gemm(dtype, 3, 7, 5, 6, ta, !ta, alpha, beta, out);
                    check_gemm(dtype, 1, 1, 4, 9, ta, ta, alpha, beta, out);
                    check_gemm(dtype, 2, 3, 0, 4, ta, false, alpha, beta, out);  // k == 0: c = beta * c
                }
            }
        }
    }
}

}  // namespace
}  // namespace rensa::testing
