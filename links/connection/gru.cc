#include "links/connection/gru.h"

#include "autograd/basic_math.h"
#include "core/error.h"
#include "functions/activation.h"
#include "functions/array.h"

namespace rensa::links {
namespace {

// GRU(out_size) means GRU(nullopt, out_size), as in Chainer.
std::optional<int64_t> gru_in_size(std::optional<int64_t> in_size, std::optional<int64_t> out_size) {
    return out_size ? in_size : std::nullopt;
}

// The state follows the link to its device (Chainer moves h in to_device); F::copy keeps the
// graph behind it.
Variable on_device(const Variable& state, Device device) {
    return state.defined() && state.device() != device ? F::copy(state, device) : state;
}

int64_t gru_out_size(std::optional<int64_t> in_size, std::optional<int64_t> out_size) {
    const std::optional<int64_t> size = out_size ? out_size : in_size;
    RENSA_CHECK(size.has_value(), ValueError, "GRU: out_size must be given");
    return *size;
}

}  // namespace

GRUBase::GRUBase(std::optional<int64_t> in_size, int64_t out_size, const GRUOptions& options) : state_size_{out_size} {
    RENSA_CHECK(out_size >= 1, ValueError, "GRU: out_size=", out_size, " must be >= 1");
    RENSA_CHECK(!in_size || *in_size >= 1, ValueError, "GRU: in_size=", in_size.value_or(0), " must be >= 1");
    const auto on_x = [&] {
        return std::make_shared<Linear>(in_size, out_size, false, options.init, options.bias_init);
    };
    const auto on_h = [&] {
        return std::make_shared<Linear>(out_size, out_size, false, options.inner_init, options.bias_init);
    };
    register_link("W_r", &GRUBase::W_r, on_x());
    register_link("U_r", &GRUBase::U_r, on_h());
    register_link("W_z", &GRUBase::W_z, on_x());
    register_link("U_z", &GRUBase::U_z, on_h());
    register_link("W", &GRUBase::W, on_x());
    register_link("U", &GRUBase::U, on_h());
}

// --- StatelessGRU.

StatelessGRU::StatelessGRU(std::optional<int64_t> in_size, int64_t out_size, const GRUOptions& options)
    : Cloneable(in_size, out_size, options) {}

Variable StatelessGRU::forward(const Variable& h, const Variable& x) {
    const Variable r = F::sigmoid((*W_r)(x) + (*U_r)(h));
    const Variable z = F::sigmoid((*W_z)(x) + (*U_z)(h));
    const Variable h_bar = F::tanh((*W)(x) + (*U)(r * h));
    return z * h_bar + (1.0 - z) * h;
}

Variable StatelessGRU::forward(const std::vector<Variable>& xs) {
    RENSA_CHECK(xs.size() == 2, ValueError, "StatelessGRU: forward takes (h, x), got ", xs.size(), " inputs");
    return forward(xs[0], xs[1]);
}

// --- StatefulGRU.

StatefulGRU::StatefulGRU(std::optional<int64_t> in_size, int64_t out_size, const GRUOptions& options)
    : Cloneable(in_size, out_size, options) {}

void StatefulGRU::set_state(const Variable& h_new) {
    RENSA_CHECK(h_new.defined(), ValueError, "GRU.set_state: h must be defined");
    h_new.to_device(device_);
    h = h_new;
}

void StatefulGRU::reset_state() { h = Variable(); }

Variable StatefulGRU::forward(const Variable& x) {
    h = on_device(h, device_);
    Variable z = (*W_z)(x);
    Variable h_bar = (*W)(x);
    if (h.defined()) {
        const Variable r = F::sigmoid((*W_r)(x) + (*U_r)(h));
        z = z + (*U_z)(h);
        h_bar = h_bar + (*U)(r * h);
    }
    z = F::sigmoid(z);
    h_bar = F::tanh(h_bar);
    h = h.defined() ? z * h_bar + (1.0 - z) * h : z * h_bar;
    return h;
}

// --- GRU.

GRU::GRU(std::optional<int64_t> in_size, std::optional<int64_t> out_size, const GRUOptions& options)
    : Cloneable(gru_in_size(in_size, out_size), gru_out_size(in_size, out_size), options) {}

}  // namespace rensa::links
