// n_step_rnn / n_step_birnn / n_step_gru / n_step_bigru, and the time-major loop every n-step RNN shares,
// composed of linear, the activations and the array functions (so double backprop works).

#include <string>
#include <tuple>
#include <utility>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "core/error.h"
#include "functions/activation.h"
#include "functions/array.h"
#include "functions/connection.h"
#include "functions/connection/detail.h"
#include "functions/noise.h"

namespace rensa::functions {
namespace detail {
namespace {

// Chainer's contract: xs[t] (B_t, in) with B_t non-increasing, hx (stacks, B, units) with
// B >= B_0 (rows beyond B_0, sequences of length 0, pass through), ws / bs per stack.
void check_n_step(const NStepArgs& a, const Variable& hx, const Variable& cx,
                  const std::vector<std::vector<Variable>>& ws, const std::vector<std::vector<Variable>>& bs,
                  const std::vector<Variable>& xs) {
    const int64_t stacks = int64_t{a.n_layers} * (a.bidirectional ? 2 : 1);
    RENSA_CHECK(a.n_layers > 0, ValueError, a.name, ": Expect: n_layers > 0, Actual: n_layers = ", a.n_layers);
    RENSA_CHECK(!xs.empty(), ValueError, a.name, ": Expect: len(xs) > 0 (one entry per time step), Actual: 0");
    for (size_t t = 0; t < xs.size(); ++t) {
        expect_defined(xs[t], a.name, "xs[t]");
        RENSA_CHECK(xs[t].ndim() == 2, DimensionError, a.name, ": Expect: xs[", t,
                    "].ndim == 2 (B_t, in), Actual: ", xs[t].shape());
        RENSA_CHECK(t == 0 || (xs[t].shape()[0] <= xs[t - 1].shape()[0] && xs[t].shape()[1] == xs[0].shape()[1]),
                    DimensionError, a.name, ": Expect: xs[", t, "].shape[0] <= xs[", t - 1,
                    "].shape[0] (time-major steps of sequences sorted by decreasing length) and xs[", t,
                    "].shape[1] == xs[0].shape[1], Actual: xs[", t - 1, "].shape = ", xs[t - 1].shape(), ", xs[", t,
                    "].shape = ", xs[t].shape());
    }
    expect_defined(hx, a.name, "hx");
    RENSA_CHECK(hx.ndim() == 3, DimensionError, a.name, ": Expect: hx.ndim == 3, Actual: ", hx.ndim());
    RENSA_CHECK(hx.shape()[0] == stacks, DimensionError, a.name,
                ": Expect: hx.shape[0] == n_layers * directions == ", stacks, ", Actual: ", hx.shape()[0]);
    RENSA_CHECK(hx.shape()[1] >= xs[0].shape()[0], DimensionError, a.name,
                ": Expect: hx.shape[1] >= xs[0].shape[0] (the batch), Actual: ", hx.shape()[1], " < ",
                xs[0].shape()[0]);
    RENSA_CHECK(!cx.defined() || cx.shape() == hx.shape(), DimensionError, a.name,
                ": Expect: cx.shape == hx.shape, Actual: ", cx.shape(), " != ", hx.shape());
    RENSA_CHECK(static_cast<int64_t>(ws.size()) == stacks && static_cast<int64_t>(bs.size()) == stacks, DimensionError,
                a.name, ": Expect: len(ws) == len(bs) == ", stacks, ", Actual: ", ws.size(), ", ", bs.size());
    for (size_t i = 0; i < ws.size(); ++i) {
        RENSA_CHECK(static_cast<int>(ws[i].size()) == a.n_weights && static_cast<int>(bs[i].size()) == a.n_weights,
                    DimensionError, a.name, ": Expect: len(ws[", i, "]) == len(bs[", i, "]) == ", a.n_weights,
                    ", Actual: ", ws[i].size(), ", ", bs[i].size());
    }
    expect_defined(ws[0][0], a.name, "ws[0][0]");
    RENSA_CHECK(ws[0][0].ndim() == 2 && ws[0][0].shape()[1] == xs[0].shape()[1], ValueError, a.name,
                ": Inconsistent input size in input values and weight parameters: Expect: ws[0][0].shape[1] == "
                "xs[0].shape[1] == ",
                xs[0].shape()[1], ", Actual: ws[0][0].shape = ", ws[0][0].shape());
}

struct DirectionResult {
    Variable h, c;
    std::vector<Variable> hs;  // per time step, the rows of the sequences still running
};

// Chainer's _one_directional_loop over time steps `steps` (batch non-increasing or, when
// reversed, non-decreasing): rows beyond a step's batch are split off and joined again, so a
// sequence that has ended (or not yet begun, backwards) keeps its state.
DirectionResult one_direction(const RnnCell& cell, const std::vector<Variable>& steps, Variable h, Variable c,
                              const std::vector<Variable>& ws, const std::vector<Variable>& bs) {
    std::vector<Variable> hs;
    for (const Variable& x : steps) {
        const int64_t batch = x.shape()[0];
        const bool split = h.shape()[0] > batch;
        Variable h_rest, c_rest;
        if (split) {
            auto hp = split_axis(h, std::vector<int64_t>{batch}, 0);
            h = hp[0], h_rest = hp[1];
            if (c.defined()) {
                auto cp = split_axis(c, std::vector<int64_t>{batch}, 0);
                c = cp[0], c_rest = cp[1];
            }
        }
        std::tie(h, c) = cell(x, h, c, ws, bs);
        hs.push_back(h);
        if (split) {
            h = concat({h, h_rest}, 0);
            if (c.defined()) c = concat({c, c_rest}, 0);
        }
    }
    return {h, c, hs};
}

std::vector<Variable> dropped(const std::vector<Variable>& xs, double ratio) {
    if (ratio == 0.0) return xs;
    std::vector<Variable> out;
    out.reserve(xs.size());
    for (const Variable& x : xs) out.push_back(dropout(x, ratio));
    return out;
}

}  // namespace

NStepOutputs n_step_rnn_impl(const RnnCell& cell, const NStepArgs& args, const Variable& hx, const Variable& cx,
                             const std::vector<std::vector<Variable>>& ws, const std::vector<std::vector<Variable>>& bs,
                             const std::vector<Variable>& xs) {
    check_n_step(args, hx, cx, ws, bs, xs);
    const int directions = args.bidirectional ? 2 : 1;
    std::vector<Variable> next = xs, hy, cy;
    for (int layer = 0; layer < args.n_layers; ++layer) {
        const std::vector<Variable> in = layer == 0 ? next : dropped(next, args.dropout_ratio);
        const auto run = [&](int idx, const std::vector<Variable>& steps) {
            const DirectionResult r = one_direction(cell, steps, get_item(hx, idx),
                                                    cx.defined() ? get_item(cx, idx) : Variable(), ws[idx], bs[idx]);
            hy.push_back(r.h);
            if (r.c.defined()) cy.push_back(r.c);
            return r.hs;
        };
        std::vector<Variable> forward = run(layer * directions, in);
        if (!args.bidirectional) {
            next = forward;
            continue;
        }
        const std::vector<Variable> in_bwd = layer == 0 ? next : dropped(next, args.dropout_ratio);
        std::vector<Variable> backward = run(layer * directions + 1, {in_bwd.rbegin(), in_bwd.rend()});
        next.clear();
        for (size_t t = 0; t < forward.size(); ++t)
            next.push_back(concat({forward[t], backward[forward.size() - 1 - t]}, 1));
    }
    return {stack(hy, 0), cy.empty() ? Variable() : stack(cy, 0), next};
}

}  // namespace detail

namespace {

detail::RnnCell rnn_cell(const std::string& activation) {
    RENSA_CHECK(activation == "tanh" || activation == "relu", ValueError,
                "n_step_rnn: activation must be \"tanh\" or \"relu\", got \"", activation, "\"");
    const bool use_tanh = activation == "tanh";
    return [use_tanh](const Variable& x, const Variable& h, const Variable&, const std::vector<Variable>& w,
                      const std::vector<Variable>& b) {
        const Variable in = linear(x, w[0], b[0]) + linear(h, w[1], b[1]);
        return std::pair{use_tanh ? tanh(in) : relu(in), Variable()};
    };
}

// Chainer's _gru: r and z gates, then h = (1 - z) * tanh(W x + r * (U h)) + z * h.
std::pair<Variable, Variable> gru_cell(const Variable& x, const Variable& h, const Variable&,
                                       const std::vector<Variable>& w, const std::vector<Variable>& b) {
    const std::vector<Variable> gx =
        split_axis(linear(x, concat({w[0], w[1], w[2]}, 0), concat({b[0], b[1], b[2]}, 0)), 3, 1);
    const std::vector<Variable> gh =
        split_axis(linear(h, concat({w[3], w[4], w[5]}, 0), concat({b[3], b[4], b[5]}, 0)), 3, 1);
    const Variable r = sigmoid(gx[0] + gh[0]);
    const Variable z = sigmoid(gx[1] + gh[1]);
    const Variable h_bar = tanh(gx[2] + r * gh[2]);
    return {(1.0 - z) * h_bar + z * h, Variable()};
}

std::pair<Variable, std::vector<Variable>> run_rnn(const detail::RnnCell& cell, const char* name, int n_weights,
                                                   int n_layers, double dropout_ratio, bool bi, const Variable& hx,
                                                   const std::vector<std::vector<Variable>>& ws,
                                                   const std::vector<std::vector<Variable>>& bs,
                                                   const std::vector<Variable>& xs) {
    detail::NStepOutputs out =
        detail::n_step_rnn_impl(cell, {name, n_weights, n_layers, dropout_ratio, bi}, hx, Variable(), ws, bs, xs);
    return {out.hy, std::move(out.ys)};
}

}  // namespace

std::pair<Variable, std::vector<Variable>> n_step_rnn(int n_layers, double dropout_ratio, const Variable& hx,
                                                      const std::vector<std::vector<Variable>>& ws,
                                                      const std::vector<std::vector<Variable>>& bs,
                                                      const std::vector<Variable>& xs, const std::string& activation) {
    return run_rnn(rnn_cell(activation), "n_step_rnn", 2, n_layers, dropout_ratio, false, hx, ws, bs, xs);
}

std::pair<Variable, std::vector<Variable>> n_step_birnn(int n_layers, double dropout_ratio, const Variable& hx,
                                                        const std::vector<std::vector<Variable>>& ws,
                                                        const std::vector<std::vector<Variable>>& bs,
                                                        const std::vector<Variable>& xs,
                                                        const std::string& activation) {
    return run_rnn(rnn_cell(activation), "n_step_birnn", 2, n_layers, dropout_ratio, true, hx, ws, bs, xs);
}

std::pair<Variable, std::vector<Variable>> n_step_gru(int n_layers, double dropout_ratio, const Variable& hx,
                                                      const std::vector<std::vector<Variable>>& ws,
                                                      const std::vector<std::vector<Variable>>& bs,
                                                      const std::vector<Variable>& xs) {
    return run_rnn(gru_cell, "n_step_gru", 6, n_layers, dropout_ratio, false, hx, ws, bs, xs);
}

std::pair<Variable, std::vector<Variable>> n_step_bigru(int n_layers, double dropout_ratio, const Variable& hx,
                                                        const std::vector<std::vector<Variable>>& ws,
                                                        const std::vector<std::vector<Variable>>& bs,
                                                        const std::vector<Variable>& xs) {
    return run_rnn(gru_cell, "n_step_bigru", 6, n_layers, dropout_ratio, true, hx, ws, bs, xs);
}

}  // namespace rensa::functions
