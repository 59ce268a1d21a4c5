// negative_sampling: both reductions against float64 loops with a deterministic sampler,
// gradients and double backprop (Note [Negative sampling double backprop]), ignored rows,
// errors.

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "core/ops/creation.h"
#include "functions/loss.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

constexpr int64_t kVocab = 5, kSampleSize = 2;

// Deterministic ids (2 i + 3 j + 1) mod kVocab, so finite differences see the same samples.
int64_t sample_id(int64_t i, int64_t j) { return (2 * i + 3 * j + 1) % kVocab; }
Array sampler(const Shape& shape) {
    std::vector<int32_t> ids;
    for (int64_t i = 0; i < shape[0]; ++i) {
        for (int64_t j = 0; j < shape[1]; ++j) ids.push_back(static_cast<int32_t>(sample_id(i, j)));
    }
    return Array::from_vector(ids, shape);
}

double softplus(double v) { return std::log1p(std::exp(v)); }

Array negative_sampling_reference(const Arrays& xs, bool sum) {
    const std::vector<double> x = to_doubles(xs[0]), t = to_doubles(xs[1]), W = to_doubles(xs[2]);
    const int64_t n = xs[0].shape()[0], d = xs[0].shape()[1];
    std::vector<double> loss(static_cast<size_t>(n), 0.0);
    double total = 0;
    for (int64_t i = 0; i < n; ++i) {
        if (t[static_cast<size_t>(i)] == -1) continue;
        for (int64_t k = 0; k <= kSampleSize; ++k) {
            const int64_t id = k == 0 ? static_cast<int64_t>(t[static_cast<size_t>(i)]) : sample_id(i, k);
            double f = 0;
            for (int64_t e = 0; e < d; ++e) f += W[static_cast<size_t>(id * d + e)] * x[static_cast<size_t>(i * d + e)];
            loss[static_cast<size_t>(i)] += softplus(k == 0 ? -f : f);
        }
        total += loss[static_cast<size_t>(i)];
    }
    return sum ? f64({total}, {}) : f64(loss, {n});
}

}  // namespace

TEST_CASE("negative_sampling", "[functions][loss]") {
    const std::vector<double> t = {1, -1, 4, 0};
    for (const std::string reduce : {"sum", "no"}) {
        check_function({
            .name = "negative_sampling " + reduce,
            .inputs = {{.shape = {4, 3}},
                       {.shape = {4}, .values = [=](int64_t, uint64_t) { return t; }, .dtype = Dtype::kInt32},
                       {.shape = {kVocab, 3}}},
            .func =
                [=](const Vars& xs) {
                    return Vars{F::negative_sampling(xs[0], xs[1], xs[2], sampler, kSampleSize, reduce)};
                },
            .reference = [=](const Arrays& xs) { return Arrays{negative_sampling_reference(xs, reduce == "sum")}; },
            .double_backward_tol = {.float16 = Tolerance{1e-1, 1e-1}},
        });
    }
}

TEST_CASE("negative_sampling: errors", "[functions][loss]") {
    const Variable x(ops::zeros({2, 3})), W(ops::zeros({kVocab, 3}));
    const Variable t(Array::from_vector<int32_t>({0, 2}, {2}));
    CHECK_THROWS_WITH(F::negative_sampling(x, t, W, sampler, 2, "mean"), Catch::Contains("but 'mean' is given"));
    CHECK_THROWS_WITH(F::negative_sampling(x, Variable(Array::from_vector<int32_t>({0, 5}, {2})), W, sampler, 2),
                      Catch::Contains("position 1 is 5"));
    CHECK_THROWS_AS(F::negative_sampling(x, Variable(Array::from_vector<int32_t>({0, -2}, {2})), W, sampler, 2),
                    ValueError);
    CHECK_THROWS_AS(F::negative_sampling(x, t, Variable(ops::zeros({kVocab, 2})), sampler, 2), DimensionError);
    CHECK_THROWS_AS(F::negative_sampling(x, Variable(ops::zeros({2})), W, sampler, 2), DtypeError);
    const F::NegativeSampler wrong_shape = [](const Shape&) { return Array::from_vector<int32_t>({0}, {1}); };
    CHECK_THROWS_AS(F::negative_sampling(x, t, W, wrong_shape, 2), ValueError);
    const F::NegativeSampler out_of_range = [](const Shape& s) { return ops::full(s, kVocab, Dtype::kInt32); };
    CHECK_THROWS_WITH(F::negative_sampling(x, t, W, out_of_range, 2), Catch::Contains("samples"));
}
