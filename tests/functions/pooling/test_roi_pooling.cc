// roi_pooling_2d, roi_max_pooling_2d, roi_average_pooling_2d, roi_max_align_2d and
// roi_average_align_2d against Chainer 7.8.1's CPU formulas (roi_reference.h): forward,
// gradients (single backprop only, as in Chainer), empty bins and errors.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "autograd/grad.h"
#include "core/ops/creation.h"
#include "functions/math.h"
#include "functions/pooling.h"
#include "tests/functions/pooling/roi_reference.h"
#include "tests/testing/function_check.h"
#include "tests/testing/testing.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

constexpr int64_t kN = 2, kC = 2, kH = 6, kW = 7;

// Corners (y_min, x_min, y_max, x_max) in the input's scale before spatial_scale 0.5: exact
// halves after scaling (half to even), a roi partly outside x and a malformed one.
const std::vector<double> kPoolRois{0, 0, 10, 12, 3, 5, 9, 11, -2, 4, 13, 15, 8, 9, 7, 3};
// Real corners for the align modes (spatial_scale 0.5), one partly outside and one malformed.
const std::vector<double> kAlignRois{0.5, 1.25, 9.5, 11.75, 3, 2, 6.5, 13, -3, 6.5, 13.5, 16, 8, 9, 7.5, 3};
const std::vector<double> kBatch{0, 1, 1, 0};

ValueGenerator fixed(std::vector<double> v) {
    return [v](int64_t, uint64_t) { return v; };
}

roi::Rois rois_of(const Array& rois, const std::vector<double>& batch) {
    roi::Rois r{to_doubles(rois), {}};
    for (double b : batch) r.batch.push_back(static_cast<int64_t>(b));
    return r;
}

void check_roi(const char* name, roi::Kind kind, const std::vector<double>& rois, int64_t out_h, int64_t out_w,
               const std::function<Variable(const Vars&)>& fn, std::optional<int64_t> ratio_h = {},
               std::optional<int64_t> ratio_w = {}) {
    const roi::Sizes s{kN, kC, kH, kW, out_h, out_w};
    check_function({
        .name = name,
        .inputs = {{.shape = {kN, kC, kH, kW}, .values = distinct(-3.0, 3.0)},
                   {.shape = {4, 4}, .values = fixed(rois), .differentiable = false},
                   {.shape = {4}, .values = fixed(kBatch), .dtype = Dtype::kInt32}},
        .func = [fn](const Vars& xs) { return Vars{fn(xs)}; },
        .reference =
            [=](const Arrays& xs) {
                const std::vector<double> y =
                    roi::forward(kind, to_doubles(xs[0]), s, rois_of(xs[1], kBatch), 0.5, ratio_h, ratio_w);
                return Arrays{f64(y, {4, kC, out_h, out_w})};
            },
        .double_backward = false,  // Chainer's roi functions are single-backprop
    });
}

}  // namespace

TEST_CASE("roi_pooling_2d", "[functions][pooling][roi]") {
    // (batch, x_min, y_min, x_max, y_max) rows with the corners of kPoolRois, the malformed one
    // replaced: roi_pooling_2d passes no gradient back through a malformed roi (as Chainer),
    // which a numerical gradient would see; the next case checks that.
    std::vector<double> corners = kPoolRois;
    std::copy_n(std::vector<double>{8, 3, 11, 9}.begin(), 4, corners.begin() + 12);
    std::vector<double> rows;
    for (size_t r = 0; r < 4; ++r) {
        rows.insert(rows.end(),
                    {kBatch[r], corners[r * 4 + 1], corners[r * 4], corners[r * 4 + 3], corners[r * 4 + 2]});
    }
    const roi::Sizes s{kN, kC, kH, kW, 3, 2};
    check_function({
        .name = "roi_pooling_2d",
        .inputs = {{.shape = {kN, kC, kH, kW}, .values = distinct(-3.0, 3.0)},
                   {.shape = {4, 5}, .values = fixed(rows), .differentiable = false}},
        .func = [](const Vars& xs) { return Vars{F::roi_pooling_2d(xs[0], xs[1], 3, 2, 0.5)}; },
        .reference =
            [=](const Arrays& xs) {
                const std::vector<double> y =
                    roi::forward(roi::Kind::kLegacy, to_doubles(xs[0]), s, roi::legacy_rois(to_doubles(xs[1])), 0.5);
                return Arrays{f64(y, {4, kC, 3, 2})};
            },
        .double_backward = false,
    });
}

