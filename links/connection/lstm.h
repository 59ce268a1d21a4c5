#pragma once
// Chainer's fully-connected LSTM links: LSTM (stateful) and StatelessLSTM.
//
// Both are Chains of two Linear children, as in Chainer (so NPZ keys agree): "upward"
// (in_size -> 4 * out_size, paths upward/W and upward/b) and "lateral" (out_size ->
// 4 * out_size, no bias, path lateral/W). Their rows hold the gates a, i, f, o interleaved
// per unit, the layout F::lstm reads. in_size nullopt: upward/W is created from the first x
// (x.shape[1:] flattened), and both matrices are initialised then.

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

#include "links/chain.h"
#include "links/connection/linear.h"
#include "links/initializer.h"

namespace rensa::links {

// Chainer's keyword arguments. Null initializers take Chainer's defaults: LeCunNormal for
// the matrices (applied to each out_size-row gate block separately), 0 for the biases of
// a, i and o, 1 for the forget gate's.
struct LSTMOptions {
    initializers::InitializerPtr lateral_init{};
    initializers::InitializerPtr upward_init{};
    initializers::InitializerPtr bias_init{};
    initializers::InitializerPtr forget_bias_init{};
};

// What LSTM and StatelessLSTM share (Chainer's LSTMBase): the children and their initialisation.
class LSTMBase : public Chain {
public:
    std::shared_ptr<Linear> upward;   // in_size -> 4 * out_size
    std::shared_ptr<Linear> lateral;  // out_size -> 4 * out_size, no bias

    int64_t state_size() const { return state_size_; }

protected:
    // (in_size, out_size) or (out_size) alone (out_size nullopt: in_size is the out_size and
    // the input size is lazy). ValueError when out_size < 1 or in_size < 1.
    LSTMBase(std::optional<int64_t> in_size, std::optional<int64_t> out_size, const LSTMOptions& options);
    LSTMBase(const LSTMBase&) = default;

    // Creates upward/W from x when lazy, then initialises both matrices and the bias.
    void initialize_lazy(const Variable& x);
    // Zeros of shape (batch, state_size) in x's dtype on the link's device.
    [[nodiscard]] Variable zero_state(const Variable& x, int64_t batch) const;

private:
    void initialize_params();  // Chainer's _initialize_params

    int64_t state_size_ = 0;
    LSTMOptions options_;
};

// Stateful LSTM: keeps c and h between calls. The batch may shrink from call to call (sort
// sequences by decreasing length): only the first rows of the state are updated, the rest
// is kept, and h keeps the previous rows beyond the new batch. After to_device the state
// follows the link at the next call. The state is not serialized (as in Chainer).
class LSTM : public Cloneable<LSTM, LSTMBase> {
public:
    Variable c;  // cell state (undefined: None, zeros at the next call)
    Variable h;  // output of the previous step (undefined: None)

    explicit LSTM(std::optional<int64_t> in_size, std::optional<int64_t> out_size = std::nullopt,
                  const LSTMOptions& options = {});

    using Link::forward;
    // Updates c and h from x (batch, in_size...) and returns the new output (batch, out_size).
    // DimensionError when x has more rows than h.
    Variable forward(const Variable& x) override;

    // Sets the state (Chainer's set_state): both moved to the link's device, aliased.
    void set_state(const Variable& c, const Variable& h);
    // Forgets the state (c = h = None).
    void reset_state();
};

// LSTM with the state passed in and out: forward(c, h, x) -> {c_new, h_new}.
class StatelessLSTM : public Cloneable<StatelessLSTM, LSTMBase> {
public:
    explicit StatelessLSTM(std::optional<int64_t> in_size, std::optional<int64_t> out_size = std::nullopt,
                           const LSTMOptions& options = {});

    using Link::forward;
    // c and h (batch, out_size) may be undefined (None): zeros / no lateral term.
    std::pair<Variable, Variable> forward(const Variable& c, const Variable& h, const Variable& x);
    std::pair<Variable, Variable> operator()(const Variable& c, const Variable& h, const Variable& x) {
        return forward(c, h, x);
    }
};

}  // namespace rensa::links

namespace L = rensa::links;  // NOLINT(misc-unused-alias-decls)
