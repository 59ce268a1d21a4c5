// n_step_lstm / n_step_bilstm: Chainer's stacked LSTMs over variable-length sequences,
// built on the shared loop (detail.h), linear and F::lstm.

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "autograd/shape_ops.h"
#include "core/error.h"
#include "functions/activation.h"
#include "functions/array.h"
#include "functions/connection.h"
#include "functions/connection/detail.h"

namespace rensa::functions {
namespace {

// Chainer's _stack_weight: the four gate blocks interleaved per unit, in F::lstm's a, i, f, o order.
Variable stack_gates(const std::vector<Variable>& parts) {
    const Variable w = stack(parts, 1);
    Shape shape{w.shape()[0] * w.shape()[1]};
    for (int d = 2; d < w.ndim(); ++d) shape.push_back(w.shape()[d]);
    return rensa::reshape(w, shape);
}

// ws[0..3] / ws[4..7]: input, forget, cell and output gates on x / on h (Chainer's order).
std::pair<Variable, Variable> lstm_cell(const Variable& x, const Variable& h, const Variable& c,
                                        const std::vector<Variable>& w, const std::vector<Variable>& b) {
    const Variable xw = stack_gates({w[2], w[0], w[1], w[3]}), hw = stack_gates({w[6], w[4], w[5], w[7]});
    const Variable xb = stack_gates({b[2], b[0], b[1], b[3]}), hb = stack_gates({b[6], b[4], b[5], b[7]});
    const auto [c_new, h_new] = lstm(c, linear(x, xw, xb) + linear(h, hw, hb));
    return {h_new, c_new};
}

NStepLSTMResult run_lstm(const char* name, bool bi, int n_layers, double dropout_ratio, const Variable& hx,
                         const Variable& cx, const std::vector<std::vector<Variable>>& ws,
                         const std::vector<std::vector<Variable>>& bs, const std::vector<Variable>& xs) {
    expect_defined(cx, name, "cx");
    detail::NStepOutputs out =
        detail::n_step_rnn_impl(lstm_cell, {name, 8, n_layers, dropout_ratio, bi}, hx, cx, ws, bs, xs);
    return {out.hy, out.cy, std::move(out.ys)};
}

}  // namespace

NStepLSTMResult n_step_lstm(int n_layers, double dropout_ratio, const Variable& hx, const Variable& cx,
                            const std::vector<std::vector<Variable>>& ws, const std::vector<std::vector<Variable>>& bs,
                            const std::vector<Variable>& xs) {
    return run_lstm("n_step_lstm", false, n_layers, dropout_ratio, hx, cx, ws, bs, xs);
}

NStepLSTMResult n_step_bilstm(int n_layers, double dropout_ratio, const Variable& hx, const Variable& cx,
                              const std::vector<std::vector<Variable>>& ws,
                              const std::vector<std::vector<Variable>>& bs, const std::vector<Variable>& xs) {
    return run_lstm("n_step_bilstm", true, n_layers, dropout_ratio, hx, cx, ws, bs, xs);
}

}  // namespace rensa::functions
