#pragma once
// StatefulZoneoutLSTM (chainer.links.StatefulZoneoutLSTM): an LSTM whose new c and h keep
// each element of the previous state with probability c_ratio / h_ratio in training
// (zoneout). Children as Chainer's (NPZ keys upward/W, upward/b, lateral/W).

#include <cstdint>
#include <memory>
#include <optional>

#include "links/chain.h"
#include "links/connection/linear.h"

namespace rensa::links {

class StatefulZoneoutLSTM : public Cloneable<StatefulZoneoutLSTM, Chain> {
public:
    std::shared_ptr<Linear> upward, lateral;
    // The state: undefined (None) until the first call, then zeros of x's dtype. Not serialized.
    Variable c, h;

    // ValueError when out_size < 1 or a ratio is outside [0, 1].
    StatefulZoneoutLSTM(std::optional<int64_t> in_size, int64_t out_size, double c_ratio = 0.5, double h_ratio = 0.5);

    using Link::forward;
    // a, i, f, o = gates(upward(x) + lateral(h)); c_new = tanh(a) sigmoid(i) + sigmoid(f) c,
    // then (training) c = zoneout(c, c_new, c_ratio), h = zoneout(h, sigmoid(o) tanh(c_new),
    // h_ratio); outside training c = c_new and h = sigmoid(o) tanh(c_new). Returns h.
    Variable forward(const Variable& x) override;
    // Sets both states (moved to the link's device); ValueError when one is undefined.
    void set_state(const Variable& c, const Variable& h);
    void reset_state() { c = h = Variable(); }
    int64_t state_size() const { return state_size_; }
    double c_ratio() const { return c_ratio_; }
    double h_ratio() const { return h_ratio_; }

private:
    int64_t state_size_;
    double c_ratio_, h_ratio_;
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
