#pragma once
// Chainer's evaluation functions (F::accuracy, F::precision, ...). They are not
// differentiable: results are Variables that do not require grad. Scores y are floating
// point (DtypeError otherwise), labels t are integers (DtypeError otherwise).

#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <utility>

#include "autograd/variable.h"

namespace rensa::functions {

// Fraction of argmax(y, axis=1) == t: y (N, C, *rest[, 1...]), t (N, *rest). Positions
// where t == ignore_label are left out (0 when all are). A 0-d Variable of y's dtype.
[[nodiscard]] Variable accuracy(const Variable& y, const Variable& t,
                                std::optional<int64_t> ignore_label = std::nullopt);
// Fraction of (y >= 0) == t over positions with t != -1 (t in {-1, 0, 1}, y's shape).
// A 0-d Variable of y's dtype.
[[nodiscard]] Variable binary_accuracy(const Variable& y, const Variable& t);

// Chainer's classification_summary for y (N, C, *rest) and t (N, *rest): per class
// {precision, recall, fbeta_score (float64, (label_num,)), support (int64, (label_num,))}.
// label_num defaults to max(t) + 1; positions with t == ignore_label are left out; other
// labels outside [0, label_num) throw ValueError naming the label and its position.
// 0 / 0 gives NaN, as in Chainer.
[[nodiscard]] std::tuple<Variable, Variable, Variable, Variable> classification_summary(
    const Variable& y, const Variable& t, std::optional<int64_t> label_num = std::nullopt, double beta = 1.0,
    int64_t ignore_label = -1);
// {precision, support} of classification_summary.
[[nodiscard]] std::pair<Variable, Variable> precision(const Variable& y, const Variable& t,
                                                      std::optional<int64_t> label_num = std::nullopt,
                                                      int64_t ignore_label = -1);
// {recall, support} of classification_summary.
[[nodiscard]] std::pair<Variable, Variable> recall(const Variable& y, const Variable& t,
                                                   std::optional<int64_t> label_num = std::nullopt,
                                                   int64_t ignore_label = -1);
// {fbeta_score, support} of classification_summary.
[[nodiscard]] std::pair<Variable, Variable> fbeta_score(const Variable& y, const Variable& t,
                                                        std::optional<int64_t> label_num = std::nullopt,
                                                        double beta = 1.0, int64_t ignore_label = -1);
// fbeta_score with beta = 1.
[[nodiscard]] std::pair<Variable, Variable> f1_score(const Variable& y, const Variable& t,
                                                     std::optional<int64_t> label_num = std::nullopt,
                                                     int64_t ignore_label = -1);

// --- Chainer's r2_score (issue 21). The coefficient of determination 1 - SS_res / SS_tot of
// each output column (axis 0 is the sample axis; 0 where SS_tot == 0), pred and true of one
// floating-point dtype and shape, ndim >= 1. multioutput "uniform_average" (the mean, 0-d)
// or "raw_values" (pred.shape[1:]); any other value throws ValueError. sample_weight must
// be undefined (NotImplementedError, as in Chainer). Computed in float64, returned in
// pred's dtype; not differentiable.
[[nodiscard]] Variable r2_score(const Variable& pred, const Variable& true_values, const Variable& sample_weight = {},
                                std::string_view multioutput = "uniform_average");

}  // namespace rensa::functions

namespace F = rensa::functions;  // NOLINT(misc-unused-alias-decls)
