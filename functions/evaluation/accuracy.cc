// accuracy and binary_accuracy, computed on the device with core/ops (no host copy).

#include "autograd/check.h"
#include "core/ops/elementwise.h"
#include "core/ops/reduction.h"
#include "functions/evaluation.h"
#include "functions/evaluation/detail.h"

namespace rensa::functions {

Variable accuracy(const Variable& y, const Variable& t, std::optional<int64_t> ignore_label) {
    evaluation_detail::check_scores_labels("accuracy", y, t);
    evaluation_detail::check_class_shapes("accuracy", y, t, true);
    const Array labels = t.array().astype(Dtype::kInt64, false);
    const Array correct = ops::equal(ops::argmax(y.array(), 1).reshape(t.shape()), labels);
    if (!ignore_label) {
        const Array count = ops::sum(correct).astype(Dtype::kFloat64);
        return Variable(ops::divide(count, static_cast<double>(t.size())).astype(y.dtype()), false);
    }
    const Array kept = ops::not_equal(labels, *ignore_label);
    const Array count = ops::sum(ops::logical_and(correct, kept));
    const Array total = ops::maximum(ops::sum(kept), 1);  // all ignored: count is 0, so 0
    return Variable(ops::divide(count, total).astype(y.dtype()), false);
}

Variable binary_accuracy(const Variable& y, const Variable& t) {
    evaluation_detail::check_scores_labels("binary_accuracy", y, t);
    expect_same_shape(y, t, "binary_accuracy", "y", "t");
    const Array labels = t.array().astype(Dtype::kInt64, false);
    const Array predicted = ops::greater_equal(y.array(), 0).astype(Dtype::kInt64);
    const Array count = ops::sum(ops::equal(predicted, labels));  // t == -1 never matches
    const Array total = ops::maximum(ops::sum(ops::not_equal(labels, -1)), 1);
    return Variable(ops::divide(count, total).astype(y.dtype()), false);
}

}  // namespace rensa::functions
