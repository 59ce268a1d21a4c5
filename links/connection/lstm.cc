#include "links/connection/lstm.h"

#include "autograd/basic_math.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "functions/activation.h"
#include "functions/array.h"
#include "links/initializers.h"

namespace rensa::links {
namespace {

// The state follows the link to its device (Chainer moves c and h in to_device); F::copy
// keeps the graph behind it.
Variable on_device(const Variable& state, Device device) {
    return state.defined() && state.device() != device ? F::copy(state, device) : state;
}

}  // namespace

// --- LSTMBase.

LSTMBase::LSTMBase(std::optional<int64_t> in_size, std::optional<int64_t> out_size, const LSTMOptions& options)
    : options_{options} {
    if (!out_size) {  // LSTM(out_size): Chainer's shorthand with a lazy in_size
        out_size = in_size;
        in_size = std::nullopt;
    }
    RENSA_CHECK(out_size.has_value() && *out_size >= 1, ValueError, "LSTM: out_size must be given and >= 1");
    RENSA_CHECK(!in_size || *in_size >= 1, ValueError, "LSTM: in_size=", in_size.value_or(0), " must be >= 1");
    state_size_ = *out_size;
    // Zeros first, as Chainer does: initialize_params fills them block by block.
    register_link("upward", &LSTMBase::upward,
                  std::make_shared<Linear>(in_size, 4 * state_size_, false, initializers::constant(0)));
    register_link("lateral", &LSTMBase::lateral,
                  std::make_shared<Linear>(state_size_, 4 * state_size_, true, initializers::constant(0)));
    if (in_size) initialize_params();
}

void LSTMBase::initialize_params() {
    using initializers::or_default;
    const auto lateral_init = or_default(options_.lateral_init, std::make_shared<initializers::LeCunNormal>());
    const auto upward_init = or_default(options_.upward_init, std::make_shared<initializers::LeCunNormal>());
    const auto bias_init = or_default(options_.bias_init, initializers::constant(0));
    const auto forget_bias_init = or_default(options_.forget_bias_init, initializers::constant(1));
    const int64_t n = state_size_;
    for (int64_t i = 0; i < 4 * n; i += n) {
        (*lateral_init)(lateral->W.array().index({Slice{i, i + n}}));
        (*upward_init)(upward->W.array().index({Slice{i, i + n}}));
    }
    // Chainer's _extract_gates on b.reshape(1, 4n, 1): the gate k of unit u sits at 4u + k.
    const Array gates = upward->b.array().reshape(Shape{1, n, 4, 1});
    for (int64_t k = 0; k < 4; ++k) {
        (*(k == 2 ? forget_bias_init : bias_init))(gates.index({Slice{}, Slice{}, k}));
    }
}

void LSTMBase::initialize_lazy(const Variable& x) {
    if (upward->W.is_initialized()) return;
    RENSA_CHECK(x.ndim() >= 1, DimensionError, "LSTM: x must have a batch axis, got shape ", x.shape());
    int64_t in_size = 1;
    for (int d = 1; d < x.ndim(); ++d) in_size *= x.shape()[d];
    upward->W.initialize(Shape{4 * state_size_, in_size});
    initialize_params();
}

Variable LSTMBase::zero_state(const Variable& x, int64_t batch) const {
    return Variable(ops::zeros(Shape{batch, state_size_}, x.dtype(), device_), false);
}

// --- LSTM.

LSTM::LSTM(std::optional<int64_t> in_size, std::optional<int64_t> out_size, const LSTMOptions& options)
    : Cloneable(in_size, out_size, options) {}

void LSTM::set_state(const Variable& c_new, const Variable& h_new) {
    RENSA_CHECK(c_new.defined() && h_new.defined(), ValueError, "LSTM.set_state: c and h must be defined");
    c_new.to_device(device_);
    h_new.to_device(device_);
    c = c_new;
    h = h_new;
}

void LSTM::reset_state() {
    c = Variable();
    h = Variable();
}

Variable LSTM::forward(const Variable& x) {
    initialize_lazy(x);
    c = on_device(c, device_);
    h = on_device(h, device_);
    const int64_t batch = x.shape()[0];
    Variable lstm_in = (*upward)(x);
    Variable h_rest;
    if (h.defined()) {
        const int64_t h_size = h.shape()[0];
        RENSA_CHECK(batch == 0 || h_size >= batch, DimensionError, "LSTM: the batch size of x (", batch,
                    ") must be equal to or less than the size of the previous state h (", h_size, ")");
        if (batch == 0) {
            h_rest = h;
        } else if (h_size > batch) {
            const std::vector<Variable> parts = F::split_axis(h, std::vector<int64_t>{batch}, 0);
            lstm_in = lstm_in + (*lateral)(parts[0]);
            h_rest = parts[1];
        } else {
            lstm_in = lstm_in + (*lateral)(h);
        }
    }
    // In the gates' dtype: a float32 x meets bfloat16 weights under mixed_bf16 (Note [Mixed precision inputs]).
    if (!c.defined()) c = zero_state(lstm_in, batch);
    auto [c_new, y] = F::lstm(c, lstm_in);
    c = c_new;
    if (!h_rest.defined()) {
        h = y;
    } else if (batch == 0) {
        h = h_rest;
    } else {
        h = F::concat({y, h_rest}, 0);
    }
    return y;
}

// --- StatelessLSTM.

StatelessLSTM::StatelessLSTM(std::optional<int64_t> in_size, std::optional<int64_t> out_size,
                             const LSTMOptions& options)
    : Cloneable(in_size, out_size, options) {}

std::pair<Variable, Variable> StatelessLSTM::forward(const Variable& c, const Variable& h, const Variable& x) {
    initialize_lazy(x);
    Variable lstm_in = (*upward)(x);
    if (h.defined()) lstm_in = lstm_in + (*lateral)(h);
    return F::lstm(c.defined() ? c : zero_state(lstm_in, x.shape()[0]), lstm_in);
}

}  // namespace rensa::links
