// precision, recall and f1_score through the declarative harness: every float dtype and
// layout of the scores against a naive float64 count (labels include ignored ones).

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "functions/evaluation.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

constexpr int64_t kClasses = 3;

// {precision, recall, f1, support} per class from argmax predictions, skipping t == -1.
std::vector<std::vector<double>> summary(const Array& y, const Array& t) {
    const std::vector<double> yv = to_doubles(y), tv = to_doubles(t);
    std::vector<double> tp(kClasses), predicted(kClasses), support(kClasses);
    for (size_t i = 0; i < tv.size(); ++i) {
        if (tv[i] == -1) continue;
        size_t best = 0;
        for (size_t c = 1; c < kClasses; ++c) {
            if (yv[i * kClasses + c] > yv[i * kClasses + best]) best = c;
        }
        predicted[best] += 1;
        support[static_cast<size_t>(tv[i])] += 1;
        if (static_cast<double>(best) == tv[i]) tp[best] += 1;
    }
    std::vector<std::vector<double>> out(4, std::vector<double>(kClasses));
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (size_t c = 0; c < kClasses; ++c) {
        const double p = predicted[c] > 0 ? tp[c] / predicted[c] : nan;
        const double r = support[c] > 0 ? tp[c] / support[c] : nan;
        out[0][c] = p;
        out[1][c] = r;
        out[2][c] = 2 * p * r / (p + r);
        out[3][c] = support[c];
    }
    return out;
}

void check_metric(const char* name, int which,
                  const std::function<std::pair<Variable, Variable>(const Variable&, const Variable&)>& metric) {
    check_function({
        .name = name,
        .inputs = {{.shape = {12, kClasses}, .values = distinct()},
                   {.shape = {12}, .values = integers(-1, kClasses), .dtype = Dtype::kInt32}},
        .func =
            [metric](const Vars& xs) {
                const auto [value, support] = metric(xs[0], xs[1]);
                return Vars{value, support};
            },
        .reference =
            [which](const Arrays& xs) {
                const auto s = summary(xs[0], xs[1]);
                return Arrays{f64(s[static_cast<size_t>(which)], {kClasses}), f64(s[3], {kClasses})};
            },
        .backward = false,
        .double_backward = false,
    });
}

}  // namespace

TEST_CASE("precision, recall, f1_score: harness against naive counts", "[functions][evaluation]") {
    check_metric("precision", 0, [](const Variable& y, const Variable& t) { return F::precision(y, t, kClasses); });
    check_metric("recall", 1, [](const Variable& y, const Variable& t) { return F::recall(y, t, kClasses); });
    check_metric("f1_score", 2, [](const Variable& y, const Variable& t) { return F::f1_score(y, t, kClasses); });
}
