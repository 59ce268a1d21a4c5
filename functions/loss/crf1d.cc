// crf1d and argmax_crf1d: Chainer's forward algorithm and Viterbi decoding over sequences
// sorted by decreasing length (xs[t] of shape (B_t, K), B_t non-increasing), composed of
// differentiable functions; the Viterbi back pointers stay on the device.

#include <algorithm>
#include <utility>
#include <vector>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/indexing.h"
#include "core/ops/manipulation.h"
#include "core/ops/reduction.h"
#include "functions/array.h"
#include "functions/connection.h"
#include "functions/loss.h"
#include "functions/loss/detail.h"
#include "functions/math.h"

namespace rensa::functions {
namespace {

void check_inputs(std::string_view function, const Variable& cost, const std::vector<Variable>& xs) {
    expect_float(cost, function, "cost");
    expect_ndim(cost, 2, function, "cost");
    const int64_t k = cost.shape()[0];
    RENSA_CHECK(cost.shape()[1] == k, DimensionError, function,
                ": Expect: cost.shape[0] == cost.shape[1], Actual: ", cost.shape());
    RENSA_CHECK(!xs.empty(), ValueError, function, ": Expect: len(xs) > 0, Actual: 0");
    for (size_t t = 0; t < xs.size(); ++t) {
        expect_same_dtype(cost, xs[t], function, "cost", "xs[i]");
        expect_ndim(xs[t], 2, function, "xs[i]");
        RENSA_CHECK(xs[t].shape()[1] == k, DimensionError, function, ": Expect: xs[", t,
                    "].shape[1] == cost.shape[0], Actual: ", xs[t].shape()[1], " != ", k);
        RENSA_CHECK(t == 0 || xs[t].shape()[0] <= xs[t - 1].shape()[0], DimensionError, function, ": Expect: xs[", t,
                    "].shape[0] <= xs[", t - 1,
                    "].shape[0] (sequences sorted by decreasing length), Actual: ", xs[t].shape()[0], " > ",
                    xs[t - 1].shape()[0]);
    }
}

void check_labels(const std::vector<Variable>& xs, const std::vector<Variable>& ys) {
    RENSA_CHECK(xs.size() == ys.size(), DimensionError, "crf1d: Expect: len(xs) == len(ys), Actual: ", xs.size(),
                " != ", ys.size());
    for (size_t t = 0; t < ys.size(); ++t) {
        expect_integer(ys[t], "crf1d", "ys[i]");
        expect_shape(ys[t], Shape{xs[t].shape()[0]}, "crf1d", "ys[i]");
    }
}

// The first `batch` rows of x and the rest (undefined when nothing is left).
std::pair<Variable, Variable> split_rows(const Variable& x, int64_t batch) {
    if (x.shape()[0] <= batch) return {x, Variable()};
    std::vector<Variable> parts = split_axis(x, std::vector<int64_t>{batch}, 0);
    return {parts[0], parts[1]};
}

// The rows that finished earlier (`rest`, latest first) below the current ones.
Variable join_finished(const Variable& current, std::vector<Variable> rest) {
    if (rest.empty()) return current;
    rest.push_back(current);
    std::reverse(rest.begin(), rest.end());
    return concat(rest, 0);
}

}  // namespace

Variable crf1d(const Variable& cost, const std::vector<Variable>& xs, const std::vector<Variable>& ys,
               std::string_view reduce) {
    detail::check_loss_reduce("crf1d", reduce, {"mean", "no"});
    check_inputs("crf1d", cost, xs);
    check_labels(xs, ys);
    const int64_t k = cost.shape()[0], n_batch = xs[0].shape()[0];
    Variable alpha = xs[0];
    std::vector<Variable> alphas;
    for (size_t t = 1; t < xs.size(); ++t) {
        const int64_t batch = xs[t].shape()[0];
        auto [head, rest] = split_rows(alpha, batch);
        if (rest.defined()) alphas.push_back(rest);
        alpha = logsumexp(reshape(head, {batch, k, 1}) + cost, 1) + xs[t];
    }
    const Variable logz = logsumexp(join_finished(alpha, alphas), 1);

    const Variable flat_cost = reshape(cost, {k * k, 1});
    Variable score = select_item(xs[0], ys[0]);
    std::vector<Variable> scores;
    for (size_t t = 1; t < xs.size(); ++t) {
        const int64_t batch = xs[t].shape()[0];
        auto [head, rest] = split_rows(score, batch);
        if (rest.defined()) scores.push_back(rest);
        const Array y_prev = ys[t - 1].array().index({Slice{0, batch}});
        const Array transition = ops::add(ops::multiply(y_prev.astype(Dtype::kInt64), k), ys[t].array());
        score = head + select_item(xs[t], ys[t]) + reshape(embed_id(as_variable(transition), flat_cost), {batch});
    }
    const Variable loss = logz - join_finished(score, scores);
    return reduce == "mean" ? sum(loss) / static_cast<double>(n_batch) : loss;
}

std::pair<Variable, std::vector<Array>> argmax_crf1d(const Variable& cost, const std::vector<Variable>& xs) {
    check_inputs("argmax_crf1d", cost, xs);
    const int64_t k = cost.shape()[0];
    Variable alpha = xs[0];
    std::vector<Variable> alphas;  // per step: the rows that ended before it (undefined: none)
    std::vector<Array> max_inds;   // per step: the best previous label of each (row, label)
    for (size_t t = 1; t < xs.size(); ++t) {
        const int64_t batch = xs[t].shape()[0];
        auto [head, rest] = split_rows(alpha, batch);
        alphas.push_back(rest);
        const Variable scores = reshape(head, {batch, k, 1}) + cost;
        max_inds.push_back(ops::argmax(scores.array(), 1));
        alpha = max(scores, 1) + xs[t];
    }
    Array inds = ops::argmax(alpha.array(), 1);
    std::vector<Array> path{inds};
    for (size_t i = max_inds.size(); i-- > 0;) {
        const Array& m = max_inds[i];
        const int64_t batch = m.shape()[0];
        // m[row, inds[row]] as one gather over the flattened m.
        const Array rows = ops::arange(0, batch * k, k, Dtype::kInt64, m.device());
        inds = ops::take(m.reshape({-1}), ops::add(rows, inds.astype(Dtype::kInt64)));
        if (alphas[i].defined()) inds = ops::concatenate({inds, ops::argmax(alphas[i].array(), 1)}, 0);
        path.push_back(inds);
    }
    std::reverse(path.begin(), path.end());
    Variable score = max(alpha, 1);
    for (size_t i = alphas.size(); i-- > 0;) {
        if (alphas[i].defined()) score = concat({score, max(alphas[i], 1)}, 0);
    }
    return {score, path};
}

}  // namespace rensa::functions
