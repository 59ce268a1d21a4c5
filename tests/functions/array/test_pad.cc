// pad (constant mode): forward against a float64 loop, gradients, errors.

#include <catch2/catch.hpp>

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
    CHECK_THROWS_WITH(F::pad(x, 1, "reflect"), Catch::Contains("only mode 'constant'"));
    CHECK_THROWS_WITH(F::pad(x, {{0, 1}, {-1, 0}}), Catch::Contains("pad_width[1] = (-1, 0)"));
    CHECK_THROWS_AS(F::pad(x, {{0, 1}, {1, 0}, {0, 0}}), ValueError);
}
