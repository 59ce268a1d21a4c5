// pad: every numpy mode forward against float64 loops (numpy's definitions per axis, the
// reflections by their periodic formulas), numpy's own values where they are not periodic,
// Chainer's gradient (the interior slice) and errors.

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "autograd/grad.h"

#include "core/ops/creation.h"
#include "functions/array.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

using Widths = std::vector<std::pair<int64_t, int64_t>>;

Array pad_reference(const Array& x, const Widths& w, double value) {
    Shape shape = x.shape();
    for (int d = 0; d < shape.size(); ++d)
        shape[d] += w[static_cast<size_t>(d)].first + w[static_cast<size_t>(d)].second;
    const std::vector<double> v = to_doubles(x);
    std::vector<double> out;
    for (int64_t i = 0; i < shape_size(shape); ++i) {
        std::vector<int64_t> idx = unravel(i, shape);
        bool inside = true;
        for (size_t d = 0; d < idx.size(); ++d) {
            idx[d] -= w[d].first;
            inside = inside && idx[d] >= 0 && idx[d] < x.shape()[static_cast<int>(d)];
        }
        out.push_back(inside ? v[static_cast<size_t>(ravel(idx, x.shape()))] : value);
    }
    return f64(out, shape);
}

}  // namespace

TEST_CASE("pad", "[functions][array]") {
    check_function({
        .name = "pad",
        .inputs = {{.shape = {2, 3}}},
        .func =
            [](const Vars& xs) {
                return Vars{F::pad(xs[0], {{1, 0}, {2, 1}}, "constant", 0.5)};
            },
        .reference =
            [](const Arrays& xs) {
                return Arrays{pad_reference(xs[0], {{1, 0}, {2, 1}}, 0.5)};
            },
    });
    check_function({
        .name = "pad one width",
        .inputs = {{.shape = {2, 1, 2}}},
        .func = [](const Vars& xs) { return Vars{F::pad(xs[0], 1)}; },
        .reference =
            [](const Arrays& xs) {
                return Arrays{pad_reference(xs[0], {{1, 1}, {1, 1}, {1, 1}}, 0)};
            },
    });
    check_function({
        .name = "pad one pair",
        .inputs = {{.shape = {0, 2}}},
        .func =
            [](const Vars& xs) {
                return Vars{F::pad(xs[0], {{0, 2}})};
            },
        .reference =
            [](const Arrays& xs) {
                return Arrays{pad_reference(xs[0], {{0, 2}, {0, 2}}, 0)};
            },
    });
    check_function({
        .name = "pad 0-d",
        .inputs = {{.shape = {}}},
        .func = [](const Vars& xs) { return Vars{F::pad(xs[0], 2)}; },
        .reference = [](const Arrays& xs) { return Arrays{xs[0]}; },
    });
}

TEST_CASE("pad: errors", "[functions][array]") {
    const Variable x(ops::zeros({2, 3}));
    CHECK_THROWS_WITH(F::pad(x, 1, "reflection"), Catch::Contains("pad: mode 'reflection' is not supported"));
    CHECK_THROWS_WITH(F::pad(x, 1, "edge", 2.0),
                      Catch::Contains("pad: unsupported keyword arguments for mode 'edge': constant_values"));
    CHECK_THROWS_WITH(F::pad(x, {{1, 1}}, "wrap", F::PadOptions{.end_values = {{{1.0, 1.0}}}}),
                      Catch::Contains("unsupported keyword arguments for mode 'wrap': end_values"));
    CHECK_THROWS_WITH(F::pad(x, {{1, 1}}, "reflect", F::PadOptions{.reflect_type = "bad"}),
                      Catch::Contains("reflect_type in ('even', 'odd')"));
    CHECK_THROWS_WITH(F::pad(x, {{1, 1}}, "maximum", F::PadOptions{.stat_length = {{{0, 1}}}}),
                      Catch::Contains("stat_length of 0"));
    CHECK_THROWS_WITH(F::pad(Variable(ops::zeros({0, 3})), 1, "edge"), Catch::Contains("can't extend empty axis 0"));
    CHECK_THROWS_WITH(F::pad(x, {{0, 1}, {-1, 0}}), Catch::Contains("pad_width[1] = (-1, 0)"));
    CHECK_THROWS_AS(F::pad(x, {{0, 1}, {1, 0}, {0, 0}}), ValueError);
}

