#include "links/connection/zoneout_lstm.h"

#include "autograd/basic_math.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "functions/activation.h"
#include "functions/noise.h"
#include "links/connection/lstm_gates.h"

namespace rensa::links {

StatefulZoneoutLSTM::StatefulZoneoutLSTM(std::optional<int64_t> in_size, int64_t out_size, double c_ratio,
                                         double h_ratio)
    : state_size_{out_size}, c_ratio_{c_ratio}, h_ratio_{h_ratio} {
    RENSA_CHECK(out_size >= 1, ValueError, "StatefulZoneoutLSTM: out_size=", out_size, " must be >= 1");
    RENSA_CHECK(c_ratio >= 0 && c_ratio <= 1 && h_ratio >= 0 && h_ratio <= 1, ValueError,
                "StatefulZoneoutLSTM: Expect: 0 <= c_ratio, h_ratio <= 1, Actual: c_ratio = ", c_ratio,
                ", h_ratio = ", h_ratio);
    register_link("upward", &StatefulZoneoutLSTM::upward, std::make_shared<Linear>(in_size, 4 * out_size));
    register_link("lateral", &StatefulZoneoutLSTM::lateral, std::make_shared<Linear>(out_size, 4 * out_size, true));
}

void StatefulZoneoutLSTM::set_state(const Variable& c_new, const Variable& h_new) {
    RENSA_CHECK(c_new.defined() && h_new.defined(), ValueError,
                "StatefulZoneoutLSTM.set_state: c and h must be defined");
    c_new.to_device(device_);
    h_new.to_device(device_);
    c = c_new;
    h = h_new;
}

Variable StatefulZoneoutLSTM::forward(const Variable& x) {
    Variable lstm_in = (*upward)(x);
    const Shape state_shape{x.shape()[0], state_size_};
    if (h.defined()) {
        lstm_in = lstm_in + (*lateral)(h);
    } else {
        h = Variable(ops::zeros(state_shape, x.dtype(), device_), false);
    }
    if (!c.defined()) c = Variable(ops::zeros(state_shape, x.dtype(), device_), false);
    const auto [a, i, f, o] = detail::lstm_gates(lstm_in);
    const Variable c_tmp = F::tanh(a) * F::sigmoid(i) + F::sigmoid(f) * c;
    c = F::zoneout(c, c_tmp, c_ratio_);
    h = F::zoneout(h, F::sigmoid(o) * F::tanh(c_tmp), h_ratio_);
    return h;
}

}  // namespace rensa::links
