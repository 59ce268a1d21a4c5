// softmax_cross_entropy with soft targets (Note [Soft target semantics]): both losses,
// both reductions, N-d inputs, the fused gradient, the composed double backprop, Chainer
// 7.8.1's values and errors.

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "autograd/grad.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/reduction.h"
#include "functions/loss.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// t normalized to sum 1 along axis 1 (a distribution, as soft targets are).
Array distribution(const Array& raw) { return ops::divide(raw, ops::sum(raw, Axes{1}, true)); }

// x, t (n, c, rest...): per (sample, position) -sum_k t log_softmax(x) (+ sum t log(t + 1e-7)).
Array soft_reference(const Array& x, const Array& raw_t, const F::SoftmaxCrossEntropyOptions& o) {
    const std::vector<double> xv = to_doubles(x), rv = to_doubles(raw_t);
    const int64_t n = x.shape()[0], c = x.shape()[1], rest = x.size() / (n * c);
    std::vector<double> loss;
    double total = 0;
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t r = 0; r < rest; ++r) {
            auto at = [&](const std::vector<double>& v, int64_t k) { return v[(i * c + k) * rest + r]; };
            double mx = -1e300, se = 0, tsum = 0;
            for (int64_t k = 0; k < c; ++k) mx = std::max(mx, at(xv, k));
            for (int64_t k = 0; k < c; ++k) se += std::exp(at(xv, k) - mx);
            for (int64_t k = 0; k < c; ++k) tsum += at(rv, k);
            double l = 0;
            for (int64_t k = 0; k < c; ++k) {
                const double t = at(rv, k) / tsum, log_y = at(xv, k) - mx - std::log(se);
                l += o.soft_target_loss == "kl-divergence" ? t * (std::log(t + 1e-7) - log_y) : -t * log_y;
            }
            loss.push_back(l);
            total += l;
        }
    }
    Shape per_sample = x.shape();
    per_sample.erase(1);
    if (o.reduce == "no") return f64(loss, per_sample);
    return f64({total / static_cast<double>(n * rest)}, {});
}

void check_soft(const std::string& name, const Shape& shape, const F::SoftmaxCrossEntropyOptions& o) {
    check_function({
        .name = name,
        .inputs = {{.shape = shape, .low = -2.0, .high = 2.0},
                   {.shape = shape, .low = 0.1, .high = 1.0, .differentiable = false}},
        .func =
            [o](const Vars& v) {
                return Vars{F::softmax_cross_entropy(v[0], Variable(distribution(v[1].array()), false), o)};
            },
        .reference = [o](const Arrays& a) { return Arrays{soft_reference(a[0], a[1], o)}; },
        .double_backward = o.enable_double_backprop,
        .forward_tol = {.float16 = Tolerance{2e-2, 2e-2}},
        .backward_tol = {.float16 = Tolerance{5e-2, 5e-2}},
    });
}

}  // namespace

TEST_CASE("softmax_cross_entropy with soft targets", "[functions][loss]") {
    for (const std::string loss : {"cross-entropy", "kl-divergence"}) {
        for (const std::string reduce : {"mean", "no"}) {
            const F::SoftmaxCrossEntropyOptions o{.reduce = reduce, .soft_target_loss = loss};
            check_soft("soft " + loss + " " + reduce, {3, 4}, o);
            check_soft("soft N-d " + loss + " " + reduce, {2, 3, 2}, o);
            F::SoftmaxCrossEntropyOptions uncached = o;
            uncached.cache_score = false;
            check_soft("soft uncached " + loss + " " + reduce, {3, 4}, uncached);
            F::SoftmaxCrossEntropyOptions composed = o;
            composed.enable_double_backprop = true;
            check_soft("soft composed " + loss + " " + reduce, {3, 4}, composed);
        }
    }
}

TEST_CASE("softmax_cross_entropy with soft targets matches Chainer 7.8.1", "[functions][loss]") {
    // Chainer: x = [[1, 2, 0.5], [0, -1, 3]], t = [[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]].
    const Variable x(f64({1, 2, 0.5, 0, -1, 3}, {2, 3}), true);
    const Variable t(f64({0.2, 0.5, 0.3, 0.6, 0.1, 0.3}, {2, 3}), false);
    // normalize, class_weight and ignore_label do not change a soft-target loss.
    const Array cw = f64({1, 2, 3}, {3});
    const Variable ce = F::softmax_cross_entropy(x, t, {.normalize = false, .class_weight = cw});
    CHECK(to_doubles(ce.array())[0] == Approx(1.6901263439));
    const Variable kl = F::softmax_cross_entropy(x, t, {.reduce = "no", .soft_target_loss = "kl-divergence"});
    const std::vector<double> klv = to_doubles(kl.array());
    CHECK(klv[0] == Approx(0.08471607));
    CHECK(klv[1] == Approx(1.36793848));
    // The fused gradient is softmax(x) - t, scaled by 1 / n.
    const std::vector<double> gx = to_doubles(grad({ce}, {x})[0].array());
    const std::vector<double> chainer_gx{0.01561195, 0.06426586, -0.07987781, -0.27669369, -0.04142609, 0.31811978};
    for (size_t i = 0; i < 6; ++i) CHECK(gx[i] == Approx(chainer_gx[i]).margin(1e-7));
}

TEST_CASE("softmax_cross_entropy with soft targets: errors", "[functions][loss]") {
    const Variable x(ops::zeros({2, 3}));
    CHECK_THROWS_WITH(F::softmax_cross_entropy(x, Variable(ops::zeros({2, 4}))),
                      Catch::Contains("softmax_cross_entropy: Expect: x.shape == t.shape"));
    CHECK_THROWS_WITH(F::softmax_cross_entropy(x, Variable(ops::zeros({2, 3})), {.soft_target_loss = "kl"}),
                      Catch::Contains("soft_target_loss must be 'cross-entropy' or 'kl-divergence'"));
    CHECK_THROWS_WITH(F::softmax_cross_entropy(x, Variable(ops::zeros({2, 3})), {.reduce = "sum"}),
                      Catch::Contains("only 'mean' and 'no' are valid for 'reduce'"));
    CHECK_THROWS_AS(F::softmax_cross_entropy(Variable(ops::zeros({2, 3}, Dtype::kInt32)), Variable(ops::zeros({2, 3}))),
                    DtypeError);
}
