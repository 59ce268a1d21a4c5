#pragma once
// CRF1d (chainer.links.CRF1d): a linear-chain CRF with a learned transition cost (n_label,
// n_label), Chainer 7's interface: forward and argmax take time-major inputs (xs[t] of shape
// (B_t, n_label), B_t non-increasing) or, with transpose, a list of sequences in any order.

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "autograd/variable.h"
#include "links/initializers.h"
#include "links/link.h"

namespace rensa::links {

class CRF1d : public Cloneable<CRF1d> {
public:
    // initial_cost: null for zeros (Chainer's default).
    explicit CRF1d(int64_t n_label, initializers::InitializerPtr initial_cost = nullptr, Dtype dtype = Dtype::kFloat32);

    using Link::forward;
    // F::crf1d of the cost, xs and integer labels ys. With transpose, xs[i] (L_i, n_label)
    // and ys[i] (L_i,) are sequences in any order: they are sorted by decreasing length
    // (stable) and transposed first, so reduce "no" gives the losses in sorted order, as
    // Chainer does.
    Variable forward(const std::vector<Variable>& xs, const std::vector<Variable>& ys, std::string_view reduce = "mean",
                     bool transpose = false);
    // F::argmax_crf1d; with transpose the path comes back per sequence, in the given order
    // (path[i] of shape (L_i,)), while the scores stay in sorted order (Chainer's).
    std::pair<Variable, std::vector<Array>> argmax(const std::vector<Variable>& xs, bool transpose = false);

    Parameter cost;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
