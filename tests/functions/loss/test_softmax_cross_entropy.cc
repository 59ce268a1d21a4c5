// softmax_cross_entropy: forward against a float64 reference over options (normalize,
// reduce, ignore_label, class_weight, cache_score, N-d inputs), gradients, double backprop
// on the composed path, and errors.

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "core/ops/creation.h"
#include "functions/loss.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// x (n, c, rest...), t (n, rest...): per-sample -w[t] * log_softmax(x)[t], 0 where ignored.
Array sce_reference(const Array& x, const Array& t, const F::SoftmaxCrossEntropyOptions& o) {
    const std::vector<double> xv = to_doubles(x), tv = to_doubles(t);
    const std::vector<double> cw = o.class_weight.defined() ? to_doubles(o.class_weight) : std::vector<double>{};
    const int64_t n = x.shape()[0], c = x.shape()[1], rest = x.size() / std::max<int64_t>(n * c, 1);
    std::vector<double> loss;
    double total = 0;
    int64_t count = 0;
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t r = 0; r < rest; ++r) {
            const int64_t label = static_cast<int64_t>(tv[i * rest + r]);
            if (label == o.ignore_label) {
                loss.push_back(0.0);
                continue;
            }
            double mx = -1e300, se = 0;
            for (int64_t k = 0; k < c; ++k) mx = std::max(mx, xv[(i * c + k) * rest + r]);
            for (int64_t k = 0; k < c; ++k) se += std::exp(xv[(i * c + k) * rest + r] - mx);
            const double l = -(xv[(i * c + label) * rest + r] - mx - std::log(se)) * (cw.empty() ? 1.0 : cw[label]);
            loss.push_back(l);
            total += l;
            ++count;
        }
    }
    if (o.reduce == "no") return f64(loss, t.shape());
    const double denom = static_cast<double>(std::max<int64_t>(o.normalize ? count : n, 1));
    return f64({total / denom}, {});
}

void check_sce(const std::string& name, const Shape& x_shape, const Shape& t_shape,
               const F::SoftmaxCrossEntropyOptions& o, int64_t label_low = 0) {
    const int64_t classes = x_shape[1];
    check_function({
        .name = name,
        .inputs = {{.shape = x_shape, .low = -2.0, .high = 2.0},
                   {.shape = t_shape, .values = integers(label_low, classes), .dtype = Dtype::kInt32}},
        .func =
            [o](const Vars& v) {
                F::SoftmaxCrossEntropyOptions on_device = o;  // class_weight follows the inputs (cuda:0 sweep)
                if (o.class_weight.defined()) on_device.class_weight = o.class_weight.to_device(v[0].device());
                return Vars{F::softmax_cross_entropy(v[0], v[1], on_device)};
            },
        .reference = [o](const Arrays& a) { return Arrays{sce_reference(a[0], a[1], o)}; },
        .double_backward = o.enable_double_backprop,
    });
}

}  // namespace

TEST_CASE("softmax_cross_entropy", "[functions][loss]") {
    check_sce("softmax_cross_entropy", {4, 3}, {4}, {});
    check_sce("softmax_cross_entropy no cache", {4, 3}, {4}, {.cache_score = false});
    check_sce("softmax_cross_entropy ignore", {5, 3}, {5}, {}, -1);
    check_sce("softmax_cross_entropy not normalized", {5, 3}, {5}, {.normalize = false}, -1);
    check_sce("softmax_cross_entropy reduce no", {5, 3}, {5}, {.reduce = "no"}, -1);
    check_sce("softmax_cross_entropy N-d", {2, 3, 2, 2}, {2, 2, 2}, {}, -1);
    check_sce("softmax_cross_entropy class_weight", {4, 3}, {4},
              {.class_weight = Array::from_vector<double>({0.5, 2.0, 1.5}, {3}), .reduce = "no"}, -1);
}

TEST_CASE("softmax_cross_entropy with enable_double_backprop", "[functions][loss]") {
    check_sce("softmax_cross_entropy double", {4, 3}, {4}, {.enable_double_backprop = true}, -1);
    check_sce("softmax_cross_entropy double no", {2, 3, 2}, {2, 2},
              {.class_weight = Array::from_vector<double>({0.5, 2.0, 1.5}, {3}),
               .reduce = "no",
               .enable_double_backprop = true},
              -1);
}

TEST_CASE("softmax_cross_entropy errors", "[functions][loss]") {
    const Variable x(ops::zeros({3, 4}));
    const Variable t(Array::from_vector<int32_t>({0, 7, 1}, {3}), false);
    CHECK_THROWS_WITH(F::softmax_cross_entropy(x, t), Catch::Contains("label 7 at t[1]"));
    CHECK_THROWS_AS(F::softmax_cross_entropy(x, t), ValueError);
    const Variable tf(ops::zeros({3}), false);  // a float t is a soft target of x's shape
    CHECK_THROWS_AS(F::softmax_cross_entropy(x, tf), DimensionError);
    CHECK_THROWS_AS(F::softmax_cross_entropy(x, Variable(ops::zeros({3}, Dtype::kBool), false)), DtypeError);
    const Variable t2(Array::from_vector<int32_t>({0, 1}, {2}), false);
    CHECK_THROWS_AS(F::softmax_cross_entropy(x, t2), DimensionError);
    const Variable ok(Array::from_vector<int32_t>({0, 1, -1}, {3}), false);
    CHECK_THROWS_AS(F::softmax_cross_entropy(x, ok, {.reduce = "sum"}), ValueError);
    CHECK(F::softmax_cross_entropy(x, ok).item() == Approx(std::log(4.0)));
}

TEST_CASE("softmax_cross_entropy of an empty batch is 0", "[functions][loss]") {
    const Variable x(ops::zeros({0, 3}));
    const Variable t(ops::zeros({0}, Dtype::kInt32), false);
    const Variable loss = F::softmax_cross_entropy(x, t);
    CHECK(loss.item() == 0.0);
    loss.backward();
    CHECK(x.grad().shape() == Shape{0, 3});
    CHECK(F::softmax_cross_entropy(x, t, {.reduce = "no"}).shape() == Shape{0});
}
