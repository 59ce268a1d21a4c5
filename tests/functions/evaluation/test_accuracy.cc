// accuracy and binary_accuracy against references computed here; no gradients.

#include <catch2/catch.hpp>
#include <cmath>
#include <optional>

#include "core/ops/creation.h"
#include "functions/evaluation.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// y (n, c, rest...) and t (n, rest...): fraction of first-argmax == t over kept positions.
double accuracy_ref(const Array& y, const Array& t, std::optional<int64_t> ignore) {
    const std::vector<double> yv = to_doubles(y), tv = to_doubles(t);
    const int64_t n = y.shape()[0], c = y.shape()[1], rest = n == 0 ? 0 : static_cast<int64_t>(tv.size()) / n;
    double count = 0, total = 0;
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t r = 0; r < rest; ++r) {
            const double label = tv[static_cast<size_t>(i * rest + r)];
            if (ignore && label == static_cast<double>(*ignore)) continue;
            int64_t best = 0;
            for (int64_t k = 1; k < c; ++k) {
                if (yv[static_cast<size_t>((i * c + k) * rest + r)] >
                    yv[static_cast<size_t>((i * c + best) * rest + r)])
                    best = k;
            }
            count += static_cast<double>(best) == label;
            total += 1;
        }
    }
    return ignore && total == 0 ? 0.0 : count / total;
}

}  // namespace

TEST_CASE("accuracy", "[functions][evaluation]") {
    for (const auto& [y_shape, t_shape] : {std::pair{Shape{6, 4}, Shape{6}}, std::pair{Shape{3, 4, 2}, Shape{3, 2}},
                                           std::pair{Shape{3, 4, 2, 1}, Shape{3, 2}}}) {
        for (const std::optional<int64_t> ignore : {std::optional<int64_t>{}, std::optional<int64_t>{-1}}) {
            check_function({
                .name = "accuracy",
                .inputs = {{.shape = y_shape, .values = distinct()},
                           {.shape = t_shape, .values = integers(ignore ? -1 : 0, 4), .dtype = Dtype::kInt32}},
                .func = [ignore](const Vars& xs) { return Vars{F::accuracy(xs[0], xs[1], ignore)}; },
                .reference =
                    [ignore](const Arrays& xs) { return Arrays{f64({accuracy_ref(xs[0], xs[1], ignore)}, {})}; },
                .backward = false,
                .double_backward = false,
            });
        }
    }
}

TEST_CASE("accuracy: known values, ignore_label, errors", "[functions][evaluation]") {
    const Variable y(Array::from_vector<float>({0.1f, 0.9f, 0.8f, 0.2f, 0.3f, 0.7f}, {3, 2}));
    const Variable t(Array::from_vector<int32_t>({1, 1, 0}, {3}));
    const Variable acc = F::accuracy(y, t);
    CHECK(acc.item() == Approx(1.0 / 3));
    CHECK(acc.ndim() == 0);
    CHECK(acc.dtype() == Dtype::kFloat32);
    CHECK(!acc.requires_grad());
    CHECK(F::accuracy(y, t, 1).item() == 0.0);  // label 1 ignored: row 2 (t 0, predicted 1) is left
    const Variable all_ignored(Array::from_vector<int32_t>({-1, -1, -1}, {3}));
    CHECK(F::accuracy(y, all_ignored, -1).item() == 0.0);
    CHECK_THROWS_AS(F::accuracy(y, Variable(ops::zeros({3}))), DtypeError);
    CHECK_THROWS_AS(F::accuracy(y, Variable(ops::zeros({2}, Dtype::kInt32))), DimensionError);
    CHECK_THROWS_WITH(F::accuracy(Variable(ops::zeros({3, 2, 2})), t), Catch::Contains("y.shape[2:] == t.shape[1:]"));
    CHECK_THROWS_AS(F::accuracy(Variable(ops::zeros({3}, Dtype::kInt32)), t), DtypeError);
}

TEST_CASE("binary_accuracy", "[functions][evaluation]") {
    check_function({
        .name = "binary_accuracy",
        .inputs = {{.shape = {4, 3}, .values = away_from({0.0})},
                   {.shape = {4, 3}, .values = integers(-1, 2), .dtype = Dtype::kInt32}},
        .func = [](const Vars& xs) { return Vars{F::binary_accuracy(xs[0], xs[1])}; },
        .reference =
            [](const Arrays& xs) {
                const std::vector<double> y = to_doubles(xs[0]), t = to_doubles(xs[1]);
                double count = 0, total = 0;
                for (size_t i = 0; i < y.size(); ++i) {
                    if (t[i] == -1) continue;
                    total += 1;
                    count += (y[i] >= 0 ? 1.0 : 0.0) == t[i];
                }
                return Arrays{f64({count / std::max(total, 1.0)}, {})};
            },
        .backward = false,
        .double_backward = false,
    });
    const Variable y(Array::from_vector<double>({1.0, -1.0, 2.0}, {3}));
    CHECK(F::binary_accuracy(y, Variable(Array::from_vector<int32_t>({-1, -1, -1}, {3}))).item() == 0.0);
    CHECK(F::binary_accuracy(y, Variable(Array::from_vector<int32_t>({1, 0, -1}, {3}))).item() == 1.0);
    CHECK_THROWS_AS(F::binary_accuracy(y, Variable(ops::zeros({2}, Dtype::kInt32))), DimensionError);
    CHECK_THROWS_AS(F::binary_accuracy(y, Variable(ops::zeros({3}, Dtype::kFloat64))), DtypeError);
}