namespace {

// numpy.pad of one line in `mode` (the periodic forms of wrap/reflect/symmetric, 'even').
std::vector<double> pad_line(const std::vector<double>& v, int64_t before, int64_t after, const std::string& mode) {
    const auto n = static_cast<int64_t>(v.size());
    auto at = [&](int64_t i) { return v[static_cast<size_t>(i)]; };
    auto stat = [&](int64_t lo, int64_t hi) {  // over v[lo:hi]
        std::vector<double> part(v.begin() + lo, v.begin() + hi);
        std::sort(part.begin(), part.end());
        double mean = 0;
        for (const double p : part) mean += p / static_cast<double>(part.size());
        if (mode == "maximum") return part.back();
        if (mode == "minimum") return part.front();
        if (mode == "mean") return mean;
        return (part[(part.size() - 1) / 2] + part[part.size() / 2]) / 2;  // median
    };
    std::vector<double> out;
    for (int64_t i = -before; i < n + after; ++i) {
        if (i >= 0 && i < n) {
            out.push_back(at(i));
        } else if (mode == "edge") {
            out.push_back(at(std::clamp<int64_t>(i, 0, n - 1)));
        } else if (mode == "wrap") {
            out.push_back(at(((i % n) + n) % n));
        } else if (mode == "reflect") {
            const int64_t m = ((i % (2 * n - 2)) + 2 * n - 2) % (2 * n - 2);
            out.push_back(at(m < n ? m : 2 * n - 2 - m));
        } else if (mode == "symmetric") {
            const int64_t m = ((i % (2 * n)) + 2 * n) % (2 * n);
            out.push_back(at(m < n ? m : 2 * n - 1 - m));
        } else if (mode == "linear_ramp") {  // end values 0
            out.push_back(i < 0 ? at(0) * static_cast<double>(before + i) / static_cast<double>(before)
                                : at(n - 1) * static_cast<double>(n - 1 + after - i) / static_cast<double>(after));
        } else {
            out.push_back(i < 0 ? stat(0, std::min<int64_t>(2, n)) : stat(n - std::min<int64_t>(2, n), n));
        }
    }
    return out;
}

// numpy.pad of a float64 array, one axis after the other.
Array pad_mode_reference(const Array& x, const Widths& w, const std::string& mode) {
    std::vector<double> data = to_doubles(x);
    Shape shape = x.shape();
    for (int d = 0; d < shape.size(); ++d) {
        const auto [before, after] = w[static_cast<size_t>(d)];
        Shape out_shape = shape;
        out_shape[d] += before + after;
        std::vector<double> out(static_cast<size_t>(shape_size(out_shape)));
        for (int64_t i = 0; i < shape_size(out_shape); ++i) {
            std::vector<int64_t> idx = unravel(i, out_shape);
            if (idx[static_cast<size_t>(d)] != 0) continue;  // one line per position with index 0 along d
            std::vector<double> line;
            for (int64_t k = 0; k < shape[d]; ++k) {
                idx[static_cast<size_t>(d)] = k;
                line.push_back(data[static_cast<size_t>(ravel(idx, shape))]);
            }
            const std::vector<double> padded = pad_line(line, before, after, mode);
            for (int64_t k = 0; k < out_shape[d]; ++k) {
                idx[static_cast<size_t>(d)] = k;
                out[static_cast<size_t>(ravel(idx, out_shape))] = padded[static_cast<size_t>(k)];
            }
        }
        data = std::move(out);
        shape = out_shape;
    }
    return f64(data, shape);
}

}  // namespace

