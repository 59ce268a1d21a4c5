#pragma once
// Chainer's tree LSTM links (chainer.links.ChildSumTreeLSTM, NaryTreeLSTM) over F::tree_lstm.
// Children as Chainer's, so NPZ keys agree: ChildSumTreeLSTM has W_x (in -> 4 units), W_h_aio
// (units -> 3 units, no bias) and W_h_f (units -> units, no bias); NaryTreeLSTM has W_x (in ->
// (3 + n) units) and W_h1 .. W_hn (units -> (3 + n) units, no bias).

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "links/chain.h"
#include "links/connection/linear.h"

namespace rensa::links {

// Child-sum tree LSTM: any number of children, whose h are summed for the a, i, o gates and
// each of which has its own forget gate.
class ChildSumTreeLSTM : public Cloneable<ChildSumTreeLSTM, Chain> {
public:
    std::shared_ptr<Linear> W_x, W_h_aio, W_h_f;  // NOLINT(readability-identifier-naming): Chainer's names

    // ValueError when out_size < 1 or in_size < 1.
    ChildSumTreeLSTM(int64_t in_size, int64_t out_size);

    using Link::forward;
    // Chainer's forward(*cs, *hs, x): the children's cell states and outputs (as many of each;
    // undefined ones are zeros) and x (undefined: zeros of (batch, in_size), the batch and dtype
    // taken from the first defined c or h). Returns {c, h}. ValueError when the counts differ or
    // everything is undefined.
    std::pair<Variable, Variable> forward(const std::vector<Variable>& cs, const std::vector<Variable>& hs,
                                          const Variable& x);
    int64_t in_size() const { return in_size_; }
    int64_t state_size() const { return state_size_; }

private:
    int64_t in_size_, state_size_;
};

// N-ary tree LSTM: exactly n_ary ordered children, each h with its own matrix W_h<k>.
class NaryTreeLSTM : public Cloneable<NaryTreeLSTM, Chain> {
public:
    std::shared_ptr<Linear> W_x;  // NOLINT(readability-identifier-naming): Chainer's name

    // ValueError when a size or n_ary < 1.
    NaryTreeLSTM(int64_t in_size, int64_t out_size, int64_t n_ary = 2);

    using Link::forward;
    // Chainer's forward(*cs, *hs, x) with n_ary of each (undefined ones are zeros / skipped; x as
    // ChildSumTreeLSTM's). Returns {c, h}. ValueError for other counts.
    std::pair<Variable, Variable> forward(const std::vector<Variable>& cs, const std::vector<Variable>& hs,
                                          const Variable& x);
    // The child W_h<k>, k in 1 .. n_ary.
    Linear& W_h(int64_t k);  // NOLINT(readability-identifier-naming)
    int64_t in_size() const { return in_size_; }
    int64_t state_size() const { return state_size_; }
    int64_t n_ary() const { return n_ary_; }

private:
    int64_t in_size_, state_size_, n_ary_;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
