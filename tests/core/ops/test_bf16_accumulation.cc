// bfloat16 through the native kernels the MLP and CNN training steps use (sum and mean,
// softmax and log_softmax on each kernel path, batch normalization forward and backward):
// each must compute in float32 (or wider) and round once into bfloat16, so it stays within
// one bfloat16 rounding (2^-8 relative: an 8-bit significand) of float32 on the same
// bf16-rounded inputs. A kernel that accumulated in bfloat16 stops counting at 256 (sums of
// ones, the exps of a constant row) or drifts by about 2^-8 * sqrt(n) of its sums.

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "core/ops/creation.h"
#include "core/ops/normalization.h"
#include "core/ops/reduction.h"
#include "core/ops/softmax.h"
#include "tests/testing/testing.h"

using namespace rensa;

namespace {

// Deterministic values offset + scale * [-1, 1), rounded to bfloat16.
Array bf16_values(const Shape& shape, double offset, double scale, int seed) {
    std::vector<double> v(static_cast<size_t>(shape_size(shape)));
    for (size_t i = 0; i < v.size(); ++i) v[i] = offset + scale * (std::fmod((i + seed) * 0.618033988749, 1.0) * 2 - 1);
    return testing::make_array(v, shape, Dtype::kBFloat16);
}

// actual (bfloat16) against expected (float32 of the same inputs) within one bfloat16 rounding
// plus `slack` for float32's own error.
void check_one_rounding(const Array& actual, const Array& expected, double slack) {
    REQUIRE(actual.dtype() == Dtype::kBFloat16);
    REQUIRE(actual.shape() == expected.shape());
    const std::vector<double> a = testing::to_doubles(actual), e = testing::to_doubles(expected);
    int64_t bad = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        if (std::abs(a[i] - e[i]) > std::ldexp(std::abs(e[i]), -8) + slack) {
            if (bad++ < 3) FAIL_CHECK("element " << i << ": " << a[i] << ", float32 gives " << e[i]);
        }
    }
    CHECK(bad == 0);
}

}  // namespace

TEST_CASE("bf16 accumulation: sum and mean", "[core][ops][bf16]") {
    CHECK(ops::sum(ops::ones({4096}, Dtype::kBFloat16)).item<double>() == 4096.0);
    const Array rows = ops::sum(ops::ones({3, 4096}, Dtype::kBFloat16), Axes{1});
    const Array cols = ops::sum(ops::ones({4096, 3}, Dtype::kBFloat16), Axes{0});
    CHECK(testing::to_doubles(rows) == std::vector<double>{4096.0, 4096.0, 4096.0});
    CHECK(testing::to_doubles(cols) == std::vector<double>{4096.0, 4096.0, 4096.0});
    // The sum kernel folds 32 lanes pairwise in blocks of 2048, so
    // even bfloat16 accumulators would get sums of ones (and of 1 + 2^-7) right. 10000 copies
    // of bfloat16's 0.1 (0.10009765625) sum to 1000.98, whose bfloat16 is 1000; bfloat16 lanes
    // and blocks (simulated) give 960, a plain bfloat16 running sum stalls at 32.
    const Array tenth = ops::full({10000}, 0.1, Dtype::kBFloat16);
    CHECK(ops::sum(tenth).item<double>() == 1000.0);
    CHECK(testing::to_doubles(ops::sum(ops::full({10000, 3}, 0.1, Dtype::kBFloat16), Axes{0})) ==
          std::vector<double>{1000.0, 1000.0, 1000.0});
    CHECK(ops::mean(tenth).item<double>() == 0.10009765625);
    const Array y = bf16_values({64, 2000}, 3.0, 1.0, 1);
    check_one_rounding(ops::sum(y, Axes{1}), ops::sum(y.astype(Dtype::kFloat32), Axes{1}), 1e-3);
    check_one_rounding(ops::mean(y, Axes{0}), ops::mean(y.astype(Dtype::kFloat32), Axes{0}), 1e-6);
}

TEST_CASE("bf16 accumulation: softmax and log_softmax on every path", "[core][ops][bf16]") {
    // long rows (the lanes path), short rows (10 classes), columns (softmax over channels)
    const std::vector<std::pair<Shape, int>> cases{{{4, 4096}, 1}, {{100, 10}, 1}, {{2, 1000, 16}, 1}};
    for (const auto& [shape, axis] : cases) {
        for (const double scale : {0.0, 4.0}) {  // 0: a constant row, every exp 1
            CAPTURE(shape, axis, scale);
            const Array x = bf16_values(shape, 0.5, scale, 2);
            const Array x32 = x.astype(Dtype::kFloat32);
            check_one_rounding(ops::softmax(x, axis), ops::softmax(x32, axis), 1e-9);
            check_one_rounding(ops::log_softmax(x, axis), ops::log_softmax(x32, axis), 1e-5);
        }
    }
}

TEST_CASE("bf16 accumulation: batch normalization forward and backward", "[core][ops][bf16]") {
    const Array x = bf16_values({64, 3, 8, 8}, 5.0, 2.0, 3), gy = bf16_values({64, 3, 8, 8}, 0.25, 1.0, 4);
    const Array gamma = ops::full({3}, 1.5, Dtype::kFloat32), beta = ops::full({3}, -0.5, Dtype::kFloat32);
    const Axes axes{0, 2, 3};
    const ops::BatchNormResult r = ops::batch_norm(x, gamma, beta, axes, 2e-5);
    const ops::BatchNormResult r32 = ops::batch_norm(x.astype(Dtype::kFloat32), gamma, beta, axes, 2e-5);
    check_one_rounding(r.y, r32.y, 1e-4);
    testing::check_allclose(r.mean, r32.mean, {1e-6, 1e-6});
    testing::check_allclose(r.inv_std, r32.inv_std, {1e-5, 1e-6});
    const ops::BatchNormGrads g = ops::batch_norm_backward(x, gamma, r.mean, r.inv_std, gy, axes);
    const ops::BatchNormGrads g32 = ops::batch_norm_backward(x.astype(Dtype::kFloat32), gamma, r32.mean, r32.inv_std,
                                                             gy.astype(Dtype::kFloat32), axes);
    check_one_rounding(g.gx, g32.gx, 1e-4);
    testing::check_allclose(g.ggamma, g32.ggamma, {1e-4, 1e-4});
    testing::check_allclose(g.gbeta, g32.gbeta, {1e-4, 1e-4});
}
