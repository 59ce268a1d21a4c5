#include "links/connection/tree_lstm.h"

#include <string>

#include "autograd/basic_math.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "functions/activation.h"
#include "functions/array.h"

namespace rensa::links {
namespace {

Variable zeros_like_state(const Shape& shape, Dtype dtype, Device device) {
    return Variable(ops::zeros(shape, dtype, device), false);
}

// Chainer's treatment of x = None: zeros of (batch, in_size), batch and dtype from the first
// defined c, else the first defined h.
Variable input_or_zeros(const Variable& x, const std::vector<Variable>& cs, const std::vector<Variable>& hs,
                        int64_t in_size, Device device, const char* link) {
    if (x.defined()) return x;
    for (const std::vector<Variable>* states : {&cs, &hs}) {
        for (const Variable& v : *states) {
            if (v.defined()) return zeros_like_state({v.shape()[0], in_size}, v.dtype(), device);
        }
    }
    RENSA_THROW(ValueError, link, ": All inputs (cs, hs, x) are None.");
}

// Undefined states become zeros of (batch, units) in x's dtype.
std::vector<Variable> pad_zero_nodes(std::vector<Variable> vs, const Variable& x, int64_t units, Device device) {
    for (Variable& v : vs) {
        if (!v.defined()) v = zeros_like_state({x.shape()[0], units}, x.dtype(), device);
    }
    return vs;
}

void check_sizes(int64_t in_size, int64_t out_size, const char* link) {
    RENSA_CHECK(in_size >= 1 && out_size >= 1, ValueError, link,
                ": Expect: in_size >= 1 and out_size >= 1, Actual: ", in_size, " and ", out_size);
}

}  // namespace

// --- ChildSumTreeLSTM.

ChildSumTreeLSTM::ChildSumTreeLSTM(int64_t in_size, int64_t out_size) : in_size_{in_size}, state_size_{out_size} {
    check_sizes(in_size, out_size, "ChildSumTreeLSTM");
    register_link("W_x", &ChildSumTreeLSTM::W_x, std::make_shared<Linear>(in_size, 4 * out_size));
    register_link("W_h_aio", &ChildSumTreeLSTM::W_h_aio, std::make_shared<Linear>(out_size, 3 * out_size, true));
    register_link("W_h_f", &ChildSumTreeLSTM::W_h_f, std::make_shared<Linear>(out_size, out_size, true));
}

std::pair<Variable, Variable> ChildSumTreeLSTM::forward(const std::vector<Variable>& cs,
                                                        const std::vector<Variable>& hs, const Variable& x_in) {
    RENSA_CHECK(cs.size() == hs.size(), ValueError, "ChildSumTreeLSTM: Expect: as many cs as hs, Actual: ", cs.size(),
                " and ", hs.size());
    const Variable x = input_or_zeros(x_in, cs, hs, in_size_, device_, "ChildSumTreeLSTM");
    const int64_t units = state_size_;
    const std::vector<Variable> x_parts = F::split_axis((*W_x)(x), std::vector<int64_t>{3 * units}, 1);
    if (hs.empty()) {
        const std::vector<Variable> aio = F::split_axis(x_parts[0], 3, 1);
        const Variable c = F::sigmoid(aio[1]) * F::tanh(aio[0]);
        return {c, F::sigmoid(aio[2]) * F::tanh(c)};
    }
    const auto n = static_cast<int64_t>(hs.size());
    const std::vector<Variable> h_all = pad_zero_nodes(hs, x, units, device_);
    Variable h_sum = h_all[0];
    for (size_t k = 1; k < h_all.size(); ++k) h_sum = h_sum + h_all[k];
    const Variable aio_in = (*W_h_aio)(h_sum) + x_parts[0];
    // Each child's forget gate W_h_f h_k + (x's part), side by side along axis 1.
    const Variable fs_in = F::concat(F::split_axis((*W_h_f)(F::concat(h_all, 0)), n, 0), 1);
    const Variable f_in = fs_in + F::concat(std::vector<Variable>(size_t(n), x_parts[1]), 1);
    return F::tree_lstm(pad_zero_nodes(cs, x, units, device_), F::concat({aio_in, f_in}, 1));
}

// --- NaryTreeLSTM.

NaryTreeLSTM::NaryTreeLSTM(int64_t in_size, int64_t out_size, int64_t n_ary)
    : in_size_{in_size}, state_size_{out_size}, n_ary_{n_ary} {
    check_sizes(in_size, out_size, "NaryTreeLSTM");
    RENSA_CHECK(n_ary >= 1, ValueError, "NaryTreeLSTM: Expect: n_ary >= 1, Actual: ", n_ary);
    register_link("W_x", &NaryTreeLSTM::W_x, std::make_shared<Linear>(in_size, (3 + n_ary) * out_size));
    for (int64_t k = 1; k <= n_ary; ++k) {
        add_child("W_h" + std::to_string(k), std::make_shared<Linear>(out_size, (3 + n_ary) * out_size, true));
    }
}

Linear& NaryTreeLSTM::W_h(int64_t k) {
    RENSA_CHECK(k >= 1 && k <= n_ary_, IndexError, "NaryTreeLSTM: W_h", k, " does not exist (n_ary = ", n_ary_, ")");
    return static_cast<Linear&>(child("W_h" + std::to_string(k)));
}

std::pair<Variable, Variable> NaryTreeLSTM::forward(const std::vector<Variable>& cs, const std::vector<Variable>& hs,
                                                    const Variable& x_in) {
    RENSA_CHECK(int64_t(cs.size()) == n_ary_ && int64_t(hs.size()) == n_ary_, ValueError,
                "NaryTreeLSTM: Expect: ", n_ary_, " cs and ", n_ary_, " hs, Actual: ", cs.size(), " and ", hs.size());
    const Variable x = input_or_zeros(x_in, cs, hs, in_size_, device_, "NaryTreeLSTM");
    Variable lstm_in = (*W_x)(x);
    for (int64_t k = 1; k <= n_ary_; ++k) {
        if (hs[size_t(k - 1)].defined()) lstm_in = lstm_in + W_h(k)(hs[size_t(k - 1)]);
    }
    return F::tree_lstm(pad_zero_nodes(cs, x, state_size_, device_), lstm_in);
}

}  // namespace rensa::links
