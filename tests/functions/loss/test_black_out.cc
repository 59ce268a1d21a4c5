// black_out: both reductions against float64 loops, gradients, double backprop, errors.

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "core/ops/creation.h"
#include "functions/loss.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

constexpr int64_t kN = 3, kD = 4, kVocab = 5, kSamples = 2;

Array black_out_reference(const Arrays& xs, bool mean) {
    const std::vector<double> x = to_doubles(xs[0]), t = to_doubles(xs[1]), W = to_doubles(xs[2]),
                              s = to_doubles(xs[3]);
    const auto dot = [&](int64_t row, int64_t id) {
        double f = 0;
        for (int64_t e = 0; e < kD; ++e) f += W[id * kD + e] * x[row * kD + e];
        return f;
    };
    std::vector<double> loss(kN);
    double total = 0;
    for (int64_t i = 0; i < kN; ++i) {
        const double pos = dot(i, static_cast<int64_t>(t[i]));
        std::vector<double> neg;
        double z = std::exp(pos);
        for (int64_t k = 0; k < kSamples; ++k) {
            neg.push_back(dot(i, static_cast<int64_t>(s[i * kSamples + k])));
            z += std::exp(neg.back());
        }
        double l = pos - std::log(z);
        for (const double v : neg) l += std::log(1.0 - std::exp(v) / z);
        loss[i] = -l;
        total += -l;
    }
    return mean ? f64({total / kN}, {}) : f64(loss, {kN});
}

}  // namespace

TEST_CASE("black_out", "[functions][loss]") {
    const std::vector<double> t = {1, 4, 0}, samples = {0, 2, 3, 1, 4, 2};
    for (const std::string reduce : {"mean", "no"}) {
        check_function({
            .name = "black_out " + reduce,
            .inputs = {{.shape = {kN, kD}},
                       {.shape = {kN}, .values = [=](int64_t, uint64_t) { return t; }, .dtype = Dtype::kInt32},
                       {.shape = {kVocab, kD}},
                       {.shape = {kN, kSamples},
                        .values = [=](int64_t, uint64_t) { return samples; },
                        .dtype = Dtype::kInt32}},
            .func = [=](const Vars& xs) { return Vars{F::black_out(xs[0], xs[1], xs[2], xs[3], reduce)}; },
            .reference = [=](const Arrays& xs) { return Arrays{black_out_reference(xs, reduce == "mean")}; },
        });
    }
}

TEST_CASE("black_out: errors", "[functions][loss]") {
    const Variable x(ops::zeros({3, 4})), W(ops::zeros({5, 4}));
    const Variable t(ops::zeros({3}, Dtype::kInt32)), s(ops::zeros({3, 2}, Dtype::kInt32));
    CHECK_THROWS_WITH(F::black_out(x, t, W, s, "sum"), Catch::Contains("black_out: only 'mean' and 'no' are valid"));
    CHECK_THROWS_WITH(F::black_out(x, Variable(ops::zeros({2}, Dtype::kInt32)), W, s),
                      Catch::Contains("black_out: Expect: x.shape[0] == t.shape[0] == samples.shape[0]"));
    CHECK_THROWS_WITH(F::black_out(x, t, Variable(ops::zeros({5, 3})), s),
                      Catch::Contains("black_out: Expect: x.shape[1] == W.shape[1]"));
    CHECK_THROWS_AS(F::black_out(x, Variable(ops::zeros({3})), W, s), DtypeError);
    CHECK_THROWS_AS(F::black_out(x, t, W, Variable(ops::full({3, 2}, 7, Dtype::kInt32))), ValueError);
}
