// lstm: both outputs against a float64 reference of Chainer's cell (gates a, i, f, o
// interleaved along axis 1), gradients, double backprop, shrinking batches, errors.

#include <catch2/catch.hpp>
#include <cmath>

#include "autograd/basic_math.h"
#include "core/ops/creation.h"
#include "functions/activation.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

double sigmoid_ref(double v) { return 1 / (1 + std::exp(-v)); }

// c_prev (rows, units, *rest), x (batch, 4 * units, *rest) -> {c (rows, ...), h (batch, ...)}.
Arrays lstm_ref(const Array& c_prev, const Array& x) {
    const std::vector<double> cp = to_doubles(c_prev), xv = to_doubles(x);
    const int64_t rows = c_prev.shape()[0], units = c_prev.shape()[1], batch = x.shape()[0];
    const int64_t rest = units == 0 ? 0 : c_prev.size() / rows / units;
    std::vector<double> c = cp, h;
    for (int64_t b = 0; b < batch; ++b) {
        for (int64_t u = 0; u < units; ++u) {
            for (int64_t s = 0; s < rest; ++s) {
                const auto gate = [&](int64_t k) {
                    return xv[static_cast<size_t>(((b * units + u) * 4 + k) * rest + s)];
                };
                const auto at = static_cast<size_t>((b * units + u) * rest + s);
                c[at] = std::tanh(gate(0)) * sigmoid_ref(gate(1)) + sigmoid_ref(gate(2)) * cp[at];
                h.push_back(sigmoid_ref(gate(3)) * std::tanh(c[at]));
            }
        }
    }
    Shape h_shape = c_prev.shape();
    h_shape[0] = batch;
    return {f64(c, c_prev.shape()), f64(h, h_shape)};
}

}  // namespace

TEST_CASE("lstm", "[functions][activation]") {
    for (const auto& [c_shape, x_shape] :
         {std::pair{Shape{2, 3}, Shape{2, 12}}, std::pair{Shape{2, 2, 2}, Shape{2, 8, 2}},
          std::pair{Shape{3, 2}, Shape{2, 8}}, std::pair{Shape{2, 2}, Shape{0, 8}}}) {
        const bool empty = x_shape[0] == 0;
        check_function({
            .name = "lstm",
            .inputs = {{.shape = c_shape}, {.shape = x_shape, .low = -2, .high = 2}},
            .func =
                [](const Vars& xs) {
                    auto [c, h] = F::lstm(xs[0], xs[1]);
                    return Vars{c, h};
                },
            .reference = [](const Arrays& xs) { return lstm_ref(xs[0], xs[1]); },
            .backward = !empty,
            .double_backward = !empty,
        });
    }
}

TEST_CASE("lstm: only one output used", "[functions][activation]") {
    const Variable c_prev(ops::ones({2, 1})), x(ops::zeros({2, 4}));
    auto [c, h] = F::lstm(c_prev, x);
    h.set_grad(ops::ones({2, 1}));
    h.backward();  // h alone: c receives no gradient of its own
    // c = tanh(0) * 0.5 + 0.5 * 1 = 0.5; dh/dc_prev = o * (1 - tanh(c)^2) * f.
    const double expected = 0.5 * (1 - std::pow(std::tanh(0.5), 2)) * 0.5;
    CHECK(to_doubles(c_prev.grad())[0] == Approx(expected));
}

TEST_CASE("lstm: errors", "[functions][activation]") {
    const Variable c(ops::zeros({2, 3})), x(ops::zeros({2, 12}));
    CHECK_THROWS_WITH(F::lstm(c, Variable(ops::zeros({2, 8}))), Catch::Contains("x.shape[1] == 4 * c_prev.shape[1]"));
    CHECK_THROWS_AS(F::lstm(Variable(ops::zeros({1, 3})), x), DimensionError);
    CHECK_THROWS_AS(F::lstm(Variable(ops::zeros({2, 3, 1})), x), DimensionError);
    CHECK_THROWS_AS(F::lstm(Variable(ops::zeros({2, 3}, Dtype::kFloat64)), x), DtypeError);
    CHECK_THROWS_AS(F::lstm(c, Variable(ops::zeros({2, 12}, Dtype::kInt32))), DtypeError);
}
