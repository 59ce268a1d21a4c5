// connectionist_temporal_classification: the loss against a brute-force sum over every
// alignment (tiny T and V), gradients (no double backprop, as Chainer), lengths, errors.

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "core/ops/creation.h"
#include "functions/loss.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

constexpr int64_t kT = 3, kB = 2, kV = 3, kL = 2, kBlank = 0;

// -log sum over all alignments of length input_length[b] that collapse to t[b, :label_length[b]].
Array ctc_reference(const Arrays& xs, bool mean) {
    std::vector<std::vector<double>> x;
    for (int64_t t = 0; t < kT; ++t) x.push_back(to_doubles(xs[static_cast<size_t>(t)]));
    const std::vector<double> labels = to_doubles(xs[kT]), in_len = to_doubles(xs[kT + 1]),
                              lab_len = to_doubles(xs[kT + 2]);
    std::vector<double> loss;
    for (int64_t b = 0; b < kB; ++b) {
        const int64_t tb = static_cast<int64_t>(in_len[static_cast<size_t>(b)]);
        const std::vector<double> target(
            labels.begin() + b * kL, labels.begin() + b * kL + static_cast<int64_t>(lab_len[static_cast<size_t>(b)]));
        double total = 0;
        int64_t paths = 1;
        for (int64_t t = 0; t < tb; ++t) paths *= kV;
        for (int64_t code = 0; code < paths; ++code) {
            std::vector<double> collapsed;
            double prob = 1;
            int64_t prev = -1;
            for (int64_t t = 0, c = code; t < tb; ++t, c /= kV) {
                const int64_t v = c % kV;
                const double* row = x[static_cast<size_t>(t)].data() + b * kV;
                double z = 0;
                for (int64_t u = 0; u < kV; ++u) z += std::exp(row[u]);
                prob *= std::exp(row[v]) / z;
                if (v != kBlank && v != prev) collapsed.push_back(static_cast<double>(v));
                prev = v;
            }
            if (collapsed == target) total += prob;
        }
        loss.push_back(-std::log(total));
    }
    if (!mean) return f64(loss, {kB});
    return f64({(loss[0] + loss[1]) / 2}, {});
}

InputSpec fixed_ints(const Shape& shape, std::vector<double> values) {
    return {.shape = shape, .values = [=](int64_t, uint64_t) { return values; }, .dtype = Dtype::kInt32};
}

}  // namespace

TEST_CASE("connectionist_temporal_classification", "[functions][loss]") {
    struct Case {
        std::vector<double> labels, input_length, label_length;
        std::string reduce;
    };
    // The second sequence of the first case repeats a label: with T = 3 only 2, blank, 2 fits.
    for (const Case& c : {Case{{1, 2, 2, 2}, {3, 3}, {2, 2}, "mean"}, Case{{1, 2, 2, -1}, {3, 2}, {2, 1}, "no"},
                          Case{{1, 1, 2, 1}, {2, 3}, {1, 2}, "mean"}}) {
        const bool mean = c.reduce == "mean";
        check_function({
            .name = "connectionist_temporal_classification " + c.reduce,
            .inputs = {{.shape = {kB, kV}, .low = -2, .high = 2},
                       {.shape = {kB, kV}, .low = -2, .high = 2},
                       {.shape = {kB, kV}, .low = -2, .high = 2},
                       fixed_ints({kB, kL}, c.labels),
                       fixed_ints({kB}, c.input_length),
                       fixed_ints({kB}, c.label_length)},
            .func =
                [=](const Vars& xs) {
                    return Vars{F::connectionist_temporal_classification(
                        {xs[0], xs[1], xs[2]}, xs[3], kBlank,
                        {.input_length = xs[4], .label_length = xs[5], .reduce = c.reduce})};
                },
            .reference = [=](const Arrays& xs) { return Arrays{ctc_reference(xs, mean)}; },
            .double_backward = false,
        });
    }
}

