#pragma once
// StatefulPeepholeLSTM (chainer.links.StatefulPeepholeLSTM): an LSTM whose input, forget and
// output gates also see the cell state. Children as Chainer's (NPZ keys upward/W, upward/b,
// lateral/W, peep_i/W, peep_f/W, peep_o/W):
//   a, i, f, o = gates(upward(x) + lateral(h)), i += peep_i(c), f += peep_f(c),
//   c = tanh(a) sigmoid(i) + sigmoid(f) c, h = sigmoid(o + peep_o(c)) tanh(c).

#include <cstdint>
#include <memory>
#include <optional>

#include "links/chain.h"
#include "links/connection/linear.h"

namespace rensa::links {

class StatefulPeepholeLSTM : public Cloneable<StatefulPeepholeLSTM, Chain> {
public:
    std::shared_ptr<Linear> upward, lateral, peep_i, peep_f, peep_o;
    // The state: undefined (None) until the first call; c starts as zeros of x's dtype, h as
    // nothing (no lateral term). Not serialized.
    Variable c, h;

    // in_size nullopt: upward learns it from the first x. ValueError when out_size < 1.
    StatefulPeepholeLSTM(std::optional<int64_t> in_size, int64_t out_size);

    using Link::forward;
    // Updates c and h from x (batch, in_size) and returns h.
    Variable forward(const Variable& x) override;
    void reset_state() { c = h = Variable(); }
    int64_t state_size() const { return state_size_; }

private:
    int64_t state_size_;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
