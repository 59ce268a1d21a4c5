#include "links/connection/mgu.h"

#include "autograd/basic_math.h"
#include "autograd/modes.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "functions/activation.h"
#include "functions/array.h"
#include "functions/math.h"

namespace rensa::links {

MGUBase::MGUBase(int64_t n_inputs, int64_t n_units) : state_size_{n_units} {
    RENSA_CHECK(n_inputs >= 1 && n_units >= 1, ValueError,
                "MGU: Expect: n_inputs >= 1 and n_units >= 1, Actual: ", n_inputs, " and ", n_units);
    register_link("W_f", &MGUBase::W_f, std::make_shared<Linear>(n_inputs + n_units, n_units));
    register_link("W_h", &MGUBase::W_h, std::make_shared<Linear>(n_inputs + n_units, n_units));
}

Variable MGUBase::call_mgu(const Variable& h, const Variable& x) {
    const Variable f = F::sigmoid((*W_f)(F::concat({h, x})));
    const Variable h_bar = F::tanh((*W_h)(F::concat({f * h, x})));
    return F::linear_interpolate(f, h_bar, h);
}

StatelessMGU::StatelessMGU(int64_t n_inputs, int64_t n_units) : Cloneable(n_inputs, n_units) {}

Variable StatelessMGU::forward(const std::vector<Variable>& xs) {
    RENSA_CHECK(xs.size() == 2, ValueError, "StatelessMGU: forward takes (h, x), got ", xs.size(), " inputs");
    return call_mgu(xs[0], xs[1]);
}

StatefulMGU::StatefulMGU(int64_t in_size, int64_t out_size) : Cloneable(in_size, out_size) {}

void StatefulMGU::set_state(const Variable& h_new) {
    RENSA_CHECK(h_new.defined(), ValueError, "StatefulMGU.set_state: h must be defined");
    h_new.to_device(device_);
    h = h_new;
}

Variable StatefulMGU::forward(const Variable& x) {
    RENSA_CHECK(x.ndim() >= 1, DimensionError, "StatefulMGU: Expect: x.ndim >= 1, Actual: 0");
    if (!h.defined()) h = Variable(ops::zeros({x.shape()[0], state_size()}, config().dtype, device_), false);
    h = call_mgu(h, x);
    return h;
}

}  // namespace rensa::links
