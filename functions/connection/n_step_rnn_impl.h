#pragma once
// The layer/direction/time loop shared by n_step_rnn, n_step_gru and n_step_lstm (Chainer's
// n_step_rnn_impl): xs are sorted by decreasing length and walked time step by time step,
// the state rows of sequences that have ended pass through unchanged.

#include <functional>
#include <utility>
#include <vector>

#include "autograd/variable.h"

namespace rensa::functions::detail {

// One step of a cell: (x, h, c, ws, bs) -> (h, c); c is undefined for cells without one.
using RnnCell =
    std::function<std::pair<Variable, Variable>(const Variable& x, const Variable& h, const Variable& c,
                                                const std::vector<Variable>& ws, const std::vector<Variable>& bs)>;

struct NStepArgs {
    const char* name;  // for error messages
    int n_weights;     // matrices (and biases) per layer and direction
    int n_layers;
    double dropout_ratio;
    bool bidirectional;
};

struct NStepOutputs {
    Variable hy, cy;  // cy undefined without a cell state
    std::vector<Variable> ys;
};

// Checks the arguments (DimensionError / ValueError naming args.name) and runs the stack.
NStepOutputs n_step_rnn_impl(const RnnCell& cell, const NStepArgs& args, const Variable& hx, const Variable& cx,
                             const std::vector<std::vector<Variable>>& ws, const std::vector<std::vector<Variable>>& bs,
                             const std::vector<Variable>& xs);

}  // namespace rensa::functions::detail
