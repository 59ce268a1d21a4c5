#include "links/connection/peephole.h"

#include "autograd/basic_math.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "functions/activation.h"
#include "links/connection/lstm_gates.h"

namespace rensa::links {

StatefulPeepholeLSTM::StatefulPeepholeLSTM(std::optional<int64_t> in_size, int64_t out_size) : state_size_{out_size} {
    RENSA_CHECK(out_size >= 1, ValueError, "StatefulPeepholeLSTM: out_size=", out_size, " must be >= 1");
    register_link("upward", &StatefulPeepholeLSTM::upward, std::make_shared<Linear>(in_size, 4 * out_size));
    register_link("lateral", &StatefulPeepholeLSTM::lateral, std::make_shared<Linear>(out_size, 4 * out_size, true));
    register_link("peep_i", &StatefulPeepholeLSTM::peep_i, std::make_shared<Linear>(out_size, out_size, true));
    register_link("peep_f", &StatefulPeepholeLSTM::peep_f, std::make_shared<Linear>(out_size, out_size, true));
    register_link("peep_o", &StatefulPeepholeLSTM::peep_o, std::make_shared<Linear>(out_size, out_size, true));
}

Variable StatefulPeepholeLSTM::forward(const Variable& x) {
    Variable lstm_in = (*upward)(x);
    if (h.defined()) lstm_in = lstm_in + (*lateral)(h);
    if (!c.defined()) c = Variable(ops::zeros({x.shape()[0], state_size_}, x.dtype(), device_), false);
    auto [a, i, f, o] = detail::lstm_gates(lstm_in);
    i = F::sigmoid(i + (*peep_i)(c));
    f = F::sigmoid(f + (*peep_f)(c));
    c = F::tanh(a) * i + f * c;
    h = F::sigmoid(o + (*peep_o)(c)) * F::tanh(c);
    return h;
}

}  // namespace rensa::links
