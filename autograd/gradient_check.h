#pragma once
// Numerical gradient checks (Chainer's gradient_check), for users and for rensa's
// own tests: numerical_grad by central differences, check_backward comparing a
// function's backward with finite differences along a random direction, and
// check_double_backward doing the same for the backward of the backward.

#include <functional>
#include <optional>
#include <vector>

#include "autograd/variable.h"
#include "core/error.h"

namespace rensa {

// A gradient check failed; the message gives both derivatives and the tolerances.
class GradientCheckError : public Error {
public:
    using Error::Error;
};

using ArrayFunction = std::function<std::vector<Array>(const std::vector<Array>&)>;
using VariableFunction = std::function<std::vector<Variable>(const std::vector<Variable>&)>;

// Central differences in float64: result[i] = d(sum_k sum(f(x)_k * grad_outputs[k])) / d inputs[i],
// one float64 array per input (of its shape; zeros for a non-float input). Each element is
// perturbed by +-eps in the input's dtype; the step actually taken after rounding is used.
// grad_outputs may be empty when every output has one element (seed 1); an undefined entry
// leaves its output out of the sum.
[[nodiscard]] std::vector<Array> numerical_grad(const ArrayFunction& f, const std::vector<Array>& inputs,
                                                const std::vector<Array>& grad_outputs, double eps = 1e-3);

struct CheckBackwardOptions {
    double eps = 1e-3;   // finite-difference step along the direction
    double atol = 1e-5;  // passes when |numerical - analytical| <= atol + rtol * |analytical|
    double rtol = 1e-4;
    // When set, the numerical side runs with inputs and grad outputs cast to this dtype
    // (e.g. float64 for a float16 function).
    std::optional<Dtype> dtype{};
    // no_grads[i]: input i is a constant, left out of the check (Chainer's no_grads). Empty:
    // the non-float inputs; else one entry per input (ValueError). A non-float input is
    // always a constant.
    std::vector<bool> no_grads{};
    // Variables `func` uses besides its inputs (a link's parameters, Chainer's params): the
    // check covers their grads too. The numerical side moves their arrays along the direction
    // (cast to `dtype` when set) and puts the originals back; the analytical side clears their
    // grads first and leaves the new ones set, as Chainer's backward does.
    std::vector<Variable> params{};
};

// Checks `func`'s backward: runs it on Variables over `inputs` (the inputs checked require
// grad, constants do not), backprops `grad_outputs` (empty: scalar outputs, seed 1; an
// undefined entry leaves its output out) and compares the derivative along one random unit
// direction in the space of the checked inputs and params with central differences of
// sum(f(x) * grad_outputs). Throws GradientCheckError when they differ, ValueError when the
// number of grad outputs or no_grads does not match.
void check_backward(const VariableFunction& func, const std::vector<Array>& inputs,
                    const std::vector<Array>& grad_outputs, const CheckBackwardOptions& options = {});

// Checks the backward of `func`'s backward: check_backward on (inputs, grad_outputs) ->
// grads of the checked inputs and of options.params, computed with enable_double_backprop,
// against `grad_grad_inputs` (one per checked input, then one per param). grad_outputs may
// be empty for scalar outputs (seeds of one, which become inputs of the check).
// Second derivatives are noisier: pass looser tolerances (Chainer uses atol 1e-4, rtol 1e-3).
void check_double_backward(const VariableFunction& func, const std::vector<Array>& inputs,
                           const std::vector<Array>& grad_outputs, const std::vector<Array>& grad_grad_inputs,
                           const CheckBackwardOptions& options = {});

}  // namespace rensa
