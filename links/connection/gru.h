#pragma once
// Chainer's GRU links: StatelessGRU, StatefulGRU and GRU (Chainer 7's L.GRU, the stateful one).
//
// Each is a Chain of six Linear children, as in Chainer (so NPZ keys agree): W_r, W_z, W on
// the input (in_size -> out_size) and U_r, U_z, U on the state (out_size -> out_size):
//   r = sigmoid(W_r x + U_r h), z = sigmoid(W_z x + U_z h),
//   h_bar = tanh(W x + U (r * h)), h_new = z * h_bar + (1 - z) * h   (Chainer's linear_interpolate).

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "links/chain.h"
#include "links/connection/linear.h"
#include "links/initializer.h"

namespace rensa::links {

// Chainer's keyword arguments: init for W_r, W_z, W and inner_init for U_r, U_z, U (null:
// LeCunNormal), bias_init for every bias (null: 0).
struct GRUOptions {
    initializers::InitializerPtr init{};
    initializers::InitializerPtr inner_init{};
    initializers::InitializerPtr bias_init{};
};

class GRUBase : public Chain {
public:
    std::shared_ptr<Linear> W_r, U_r, W_z, U_z, W, U;  // NOLINT(readability-identifier-naming): Chainer's names

    int64_t state_size() const { return state_size_; }

protected:
    // in_size nullopt: the input matrices learn it from the first x. ValueError when a size < 1.
    GRUBase(std::optional<int64_t> in_size, int64_t out_size, const GRUOptions& options);
    GRUBase(const GRUBase&) = default;

private:
    int64_t state_size_ = 0;
};

// GRU with the state passed in: forward(h, x) -> h_new. Called with two inputs, l(h, x) works too.
class StatelessGRU : public Cloneable<StatelessGRU, GRUBase> {
public:
    StatelessGRU(std::optional<int64_t> in_size, int64_t out_size, const GRUOptions& options = {});

    using Link::forward;
    // h (batch, out_size), x (batch, in_size...); returns the new state.
    Variable forward(const Variable& h, const Variable& x);
    // xs = {h, x}; ValueError for any other count.
    Variable forward(const std::vector<Variable>& xs) override;
};

// GRU keeping its state h between calls (undefined before the first one: h_new = z * h_bar).
// After to_device the state follows the link at the next call; it is not serialized.
class StatefulGRU : public Cloneable<StatefulGRU, GRUBase> {
public:
    Variable h;  // undefined: None

    StatefulGRU(std::optional<int64_t> in_size, int64_t out_size, const GRUOptions& options = {});

    using Link::forward;
    // Updates h from x (batch, in_size...) and returns it.
    Variable forward(const Variable& x) override;
    // Sets h (moved to the link's device, aliased) / forgets it.
    void set_state(const Variable& h);
    void reset_state();
};

// Chainer 7's L.GRU: a StatefulGRU that also takes GRU(out_size) with a lazy in_size.
class GRU : public Cloneable<GRU, StatefulGRU> {
public:
    explicit GRU(std::optional<int64_t> in_size, std::optional<int64_t> out_size = std::nullopt,
                 const GRUOptions& options = {});
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