TEST_CASE("connectionist_temporal_classification: default lengths", "[functions][loss]") {
    const std::vector<double> x = {0.1, -0.3, 0.5, 0.2, 0.0, -0.1, 0.4, 0.3, -0.2,
                                   0.6, -0.5, 0.1, 0.2, 0.1, -0.4, 0.3, 0.2, 0.0};
    std::vector<Variable> xs;
    for (int64_t t = 0; t < kT; ++t) {
        xs.emplace_back(f64(std::vector<double>(x.begin() + t * 6, x.begin() + t * 6 + 6), {kB, kV}));
    }
    const Array labels = Array::from_vector<int32_t>({1, 2, 2, 1}, {kB, kL});
    const Array lengths_t = Array::from_vector<int32_t>({3, 3}, {kB});
    const Array lengths_l = Array::from_vector<int32_t>({2, 2}, {kB});
    Arrays ref_in;
    for (const Variable& v : xs) ref_in.push_back(v.array());
    ref_in.push_back(labels);
    ref_in.push_back(lengths_t);
    ref_in.push_back(lengths_l);
    const Variable loss = F::connectionist_temporal_classification(xs, Variable(labels, false), kBlank);
    check_allclose(loss.array(), ctc_reference(ref_in, true), Tolerance{1e-12, 1e-10});
    loss.backward();
    for (const Variable& v : xs) CHECK(v.grad().defined());
}

TEST_CASE("connectionist_temporal_classification: errors", "[functions][loss]") {
    const std::vector<Variable> xs{Variable(ops::zeros({2, 3})), Variable(ops::zeros({2, 3}))};
    const Variable t(Array::from_vector<int32_t>({1, 2, 2, 1}, {2, 2}), false);
    constexpr auto ctc = F::connectionist_temporal_classification;
    CHECK_THROWS_WITH(ctc(xs, t, 0, {.reduce = "sum"}), Catch::Contains("only 'mean' and 'no' are valid"));
    CHECK_THROWS_AS(ctc(xs, t, 3, {}), ValueError);
    CHECK_THROWS_AS(ctc({}, t, 0, {}), ValueError);
    CHECK_THROWS_WITH(ctc(xs, Variable(Array::from_vector<int32_t>({1, 2, 3, 1}, {2, 2})), 0, {}),
                      Catch::Contains("t[1, 0] is 3"));
    CHECK_THROWS_AS(ctc(xs, Variable(Array::from_vector<int32_t>({1, 0, 2, 1}, {2, 2})), 0, {}), ValueError);
    CHECK_THROWS_AS(ctc(xs, t, 0, {.input_length = Variable(Array::from_vector<int32_t>({3, 2}, {2}))}), ValueError);
    CHECK_THROWS_AS(ctc(xs, Variable(ops::zeros({2, 2})), 0, {}), DtypeError);
    CHECK_THROWS_AS(ctc({xs[0], Variable(ops::zeros({3, 3}))}, t, 0, {}), DimensionError);
}

TEST_CASE("connectionist_temporal_classification: impossible alignments stay finite", "[functions][loss]") {
    // "2 2" needs three frames (2, blank, 2); two are given. An empty label over zero frames costs 0.
    const std::vector<Variable> xs{Variable(ops::zeros({2, 3}, Dtype::kFloat64)),
                                   Variable(ops::zeros({2, 3}, Dtype::kFloat64))};
    const Variable t(Array::from_vector<int32_t>({2, 2, 1, 1}, {2, 2}), false);
    const Variable loss = F::connectionist_temporal_classification(
        xs, t, 0,
        {.input_length = Variable(Array::from_vector<int32_t>({2, 0}, {2}), false),
         .label_length = Variable(Array::from_vector<int32_t>({2, 0}, {2}), false),
         .reduce = "no"});
    const std::vector<double> l = loss.array().to_vector<double>();
    CHECK(l[0] > 1e9);
    CHECK(l[1] == 0.0);
    rensa::backward({loss}, {Variable(ops::ones({2}, Dtype::kFloat64), false)});
    for (const Variable& x : xs) {
        for (const double g : x.grad().to_vector<double>()) CHECK(std::isfinite(g));
    }
}
