// sigmoid_cross_entropy: forward against a float64 reference (normalize, reduce, ignored
// labels), gradients, double backprop, errors.

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "core/ops/creation.h"
#include "functions/loss.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

Array sig_reference(const Array& x, const Array& t, const F::SigmoidCrossEntropyOptions& o) {
    const std::vector<double> xv = to_doubles(x), tv = to_doubles(t);
    std::vector<double> loss;
    double total = 0;
    int64_t count = 0;
    for (size_t i = 0; i < xv.size(); ++i) {
        if (tv[i] == -1) {
            loss.push_back(0.0);
            continue;
        }
        const double p = 1.0 / (1.0 + std::exp(-xv[i]));
        const double l = -(tv[i] * std::log(p) + (1 - tv[i]) * std::log(1 - p));
        loss.push_back(l);
        total += l;
        ++count;
    }
    if (o.reduce == "no") return f64(loss, x.shape());
    const double denom = static_cast<double>(std::max<int64_t>(o.normalize ? count : x.shape()[0], 1));
    return f64({total / denom}, {});
}

}  // namespace

TEST_CASE("sigmoid_cross_entropy", "[functions][loss]") {
    for (const F::SigmoidCrossEntropyOptions& o :
         {F::SigmoidCrossEntropyOptions{}, {.normalize = false}, {.reduce = "no"}}) {
        check_function({
            .name = "sigmoid_cross_entropy " + o.reduce + (o.normalize ? "" : " not normalized"),
            .inputs = {{.shape = {4, 3}, .low = -3.0, .high = 3.0},
                       {.shape = {4, 3}, .values = integers(-1, 2), .dtype = Dtype::kInt32}},
            .func = [o](const Vars& v) { return Vars{F::sigmoid_cross_entropy(v[0], v[1], o)}; },
            .reference = [o](const Arrays& a) { return Arrays{sig_reference(a[0], a[1], o)}; },
        });
    }
}

TEST_CASE("sigmoid_cross_entropy errors", "[functions][loss]") {
    const Variable x(ops::zeros({2, 3}));
    CHECK_THROWS_AS(F::sigmoid_cross_entropy(x, Variable(ops::zeros({2, 3}), false)), DtypeError);
    CHECK_THROWS_WITH(F::sigmoid_cross_entropy(x, Variable(ops::zeros({3, 2}, Dtype::kInt32), false)),
                      Catch::Contains("x.shape == t.shape"));
    CHECK_THROWS_AS(F::sigmoid_cross_entropy(x, Variable(ops::zeros({2, 3}, Dtype::kInt32), false), {.reduce = "x"}),
                    ValueError);
}

TEST_CASE("sigmoid_cross_entropy of empty and 0-d inputs", "[functions][loss]") {
    const Variable x(ops::zeros({0, 2}));
    CHECK(F::sigmoid_cross_entropy(x, Variable(ops::zeros({0, 2}, Dtype::kInt32), false)).item() == 0.0);
    const Variable x0(Array::from_vector<double>({0.0}, {}));
    const Variable t0(Array::from_vector<int32_t>({1}, {}), false);
    CHECK(F::sigmoid_cross_entropy(x0, t0, {.reduce = "no"}).item() == Approx(std::log(2.0)));
}