TEST_CASE("roi_max_pooling_2d and roi_average_pooling_2d", "[functions][pooling][roi]") {
    check_roi("roi_max_pooling_2d", roi::Kind::kMax, kPoolRois, 3, 2, [](const Vars& xs) {
        return F::roi_max_pooling_2d(xs[0], xs[1], xs[2], {3, 2}, 0.5);
    });
    check_roi("roi_average_pooling_2d", roi::Kind::kAverage, kPoolRois, 2, 2,
              [](const Vars& xs) { return F::roi_average_pooling_2d(xs[0], xs[1], xs[2], 2, 0.5); });
}

TEST_CASE("roi_max_align_2d and roi_average_align_2d", "[functions][pooling][roi]") {
    check_roi("roi_average_align_2d", roi::Kind::kAverageAlign, kAlignRois, 2, 3, [](const Vars& xs) {
        return F::roi_average_align_2d(xs[0], xs[1], xs[2], {2, 3}, 0.5);
    });
    check_roi(
        "roi_average_align_2d sampling_ratio (2, None)", roi::Kind::kAverageAlign, kAlignRois, 2, 2,
        [](const Vars& xs) {
            return F::roi_average_align_2d(xs[0], xs[1], xs[2], 2, 0.5, {2, std::nullopt});
        },
        2);
    check_roi("roi_max_align_2d", roi::Kind::kMaxAlign, kAlignRois, 2, 3, [](const Vars& xs) {
        return F::roi_max_align_2d(xs[0], xs[1], xs[2], {2, 3}, 0.5);
    });
    check_roi(
        "roi_max_align_2d sampling_ratio 2", roi::Kind::kMaxAlign, kAlignRois, 2, 2,
        [](const Vars& xs) {
            return F::roi_max_align_2d(xs[0], xs[1], xs[2], 2, 0.5, {2, 2});
        },
        2, 2);
}

TEST_CASE("roi functions: empty bins", "[functions][pooling][roi]") {
    // A roi entirely below and right of x: every bin is empty (0, or -inf for the max).
    const Variable x(ops::ones({1, 1, 4, 4}), true);
    const Variable rois(Array::from_vector(std::vector<float>{10, 10, 20, 20}, {1, 4}));
    const Variable idx(Array::from_vector(std::vector<int32_t>{0}, {1}));
    const Variable ymax = F::roi_max_pooling_2d(x, rois, idx, 2, 1.0);
    for (double v : to_doubles(ymax.array())) CHECK(std::isinf(v));
    for (double v : to_doubles(F::roi_average_pooling_2d(x, rois, idx, 2, 1.0).array())) CHECK(v == 0.0);
    const Variable legacy(Array::from_vector(std::vector<float>{0, 10, 10, 20, 20}, {1, 5}));
    for (double v : to_doubles(F::roi_pooling_2d(x, legacy, 2, 2, 1.0).array())) CHECK(v == 0.0);
    // Samples beyond size + 1 are skipped: the max align is -inf, the average 0.
    const Variable far(Array::from_vector(std::vector<float>{30, 30, 40, 40}, {1, 4}));
    for (double v : to_doubles(F::roi_max_align_2d(x, far, idx, 2, 1.0).array())) CHECK(std::isinf(v));
    for (double v : to_doubles(F::roi_average_align_2d(x, far, idx, 2, 1.0).array())) CHECK(v == 0.0);
    // No gradient flows from empty bins.
    F::sum(ymax * 0.0).backward();
    for (double g : to_doubles(x.grad())) CHECK(g == 0.0);
}

TEST_CASE("roi_pooling_2d: a malformed roi passes no gradient", "[functions][pooling][roi]") {
    // x_max < x_min after rounding: the roi still pools its 1 x 1 fallback forward.
    const Variable x(Array::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 1, 3, 3}), true);
    const Variable rois(Array::from_vector(std::vector<float>{0, 2, 0, 1, 0, 0, 0, 0, 2, 2}, {2, 5}));
    const Variable y = F::roi_pooling_2d(x, rois, 1, 1, 1.0);
    CHECK(to_doubles(y.array()) == std::vector<double>{3, 9});
    F::sum(y).backward();
    CHECK(to_doubles(x.grad()) == std::vector<double>{0, 0, 0, 0, 0, 0, 0, 0, 1});
}

