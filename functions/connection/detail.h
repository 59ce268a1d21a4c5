#pragma once
// Private to functions/connection: the type checks and nodes the convolution files share, and
// the layer/direction/time loop shared by n_step_rnn, n_step_gru and n_step_lstm (Chainer's
// n_step_rnn_impl): xs are time steps (B_t, in) with B_t non-increasing, walked in order (and
// backwards for the second direction); the state rows of sequences that have ended pass
// through unchanged.

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "autograd/variable.h"
#include "functions/connection/convolution.h"

namespace rensa::functions::detail {

// --- Convolution.
// Chainer's type checks of x, W and b; ndim = 0 accepts 1 to 3 spatial dims.
void check_convolution_inputs(const Variable& x, const Variable& W, const Variable& b, int ndim, const std::string& op);
// The convolution / deconvolution of `op` after its type checks (ndim as above).
Variable convolution(const Variable& x, const Variable& W, const Variable& b, const ConvolutionOptions& options,
                     int ndim, const std::string& op);
Variable deconvolution(const Variable& x, const Variable& W, const Variable& b, const DeconvolutionOptions& options,
                       int ndim, const std::string& op);

// --- n-step RNNs.

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
