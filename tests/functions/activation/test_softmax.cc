// softmax and log_softmax (F::): forward against float64 references over axes,
// gradients, double backprop, errors.

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "core/ops/creation.h"
#include "functions/activation.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// Softmax of x (float64, contiguous) along `axis`, by plain loops.
Array softmax_ref(const Array& x, int axis, bool log) {
    const Shape& shape = x.shape();
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= shape[d];
    for (int d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
    const int64_t n = shape[axis];
    const std::vector<double> v = to_doubles(x);
    std::vector<double> y(v.size());
    for (int64_t o = 0; o < outer; ++o) {
        for (int64_t k = 0; k < inner; ++k) {
            const auto at = [&](int64_t i) { return static_cast<size_t>((o * n + i) * inner + k); };
            double m = -std::numeric_limits<double>::infinity(), s = 0;
            for (int64_t i = 0; i < n; ++i) m = std::max(m, v[at(i)]);
            for (int64_t i = 0; i < n; ++i) s += std::exp(v[at(i)] - m);
            for (int64_t i = 0; i < n; ++i) y[at(i)] = log ? v[at(i)] - m - std::log(s) : std::exp(v[at(i)] - m) / s;
        }
    }
    return f64(y, shape);
}

}  // namespace

TEST_CASE("softmax", "[functions][activation]") {
    for (const auto& [shape, axis] :
         {std::pair{Shape{3, 4}, 1}, std::pair{Shape{2, 3, 4}, 1}, std::pair{Shape{2, 3, 4}, -1},
          std::pair{Shape{4, 2}, 0}, std::pair{Shape{5}, 0}}) {
        const int ax = axis < 0 ? axis + shape.size() : axis;
        check_function({
            .name = "softmax",
            .inputs = {{.shape = shape, .low = -2, .high = 2}},
            .func = [axis](const Vars& xs) { return Vars{F::softmax(xs[0], axis)}; },
            .reference = [ax](const Arrays& xs) { return Arrays{softmax_ref(xs[0], ax, false)}; },
        });
    }
    CHECK(F::softmax(Variable(ops::zeros({0, 3})), 1).shape() == Shape{0, 3});
}

TEST_CASE("log_softmax", "[functions][activation]") {
    for (const auto& [shape, axis] :
         {std::pair{Shape{3, 4}, 1}, std::pair{Shape{2, 3, 2}, 1}, std::pair{Shape{4, 2}, 0}}) {
        check_function({
            .name = "log_softmax",
            .inputs = {{.shape = shape, .low = -2, .high = 2}},
            .func = [axis](const Vars& xs) { return Vars{F::log_softmax(xs[0], axis)}; },
            .reference = [axis](const Arrays& xs) { return Arrays{softmax_ref(xs[0], axis, true)}; },
        });
    }
}

TEST_CASE("softmax, log_softmax: errors", "[functions][activation]") {
    const Variable x(ops::zeros({2, 3}));
    CHECK_THROWS_AS(F::softmax(x, 2), DimensionError);
    CHECK_THROWS_AS(F::log_softmax(x, -3), DimensionError);
    CHECK_THROWS_AS(F::softmax(Variable(ops::zeros({}))), DimensionError);
    CHECK_THROWS_WITH(F::softmax(Variable(ops::zeros({2, 3}, Dtype::kInt32))), Catch::Contains("softmax"));
}
