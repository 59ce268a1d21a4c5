// crf1d and argmax_crf1d: against brute force over every label sequence (float64), for
// sequences of lengths 4, 3, 3 and 1; gradients; the Viterbi path; errors.

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "core/ops/creation.h"
#include "core/ops/random.h"
#include "core/random.h"
#include "functions/loss.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

constexpr int64_t kK = 3;
const std::vector<int64_t> kBatches = {3, 3, 2, 1};  // B_t at each step
const std::vector<int64_t> kLengths = {4, 3, 2};
const std::vector<std::vector<double>> kLabels = {{0, 2, 1}, {1, 1, 0}, {2, 0}, {1}};

struct BruteForce {
    std::vector<double> logz, gold, best;
    std::vector<std::vector<int64_t>> best_path;  // per row
};

// Every label sequence of every row: score = sum_t x_t[y_t] + sum_t cost[y_{t-1}, y_t].
BruteForce brute_force(const Arrays& xs) {
    const std::vector<double> cost = to_doubles(xs[0]);
    std::vector<std::vector<double>> x;
    for (size_t t = 0; t < kBatches.size(); ++t) x.push_back(to_doubles(xs[1 + t]));
    BruteForce r;
    for (int64_t b = 0; b < static_cast<int64_t>(kLengths.size()); ++b) {
        const int64_t len = kLengths[b];
        const auto score = [&](const std::vector<int64_t>& y) {
            double s = 0;
            for (int64_t t = 0; t < len; ++t) {
                s += x[t][b * kK + y[t]];
                if (t > 0) s += cost[y[t - 1] * kK + y[t]];
            }
            return s;
        };
        double z = 0, best = -1e300;
        std::vector<int64_t> y(len, 0), best_y;
        for (int64_t code = 0; code < static_cast<int64_t>(std::pow(kK, len)); ++code) {
            for (int64_t t = 0, c = code; t < len; ++t, c /= kK) y[t] = c % kK;
            const double s = score(y);
            z += std::exp(s);
            if (s > best) best = s, best_y = y;
        }
        std::vector<int64_t> gold;
        for (int64_t t = 0; t < len; ++t) gold.push_back(static_cast<int64_t>(kLabels[t][b]));
        r.logz.push_back(std::log(z));
        r.gold.push_back(score(gold));
        r.best.push_back(best);
        r.best_path.push_back(best_y);
    }
    return r;
}

std::vector<InputSpec> crf_inputs(bool labels) {
    std::vector<InputSpec> in{{.shape = {kK, kK}}};
    for (const int64_t b : kBatches) in.push_back({.shape = {b, kK}, .values = distinct()});
    if (labels) {
        for (size_t t = 0; t < kBatches.size(); ++t) {
            const std::vector<double> y = kLabels[t];
            in.push_back(
                {.shape = {kBatches[t]}, .values = [=](int64_t, uint64_t) { return y; }, .dtype = Dtype::kInt32});
        }
    }
    return in;
}

Vars slice(const Vars& xs, size_t from, size_t n) { return Vars(xs.begin() + from, xs.begin() + from + n); }

}  // namespace

TEST_CASE("crf1d", "[functions][loss]") {
    const size_t steps = kBatches.size();
    for (const std::string reduce : {"mean", "no"}) {
        check_function({
            .name = "crf1d " + reduce,
            .inputs = crf_inputs(true),
            .func =
                [=](const Vars& xs) {
                    return Vars{F::crf1d(xs[0], slice(xs, 1, steps), slice(xs, 1 + steps, steps), reduce)};
                },
            .reference =
                [=](const Arrays& xs) {
                    const BruteForce r = brute_force(xs);
                    std::vector<double> loss;
                    double total = 0;
                    for (size_t b = 0; b < r.logz.size(); ++b)
                        loss.push_back(r.logz[b] - r.gold[b]), total += loss.back();
                    const int64_t n = static_cast<int64_t>(loss.size());
                    return Arrays{reduce == "mean" ? f64({total / static_cast<double>(n)}, {}) : f64(loss, {n})};
                },
        });
    }
}

TEST_CASE("argmax_crf1d: score", "[functions][loss]") {
    check_function({
        .name = "argmax_crf1d",
        .inputs = crf_inputs(false),
        .func = [](const Vars& xs) { return Vars{F::argmax_crf1d(xs[0], slice(xs, 1, kBatches.size())).first}; },
        .reference =
            [](const Arrays& xs) {
                const BruteForce r = brute_force(xs);
                return Arrays{f64(r.best, {static_cast<int64_t>(r.best.size())})};
            },
        .dtypes = {Dtype::kFloat32, Dtype::kFloat64},  // float16 rounding may tie two paths
        .double_backward = false,
    });
}

TEST_CASE("argmax_crf1d: path", "[functions][loss]") {
    // Uniform values (distinct() spreads values evenly, so two paths could tie exactly).
    seed(3);
    Arrays in;
    Vars xs;
    for (const InputSpec& spec : crf_inputs(false)) {
        in.push_back(ops::uniform(spec.shape, -2.0, 2.0, Dtype::kFloat64));
        xs.push_back(Variable(in.back()));
    }
    const BruteForce r = brute_force(in);
    const auto [score, path] = F::argmax_crf1d(xs[0], slice(xs, 1, kBatches.size()));
    REQUIRE(path.size() == kBatches.size());
    for (size_t t = 0; t < path.size(); ++t) {
        REQUIRE(path[t].shape() == Shape{kBatches[t]});
        const std::vector<int64_t> p = path[t].to_vector<int64_t>();
        for (int64_t b = 0; b < kBatches[t]; ++b) CHECK(p[b] == r.best_path[b][t]);
    }
    const std::vector<double> s = score.array().to_vector<double>();
    for (size_t b = 0; b < r.best.size(); ++b) CHECK(s[b] == Approx(r.best[b]));
}

TEST_CASE("crf1d: errors", "[functions][loss]") {
    const Variable cost(ops::zeros({3, 3}));
    const Vars xs{Variable(ops::zeros({2, 3})), Variable(ops::zeros({2, 3}))};
    const Vars ys{Variable(ops::zeros({2}, Dtype::kInt32)), Variable(ops::zeros({2}, Dtype::kInt32))};
    CHECK_THROWS_WITH(F::crf1d(cost, xs, ys, "sum"), Catch::Contains("crf1d: only 'mean' and 'no' are valid"));
    CHECK_THROWS_WITH(F::crf1d(Variable(ops::zeros({3, 2})), xs, ys),
                      Catch::Contains("crf1d: Expect: cost.shape[0] == cost.shape[1]"));
    CHECK_THROWS_WITH(F::crf1d(cost, {xs[0], Variable(ops::zeros({3, 3}))}, ys),
                      Catch::Contains("sorted by decreasing length"));
    CHECK_THROWS_WITH(F::crf1d(cost, xs, {ys[0]}), Catch::Contains("crf1d: Expect: len(xs) == len(ys)"));
    CHECK_THROWS_AS(F::crf1d(cost, xs, {ys[0], Variable(ops::zeros({2}))}), DtypeError);
    CHECK_THROWS_AS(F::crf1d(cost, {Variable(ops::zeros({2, 4}))}, {ys[0]}), DimensionError);
    CHECK_THROWS_WITH(F::crf1d(cost, xs, {ys[0], Variable(ops::full({2}, 5, Dtype::kInt32))}),
                      Catch::Contains("select_item: t[0] = 5 is out of range"));
    CHECK_THROWS_WITH(F::argmax_crf1d(cost, {}), Catch::Contains("argmax_crf1d: Expect: len(xs) > 0"));
}