TEST_CASE("roi functions: errors", "[functions][pooling][roi]") {
    const Variable x(ops::zeros({2, 3, 4, 4}));
    const Variable rois(ops::zeros({3, 4}));
    const Variable idx(Array::from_vector(std::vector<int32_t>{0, 1, 1}, {3}));
    CHECK_THROWS_WITH(F::roi_max_pooling_2d(Variable(ops::zeros({2, 3, 4})), rois, idx, 2, 1.0),
                      Catch::Contains("roi_max_pooling_2d: Expect: x.ndim == 4, Actual: 3"));
    CHECK_THROWS_AS(F::roi_max_pooling_2d(Variable(ops::zeros({2, 3, 4, 4}, Dtype::kInt32)), rois, idx, 2, 1.0),
                    DtypeError);
    CHECK_THROWS_WITH(F::roi_average_pooling_2d(x, Variable(ops::zeros({3, 4}, Dtype::kInt32)), idx, 2, 1.0),
                      Catch::Contains("roi_average_pooling_2d: Expect: rois.dtype.kind == 'f', Actual: int32"));
    CHECK_THROWS_WITH(F::roi_max_align_2d(x, Variable(ops::zeros({3, 5})), idx, 2, 1.0),
                      Catch::Contains("roi_max_align_2d: Expect: rois.shape == (R, 4), Actual: (3, 5)"));
    CHECK_THROWS_WITH(F::roi_pooling_2d(x, rois, 2, 2, 1.0),
                      Catch::Contains("roi_pooling_2d: Expect: rois.shape == (R, 5), Actual: (3, 4)"));
    CHECK_THROWS_WITH(F::roi_average_align_2d(x, rois, Variable(ops::zeros({3}, Dtype::kInt64)), 2, 1.0),
                      Catch::Contains("roi_average_align_2d: Expect: roi_indices.dtype == int32, Actual: int64"));
    CHECK_THROWS_WITH(F::roi_max_pooling_2d(x, rois, Variable(ops::zeros({2}, Dtype::kInt32)), 2, 1.0),
                      Catch::Contains("Expect: rois.shape[0] == roi_indices.shape[0], Actual: 3 != 2"));
    const Variable bad(Array::from_vector(std::vector<int32_t>{0, 2, 1}, {3}));
    CHECK_THROWS_WITH(F::roi_max_pooling_2d(x, rois, bad, 2, 1.0),
                      Catch::Contains("roi_max_pooling_2d: roi 1 has batch index 2, out of bounds"));
    CHECK_THROWS_AS(
        F::roi_max_pooling_2d(x, rois, Variable(Array::from_vector(std::vector<int32_t>{0, -1, 1}, {3})), 2, 1.0),
        IndexError);
    const Variable legacy(Array::from_vector(std::vector<float>{3, 0, 0, 1, 1}, {1, 5}));
    CHECK_THROWS_AS(F::roi_pooling_2d(x, legacy, 2, 2, 1.0), IndexError);
    CHECK_THROWS_WITH(F::roi_max_pooling_2d(x, rois, idx, {0, 2}, 1.0),
                      Catch::Contains("roi_max_pooling_2d: Expect: outsize > 0"));
    CHECK_THROWS_WITH(F::roi_average_pooling_2d(x, rois, idx, 2, 0.0),
                      Catch::Contains("roi_average_pooling_2d: Expect: spatial_scale > 0, Actual: 0"));
    CHECK_THROWS_WITH(F::roi_max_align_2d(x, rois, idx, 2, 1.0, {0, 2}),
                      Catch::Contains("roi_max_align_2d: Expect: sampling_ratio >= 1 or None, Actual: 0"));
    CHECK_THROWS_AS(F::roi_max_align_2d(x, rois, idx, {1, 2, 3}, 1.0), ValueError);
    // Chainer's roi functions are single-backprop.
    const Variable xg(ops::ones({2, 3, 4, 4}), true);
    const Variable y = F::roi_average_align_2d(xg, rois, idx, 2, 1.0);
    const Variable gy(ops::ones_like(y.array()), true);
    const Variable gx = grad({y}, {xg}, {gy}, {.enable_double_backprop = true})[0];
    CHECK_THROWS_WITH(grad({F::sum(gx)}, {gy}),
                      Catch::Contains("roi_average_align_2d: double backprop is not supported"));
}
