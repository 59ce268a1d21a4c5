#pragma once
// Chainer's minimal gated units (chainer.links.StatelessMGU, StatefulMGU): a Chain of two
// Linear children on [h, x] (NPZ keys W_f/W, W_f/b, W_h/W, W_h/b, as Chainer's):
//   f = sigmoid(W_f [h, x]), h_bar = tanh(W_h [f * h, x]), h_new = f * h_bar + (1 - f) * h.

#include <cstdint>
#include <memory>
#include <vector>

#include "links/chain.h"
#include "links/connection/linear.h"

namespace rensa::links {

class MGUBase : public Chain {
public:
    std::shared_ptr<Linear> W_f, W_h;  // NOLINT(readability-identifier-naming): Chainer's names

    int64_t state_size() const { return state_size_; }

protected:
    // ValueError unless n_inputs >= 1 and n_units >= 1.
    MGUBase(int64_t n_inputs, int64_t n_units);
    MGUBase(const MGUBase&) = default;
    // One step from state h (batch, n_units) and x (batch, n_inputs).
    Variable call_mgu(const Variable& h, const Variable& x);

private:
    int64_t state_size_ = 0;
};

// forward(h, x) -> h_new; called with two inputs, l(h, x) works too.
class StatelessMGU : public Cloneable<StatelessMGU, MGUBase> {
public:
    StatelessMGU(int64_t n_inputs, int64_t n_units);

    using Link::forward;
    Variable forward(const Variable& h, const Variable& x) { return call_mgu(h, x); }
    // xs = {h, x}; ValueError for any other count.
    Variable forward(const std::vector<Variable>& xs) override;
};

// Keeps h between calls; before the first call (or after reset_state) h is zeros of
// (batch, out_size) in config().dtype, as Chainer's. Not serialized.
class StatefulMGU : public Cloneable<StatefulMGU, MGUBase> {
public:
    Variable h;  // undefined: None

    StatefulMGU(int64_t in_size, int64_t out_size);

    using Link::forward;
    Variable forward(const Variable& x) override;
    void set_state(const Variable& h);
    void reset_state() { h = Variable(); }
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
