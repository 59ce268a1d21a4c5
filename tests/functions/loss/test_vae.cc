// gaussian_kl_divergence, bernoulli_nll, gaussian_nll: every reduction against float64
// loops, gradients, double backprop, errors.

#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>
#include <string>

#include "core/ops/creation.h"
#include "functions/loss.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// Elementwise f over the inputs' elements, then reduced like Chainer's `reduce`.
template <class Fn>
Array reduce_reference(const Arrays& xs, const std::string& reduce, Fn&& f) {
    std::vector<std::vector<double>> in;
    for (const Array& x : xs) in.push_back(to_doubles(x));
    std::vector<double> l(in[0].size());
    double total = 0;
    for (size_t i = 0; i < l.size(); ++i) {
        l[i] = f(in, i);
        total += l[i];
    }
    if (reduce == "sum") return f64({total}, {});
    if (reduce == "mean") return f64({total / static_cast<double>(l.size())}, {});
    return f64(l, xs[0].shape());
}

// 2-D, 0-d and size-0 inputs ("mean" of nothing is NaN: left out).
const std::vector<Shape> kShapes{{3, 2}, {}, {0, 2}};
const std::vector<Shape> kShapesNonEmpty{{3, 2}, {}};

}  // namespace

TEST_CASE("gaussian_kl_divergence", "[functions][loss]") {
    for (const std::string reduce : {"sum", "mean", "no"}) {
        for (const Shape& shape : reduce == "mean" ? kShapesNonEmpty : kShapes) {
            check_function({
                .name = "gaussian_kl_divergence " + reduce,
                .inputs = {{.shape = shape}, {.shape = shape}},
                .func = [=](const Vars& xs) { return Vars{F::gaussian_kl_divergence(xs[0], xs[1], reduce)}; },
                .reference =
                    [=](const Arrays& xs) {
                        return Arrays{reduce_reference(xs, reduce, [](const auto& v, size_t i) {
                            const double m = v[0][i], lv = v[1][i];
                            return (m * m + std::exp(lv) - lv - 1.0) * 0.5;
                        })};
                    },
                .backward = shape_size(shape) > 0,
                .double_backward = shape_size(shape) > 0,
            });
        }
    }
}

TEST_CASE("bernoulli_nll", "[functions][loss]") {
    for (const std::string reduce : {"sum", "no"}) {
        for (const Shape& shape : kShapes) {
            check_function({
                .name = "bernoulli_nll " + reduce,
                .inputs = {{.shape = shape, .low = 0.0, .high = 1.0}, {.shape = shape, .low = -3.0, .high = 3.0}},
                .func = [=](const Vars& xs) { return Vars{F::bernoulli_nll(xs[0], xs[1], reduce)}; },
                .reference =
                    [=](const Arrays& xs) {
                        return Arrays{reduce_reference(xs, reduce, [](const auto& v, size_t i) {
                            const double x = v[0][i], y = v[1][i];
                            return std::log1p(std::exp(y)) - x * y;
                        })};
                    },
                .backward = shape_size(shape) > 0,
                .double_backward = shape_size(shape) > 0,
            });
        }
    }
}

TEST_CASE("gaussian_nll", "[functions][loss]") {
    for (const std::string reduce : {"sum", "no"}) {
        for (const Shape& shape : kShapes) {
            check_function({
                .name = "gaussian_nll " + reduce,
                .inputs = {{.shape = shape}, {.shape = shape}, {.shape = shape}},
                .func = [=](const Vars& xs) { return Vars{F::gaussian_nll(xs[0], xs[1], xs[2], reduce)}; },
                .reference =
                    [=](const Arrays& xs) {
                        return Arrays{reduce_reference(xs, reduce, [](const auto& v, size_t i) {
                            const double d = v[0][i] - v[1][i], lv = v[2][i];
                            return 0.5 * (lv + std::log(2.0 * std::numbers::pi)) + 0.5 * d * d * std::exp(-lv);
                        })};
                    },
                .backward = shape_size(shape) > 0,
                .double_backward = shape_size(shape) > 0,
            });
        }
    }
}

TEST_CASE("vae losses: errors", "[functions][loss]") {
    const Variable a(ops::zeros({2, 3})), b(ops::zeros({3, 2}));
    CHECK_THROWS_WITH(F::gaussian_kl_divergence(a, a, "max"),
                      Catch::Contains("only 'sum', 'mean' and 'no' are valid for 'reduce', but 'max' is given"));
    CHECK_THROWS_WITH(F::bernoulli_nll(a, a, "mean"), Catch::Contains("only 'sum' and 'no' are valid"));
    CHECK_THROWS_AS(F::gaussian_nll(a, a, a, "mean"), ValueError);
    CHECK_THROWS_AS(F::gaussian_kl_divergence(a, b), DimensionError);
    CHECK_THROWS_AS(F::bernoulli_nll(a, Variable(ops::zeros({2, 3}, Dtype::kFloat64))), DtypeError);
    CHECK_THROWS_AS(F::gaussian_nll(a, a, b), DimensionError);
}
