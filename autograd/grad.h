#pragma once
// grad(): gradients of outputs with respect to chosen inputs (chainer.grad), returned
// instead of accumulated into `.grad`.

#include <optional>
#include <vector>

#include "autograd/variable.h"

namespace rensa {

struct GradOptions {
    // Record the graph of the computation, so the results can be differentiated again.
    bool enable_double_backprop = false;
    // Also set each input's grad to the result (replacing what it had).
    bool set_grad = false;
    // Keep the grads of intermediate variables on the way.
    bool retain_grad = false;
    // Scales the implicit seed of scalar outputs.
    std::optional<double> loss_scale{};
};

// d(sum_i <outputs[i], grad_outputs[i]>) / d inputs[j], one Variable per input
// (undefined when the input does not influence the outputs). grad_outputs may be
// empty, or hold undefined entries, for outputs of one element (seed 1). Gradients
// flow only along paths from the inputs to the outputs; no variable's grad changes
// unless set_grad or retain_grad say so. Throws ValueError for a non-scalar output
// without a grad output, DimensionError/DtypeError for a mismatching grad output.
[[nodiscard]] std::vector<Variable> grad(const std::vector<Variable>& outputs, const std::vector<Variable>& inputs,
                                         const std::vector<Variable>& grad_outputs = {},
                                         const GradOptions& options = {});

}  // namespace rensa