TEST_CASE("pad: every numpy mode", "[functions][array]") {
    // Widths larger than the axis make reflect/symmetric/wrap repeat (numpy's iteration).
    const Widths widths{{2, 1}, {4, 7}};
    for (const std::string mode :
         {"edge", "wrap", "reflect", "symmetric", "linear_ramp", "maximum", "minimum", "mean", "median"}) {
        const bool stat = mode == "maximum" || mode == "minimum" || mode == "mean" || mode == "median";
        const F::PadOptions options{.stat_length = stat ? std::optional{Widths{{2, 2}}} : std::nullopt};
        check_function({
            .name = "pad " + mode,
            .inputs = {{.shape = {2, 3}, .values = distinct()}},
            .func = [&](const Vars& xs) { return Vars{F::pad(xs[0], widths, mode, options)}; },
            .reference = [&](const Arrays& xs) { return Arrays{pad_mode_reference(xs[0], widths, mode)}; },
            .backward = false,  // Chainer's gradient is checked below (Note [Pad gradient])
            .double_backward = false,
        });
    }
}

TEST_CASE("pad: numpy's values for odd reflections, ramps and per-axis constants", "[functions][array]") {
    const Variable x(f64({0, 1, 3}, {3}));
    auto values = [](const Variable& y) { return to_doubles(y.array()); };
    // numpy.pad([0, 1, 3], (5, 4), 'reflect', reflect_type='odd') and the 'symmetric' one.
    CHECK(values(F::pad(x, {{5, 4}}, "reflect", {.reflect_type = "odd"})) ==
          std::vector<double>{-7, -6, -5, -3, -1, 0, 1, 3, 5, 6, 7, 9});
    CHECK(values(F::pad(x, {{5, 4}}, "symmetric", {.reflect_type = "odd"})) ==
          std::vector<double>{-5, -3, -3, -1, 0, 0, 1, 3, 3, 5, 6, 6});
    // numpy.pad([0, 1, 3], (2, 3), 'linear_ramp', end_values=(4, -3)).
    const std::vector<double> ramp = values(F::pad(x, {{2, 3}}, "linear_ramp", {.end_values = {{{4.0, -3.0}}}}));
    const std::vector<double> expected{4, 2, 0, 1, 3, 1, -1, -3};
    REQUIRE(ramp.size() == expected.size());
    for (size_t i = 0; i < ramp.size(); ++i) CHECK(ramp[i] == Approx(expected[i]));
    // numpy.pad(zeros((1, 1)), ((1, 1), (1, 0)), constant_values=((1, 2), (3, 4))): the last axis wins the corners.
    const Variable z(f64({0}, {1, 1}));
    CHECK(values(F::pad(z, {{1, 1}, {1, 0}}, "constant", {.constant_values = {{{1.0, 2.0}, {3.0, 4.0}}}})) ==
          std::vector<double>{3, 1, 3, 0, 3, 2});
    CHECK(values(F::pad(Variable(f64({5}, {1})), {{1, 2}}, "reflect")) == std::vector<double>{5, 5, 5, 5});  // the edge
}

TEST_CASE("pad: the gradient is Chainer's interior slice in every mode", "[functions][array]") {
    const Variable x(f64({1, 2, 3, 4, 5, 6}, {2, 3}), true);
    for (const std::string mode : {"constant", "edge", "reflect", "mean", "linear_ramp"}) {
        const Variable y = F::pad(x, {{1, 0}, {2, 1}}, mode, F::PadOptions{});
        std::vector<double> g(18);
        for (size_t i = 0; i < g.size(); ++i) g[i] = static_cast<double>(i);
        const Variable gx = grad({y}, {x}, {Variable(f64(g, {3, 6}), false)})[0];
        CHECK(to_doubles(gx.array()) == std::vector<double>{8, 9, 10, 14, 15, 16});
    }
}
