// classification_summary and its views (precision, recall, fbeta_score, f1_score). The
// counting runs on the host: it needs the labels' values for checks anyway, and the
// results have only label_num elements.

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/ops/reduction.h"
#include "functions/evaluation.h"
#include "functions/evaluation/detail.h"

namespace rensa::functions {
namespace {

struct Counts {
    std::vector<double> tp, relevant, support;
};

Counts count_classes(const std::vector<int64_t>& pred, const std::vector<int64_t>& labels, int64_t label_num,
                     int64_t ignore_label) {
    const auto n = static_cast<size_t>(label_num);
    Counts c{std::vector<double>(n), std::vector<double>(n), std::vector<double>(n)};
    for (size_t k = 0; k < labels.size(); ++k) {
        const int64_t t = labels[k];
        if (t == ignore_label) continue;
        RENSA_CHECK(t >= 0 && t < label_num, ValueError, "classification_summary: label ", t, " at position ", k,
                    " (flattened t) is outside [0, ", label_num, ") and is not ignore_label (", ignore_label, ")");
        c.support[static_cast<size_t>(t)] += 1;
        if (pred[k] < label_num) c.relevant[static_cast<size_t>(pred[k])] += 1;
        if (pred[k] == t) c.tp[static_cast<size_t>(t)] += 1;
    }
    return c;
}

Variable host_result(const std::vector<double>& values, Dtype dtype, Device device) {
    const Array a = Array::from_vector(values, {static_cast<int64_t>(values.size())}, device);
    return Variable(a.astype(dtype, false), false);
}

}  // namespace

std::tuple<Variable, Variable, Variable, Variable> classification_summary(const Variable& y, const Variable& t,
                                                                          std::optional<int64_t> label_num, double beta,
                                                                          int64_t ignore_label) {
    evaluation_detail::check_scores_labels("classification_summary", y, t);
    evaluation_detail::check_class_shapes("classification_summary", y, t, false);
    const std::vector<int64_t> labels = t.array().to_vector<int64_t>();
    const std::vector<int64_t> pred = ops::argmax(y.array(), 1).to_vector<int64_t>();
    if (!label_num) label_num = labels.empty() ? 0 : *std::max_element(labels.begin(), labels.end()) + 1;
    RENSA_CHECK(*label_num >= 0, ValueError, "classification_summary: label_num must be non-negative, got ",
                *label_num);
    const Counts c = count_classes(pred, labels, *label_num, ignore_label);
    std::vector<double> precision(c.tp.size()), recall(c.tp.size()), fbeta(c.tp.size());
    const double beta2 = beta * beta;
    for (size_t k = 0; k < c.tp.size(); ++k) {
        precision[k] = c.tp[k] / c.relevant[k];  // 0 / 0 is NaN, as numpy's division
        recall[k] = c.tp[k] / c.support[k];
        fbeta[k] = (1 + beta2) * precision[k] * recall[k] / (beta2 * precision[k] + recall[k]);
    }
    const Device device = y.device();
    return {host_result(precision, Dtype::kFloat64, device), host_result(recall, Dtype::kFloat64, device),
            host_result(fbeta, Dtype::kFloat64, device), host_result(c.support, Dtype::kInt64, device)};
}

std::pair<Variable, Variable> precision(const Variable& y, const Variable& t, std::optional<int64_t> label_num,
                                        int64_t ignore_label) {
    auto [p, r, f, support] = classification_summary(y, t, label_num, 1.0, ignore_label);
    return {p, support};
}

std::pair<Variable, Variable> recall(const Variable& y, const Variable& t, std::optional<int64_t> label_num,
                                     int64_t ignore_label) {
    auto [p, r, f, support] = classification_summary(y, t, label_num, 1.0, ignore_label);
    return {r, support};
}

std::pair<Variable, Variable> fbeta_score(const Variable& y, const Variable& t, std::optional<int64_t> label_num,
                                          double beta, int64_t ignore_label) {
    auto [p, r, f, support] = classification_summary(y, t, label_num, beta, ignore_label);
    return {f, support};
}

std::pair<Variable, Variable> f1_score(const Variable& y, const Variable& t, std::optional<int64_t> label_num,
                                       int64_t ignore_label) {
    return fbeta_score(y, t, label_num, 1.0, ignore_label);
}

}  // namespace rensa::functions
