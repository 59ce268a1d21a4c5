// The CUDA batch normalization kernels against the native backend: batch statistics
// (compute_stats), given statistics (fixed_batch_norm) and the backward pass, every float
// dtype, channels of one element and of many (> 65536), many channels, empty batches and
// non-contiguous inputs.

#include <catch2/catch.hpp>
#include <vector>

#include "core/ops/elementwise.h"
#include "core/ops/normalization.h"
#include "tests/cuda/cuda_testing.h"

namespace rensa::testing {
namespace {

struct Case {
    Shape x_shape;
    Axes axes;
    Shape param_shape;
};

// (n, c, s) with s = 1, s small, s large (> 65536 per channel), many channels, 4-d, 2-d,
// one element, axes that are not adjacent (the ops transpose before the kernel).
const std::vector<Case>& cases() {
    static const std::vector<Case> all = {
        {{4, 3, 1}, {0, 2}, {3}},     {{2, 5, 7}, {0, 2}, {5}},       {{3, 2, 40001}, {0, 2}, {2}},
        {{5, 300, 3}, {0, 2}, {300}}, {{2, 3, 4, 5}, {0, 2, 3}, {3}}, {{9, 7}, {0}, {7}},
        {{1, 1, 1}, {0, 2}, {1}},     {{2, 3, 4, 5}, {0, 2}, {3, 5}}, {{70000, 2}, {0}, {2}},
    };
    return all;
}

// Sums over many elements: float32 rounds in another order than the CPU.
Tolerance tol_for(Dtype dtype) { return dtype == Dtype::kFloat32 ? Tolerance{1e-4, 1e-4} : tolerance(dtype); }

}  // namespace

TEST_CASE("cuda: batch_norm with batch statistics matches native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    uint64_t seed = 1;
    for (const Dtype dtype : kCudaFloatDtypes) {
        for (const Case& c : cases()) {
            INFO("dtype " << dtype_name(dtype) << ", shape " << c.x_shape);
            const Array x = random_array(c.x_shape, dtype, seed++);
            const Array gamma = random_array(c.param_shape, dtype, seed++);
            const Array beta = random_array(c.param_shape, dtype, seed++);
            auto fn = [&](const std::vector<Array>& v) {
                const ops::BatchNormResult r = ops::batch_norm(v[0], v[1], v[2], c.axes, 2e-5);
                return std::vector<Array>{r.y, r.mean, r.inv_std};
            };
            check_matches_native(fn, {x, gamma, beta}, Layout::kContiguous, tol_for(dtype));
            check_matches_native(fn, {x, gamma, beta}, Layout::kStrided, tol_for(dtype));
        }
    }
}

TEST_CASE("cuda: batch_norm with a constant channel and a large mean stays accurate", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    for (const Dtype dtype : {Dtype::kFloat32, Dtype::kFloat64}) {
        const Array x = ops::add(random_array({64, 3, 50}, dtype, 7, 0.5, 1.0), Scalar(1000.0));
        const Array gamma = random_array({3}, dtype, 8);
        const Array beta = random_array({3}, dtype, 9);
        check_matches_native(
            [](const std::vector<Array>& v) {
                const ops::BatchNormResult r = ops::batch_norm(v[0], v[1], v[2], {0, 2}, 1e-5);
                return std::vector<Array>{r.y, r.mean, r.inv_std};
            },
            {x, gamma, beta}, Layout::kContiguous, Tolerance{1e-3, 1e-3});
    }
}

TEST_CASE("cuda: fixed_batch_norm (given statistics) matches native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    uint64_t seed = 100;
    for (const Dtype dtype : kCudaFloatDtypes) {
        for (const Case& c : cases()) {
            INFO("dtype " << dtype_name(dtype) << ", shape " << c.x_shape);
            const Array x = random_array(c.x_shape, dtype, seed++);
            const Array gamma = random_array(c.param_shape, dtype, seed++);
            const Array beta = random_array(c.param_shape, dtype, seed++);
            const Array mean = random_array(c.param_shape, dtype, seed++);
            const Array var = random_array(c.param_shape, dtype, seed++, 0.1, 2.0);
            for (const Layout layout : {Layout::kContiguous, Layout::kTransposed}) {
                check_matches_native(
                    [&](const std::vector<Array>& v) {
                        return std::vector<Array>{ops::fixed_batch_norm(v[0], v[1], v[2], v[3], v[4], c.axes, 1e-3)};
                    },
                    {x, gamma, beta, mean, var}, layout, tol_for(dtype));
            }
        }
    }
}

TEST_CASE("cuda: batch_norm_backward matches native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    uint64_t seed = 200;
    for (const Dtype dtype : kCudaFloatDtypes) {
        for (const Case& c : cases()) {
            INFO("dtype " << dtype_name(dtype) << ", shape " << c.x_shape);
            const Array x = random_array(c.x_shape, dtype, seed++);
            const Array gamma = random_array(c.param_shape, dtype, seed++);
            const Array gy = random_array(c.x_shape, dtype, seed++);
            // The statistics come from the native forward, so only the backward kernel differs.
            const ops::BatchNormResult r = ops::batch_norm(x, gamma, gamma, c.axes, 2e-5);
            auto fn = [&](const std::vector<Array>& v) {
                const ops::BatchNormGrads g = ops::batch_norm_backward(v[0], v[1], v[2], v[3], v[4], c.axes);
                return std::vector<Array>{g.gx, g.ggamma, g.gbeta};
            };
            check_matches_native(fn, {x, gamma, r.mean, r.inv_std, gy}, Layout::kContiguous, tol_for(dtype));
            check_matches_native(fn, {x, gamma, r.mean, r.inv_std, gy}, Layout::kStrided, tol_for(dtype));
        }
    }
}

TEST_CASE("cuda: batch_norm on an empty batch matches native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    for (const Dtype dtype : kCudaFloatDtypes) {
        const Array x = random_array({0, 3, 4}, dtype, 1);
        const Array gamma = random_array({3}, dtype, 2);
        const Array beta = random_array({3}, dtype, 3);
        check_matches_native(
            [](const std::vector<Array>& v) {
                const ops::BatchNormResult r = ops::batch_norm(v[0], v[1], v[2], {0, 2}, 2e-5);
                return std::vector<Array>{r.y, r.mean, r.inv_std};
            },
            {x, gamma, beta});
        check_matches_native(
            [](const std::vector<Array>& v) {
                const ops::BatchNormGrads g = ops::batch_norm_backward(v[0], v[1], v[1], ops::abs(v[1]), v[2], {0, 2});
                return std::vector<Array>{g.gx, g.ggamma, g.gbeta};
            },
            {x, gamma, random_array({0, 3, 4}, dtype, 4)});
    }
}

}  // namespace rensa::testing
