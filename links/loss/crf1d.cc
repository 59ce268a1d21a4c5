#include "links/loss/crf1d.h"

#include <algorithm>
#include <numeric>

#include "core/error.h"
#include "core/ops/manipulation.h"
#include "functions/array.h"
#include "functions/loss.h"

namespace rensa::links {
namespace {

// Indices of the sequences by decreasing length; equal lengths keep their order.
std::vector<size_t> order_by_length(const std::vector<Variable>& xs) {
    std::vector<size_t> order(xs.size());
    std::iota(order.begin(), order.end(), 0);
    for (const Variable& x : xs) {
        RENSA_CHECK(x.defined() && x.ndim() >= 1, DimensionError, "CRF1d: every sequence needs a time axis");
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return xs[a].shape()[0] > xs[b].shape()[0]; });
    return order;
}

template <class T>
std::vector<T> permuted(const std::vector<T>& items, const std::vector<size_t>& order) {
    std::vector<T> out;
    for (const size_t i : order) out.push_back(items[i]);
    return out;
}

// Time-major arrays of sequences sorted by decreasing length (transpose_sequence on arrays).
std::vector<Array> transpose_arrays(const std::vector<Array>& seqs) {
    std::vector<Array> out;
    const int64_t steps = seqs.empty() ? 0 : seqs[0].shape()[0];
    for (int64_t t = 0; t < steps; ++t) {
        std::vector<Array> rows;
        for (const Array& s : seqs) {
            if (s.shape()[0] > t) rows.push_back(s.index({Slice{t, t + 1}}));
        }
        out.push_back(ops::concatenate(rows, 0));
    }
    return out;
}

}  // namespace

CRF1d::CRF1d(int64_t n_label, initializers::InitializerPtr initial_cost, Dtype dtype) {
    RENSA_CHECK(n_label > 0, ValueError, "CRF1d: n_label must be positive, got ", n_label);
    if (!initial_cost) initial_cost = initializers::constant(0);
    register_param("cost", &CRF1d::cost, Parameter(initial_cost, Shape{n_label, n_label}, dtype));
}

Variable CRF1d::forward(const std::vector<Variable>& xs, const std::vector<Variable>& ys, std::string_view reduce,
                        bool transpose) {
    if (!transpose) return F::crf1d(cost, xs, ys, reduce);
    RENSA_CHECK(xs.size() == ys.size(), DimensionError, "CRF1d: Expect: len(xs) == len(ys), Actual: ", xs.size(),
                " != ", ys.size());
    const std::vector<size_t> order = order_by_length(xs);
    std::vector<Array> labels;
    for (const Variable& y : permuted(ys, order)) labels.push_back(y.array());
    std::vector<Variable> trans_y;
    for (const Array& y : transpose_arrays(labels)) trans_y.push_back(Variable(y, false));
    return F::crf1d(cost, F::transpose_sequence(permuted(xs, order)), trans_y, reduce);
}

std::pair<Variable, std::vector<Array>> CRF1d::argmax(const std::vector<Variable>& xs, bool transpose) {
    if (!transpose) return F::argmax_crf1d(cost, xs);
    const std::vector<size_t> order = order_by_length(xs);
    auto [score, path] = F::argmax_crf1d(cost, F::transpose_sequence(permuted(xs, order)));
    const std::vector<Array> per_sequence = transpose_arrays(path);  // sorted order
    std::vector<Array> out(xs.size());
    for (size_t i = 0; i < order.size(); ++i) out[order[i]] = per_sequence[i];
    return {score, out};
}

}  // namespace rensa::links
