// slstm and tree_lstm: both outputs against float64 references of Chainer's cells (slstm's
// gates interleaved as lstm's, tree_lstm's in blocks), gradients, double backprop, errors.

#include <catch2/catch.hpp>
#include <cmath>

#include "core/ops/creation.h"
#include "functions/activation.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

double sig(double v) { return 1 / (1 + std::exp(-v)); }

// cs[k] (batch, units, *rest); x (batch, gates * units, *rest): gate g of element (b, u, s)
// at x[b, u * gates + g, s] (interleaved) or x[b, g * units + u, s] (blocks).
struct Cell {
    int64_t batch, units, rest, gates;
    bool interleaved;
    size_t at(int64_t b, int64_t u, int64_t s) const { return size_t((b * units + u) * rest + s); }
    size_t gate(int64_t b, int64_t u, int64_t s, int64_t g) const {
        const int64_t row = interleaved ? u * gates + g : g * units + u;
        return size_t((b * gates * units + row) * rest + s);
    }
};

Cell cell_of(const Array& c, int64_t gates, bool interleaved) {
    const int64_t batch = c.shape()[0], units = c.shape()[1];
    return {batch, units, batch * units == 0 ? 0 : c.size() / batch / units, gates, interleaved};
}

Arrays slstm_ref(const Arrays& xs) {
    const std::vector<double> c1 = to_doubles(xs[0]), c2 = to_doubles(xs[1]), x1 = to_doubles(xs[2]),
                              x2 = to_doubles(xs[3]);
    const Cell g = cell_of(xs[0], 4, true);
    std::vector<double> c(c1.size()), h(c1.size());
    for (int64_t b = 0; b < g.batch; ++b) {
        for (int64_t u = 0; u < g.units; ++u) {
            for (int64_t s = 0; s < g.rest; ++s) {
                const auto v1 = [&](int64_t k) { return x1[g.gate(b, u, s, k)]; };
                const auto v2 = [&](int64_t k) { return x2[g.gate(b, u, s, k)]; };
                const size_t i = g.at(b, u, s);
                c[i] = std::tanh(v1(0)) * sig(v1(1)) + std::tanh(v2(0)) * sig(v2(1)) + sig(v1(2)) * c1[i] +
                       sig(v2(2)) * c2[i];
                h[i] = sig(v1(3) + v2(3)) * std::tanh(c[i]);
            }
        }
    }
    return {f64(c, xs[0].shape()), f64(h, xs[0].shape())};
}

// xs = c_1 .. c_n, x.
Arrays tree_lstm_ref(const Arrays& xs) {
    const size_t n = xs.size() - 1;
    const std::vector<double> x = to_doubles(xs[n]);
    const Cell g = cell_of(xs[0], int64_t(3 + n), false);
    std::vector<std::vector<double>> cs;
    for (size_t k = 0; k < n; ++k) cs.push_back(to_doubles(xs[k]));
    std::vector<double> c(cs[0].size()), h(cs[0].size());
    for (int64_t b = 0; b < g.batch; ++b) {
        for (int64_t u = 0; u < g.units; ++u) {
            for (int64_t s = 0; s < g.rest; ++s) {
                const auto v = [&](int64_t k) { return x[g.gate(b, u, s, k)]; };
                const size_t i = g.at(b, u, s);
                c[i] = std::tanh(v(0)) * sig(v(1));
                for (size_t k = 0; k < n; ++k) c[i] += sig(v(int64_t(3 + k))) * cs[k][i];
                h[i] = sig(v(2)) * std::tanh(c[i]);
            }
        }
    }
    return {f64(c, xs[0].shape()), f64(h, xs[0].shape())};
}

}  // namespace

TEST_CASE("slstm", "[functions][activation]") {
    for (const auto& [c_shape, x_shape] :
         {std::pair{Shape{2, 3}, Shape{2, 12}}, std::pair{Shape{2, 2, 2}, Shape{2, 8, 2}}}) {
        check_function({
            .name = "slstm",
            .inputs = {{.shape = c_shape},
                       {.shape = c_shape},
                       {.shape = x_shape, .low = -2, .high = 2},
                       {.shape = x_shape, .low = -2, .high = 2}},
            .func =
                [](const Vars& xs) {
                    auto [c, h] = F::slstm(xs[0], xs[1], xs[2], xs[3]);
                    return Vars{c, h};
                },
            .reference = slstm_ref,
        });
    }
}

TEST_CASE("tree_lstm", "[functions][activation]") {
    for (const int n : {1, 2, 3}) {
        for (const auto& [c_shape, x_shape] :
             {std::pair{Shape{2, 3}, Shape{2, 3 * (3 + n)}}, std::pair{Shape{2, 2, 2}, Shape{2, 2 * (3 + n), 2}}}) {
            std::vector<InputSpec> inputs(size_t(n), InputSpec{.shape = c_shape});
            inputs.push_back({.shape = x_shape, .low = -2, .high = 2});
            check_function({
                .name = "tree_lstm",
                .inputs = inputs,
                .func =
                    [](const Vars& xs) {
                        auto [c, h] = F::tree_lstm(Vars(xs.begin(), xs.end() - 1), xs.back());
                        return Vars{c, h};
                    },
                .reference = tree_lstm_ref,
            });
        }
    }
}

TEST_CASE("slstm and tree_lstm: errors", "[functions][activation]") {
    const Variable c(ops::zeros({2, 3})), x(ops::zeros({2, 12}));
    CHECK_THROWS_WITH(F::slstm(c, c, x, Variable(ops::zeros({2, 8}))),
                      Catch::Contains("slstm: Expect: x2.shape == (c_prev2.shape[0], 4 * c_prev2.shape[1]"));
    CHECK_THROWS_AS(F::slstm(c, Variable(ops::zeros({3, 3})), x, Variable(ops::zeros({3, 12}))), DimensionError);
    CHECK_THROWS_AS(F::slstm(c, c, x, Variable(ops::zeros({2, 12}, Dtype::kFloat64))), DtypeError);
    CHECK_THROWS_WITH(F::slstm(Variable(ops::zeros({2, 3}, Dtype::kInt32)), c, x, x),
                      Catch::Contains("slstm: Expect: c_prev1.dtype.kind == 'f', Actual: int32"));
    CHECK_THROWS_WITH(F::tree_lstm({c, c}, x), Catch::Contains("tree_lstm: Expect: x.shape == (c0.shape[0], 5 * c0"));
    CHECK_THROWS_AS(F::tree_lstm({}, x), ValueError);
    CHECK_THROWS_AS(F::tree_lstm({Variable(ops::zeros({2, 3, 1}))}, x), DimensionError);
}
