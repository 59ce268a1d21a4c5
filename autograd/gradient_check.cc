#include "autograd/gradient_check.h"

#include <cmath>
#include <sstream>

#include "autograd/function_node.h"
#include "autograd/grad.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/random.h"
#include "core/ops/reduction.h"

namespace rensa {

namespace {

// Passes its inputs through. check_backward sends every output through one Identity so
// that outputs which are inputs themselves (grad of x + y is gy) still get a creator.
class Identity : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override { return xs; }
    std::vector<Variable> backward(const Indexes& targets, const std::vector<Variable>& gys) override {
        std::vector<Variable> gxs;
        for (int i : targets) gxs.push_back(gys[static_cast<size_t>(i)]);
        return gxs;
    }
};

Array to_float64(const Array& a) { return a.astype(Dtype::kFloat64, false); }

// sum_k sum(ys[k] * gys[k]) in float64; gys empty means ones, an undefined gys[k] leaves
// ys[k] out.
double weighted_sum(const std::vector<Array>& ys, const std::vector<Array>& gys) {
    RENSA_CHECK(gys.empty() || gys.size() == ys.size(), ValueError, "gradient_check: the function returned ", ys.size(),
                " outputs but ", gys.size(), " grad outputs were given");
    double total = 0;
    for (size_t k = 0; k < ys.size(); ++k) {
        if (gys.empty()) {
            RENSA_CHECK(ys[k].size() == 1, ValueError, "gradient_check: output ", k, " has shape ", ys[k].shape(),
                        "; grad outputs are needed unless every output has one element");
            total += ys[k].item<double>();
        } else if (gys[k].defined()) {
            total += ops::sum(ops::multiply(to_float64(ys[k]), to_float64(gys[k]))).item<double>();
        }
    }
    return total;
}

// A host float64 copy of the array's values, row-major.
std::vector<double> host_values(const Array& a) { return a.to_vector<double>(); }

Array from_values(const std::vector<double>& values, const Array& like) {
    return Array::from_vector(values, like.shape(), Device::native()).astype(like.dtype()).to_device(like.device());
}

std::vector<Array> arrays_of(const std::vector<Variable>& vars) {
    std::vector<Array> arrays;
    for (const Variable& v : vars) arrays.push_back(v.array());
    return arrays;
}

// constant[i]: input i is left out of the check (no_grads, or not a float input).
std::vector<bool> constant_inputs(const std::vector<Array>& inputs, const std::vector<bool>& no_grads) {
    RENSA_CHECK(no_grads.empty() || no_grads.size() == inputs.size(), ValueError, "check_backward: ", inputs.size(),
                " inputs but ", no_grads.size(), " no_grads entries");
    std::vector<bool> constant;
    for (size_t i = 0; i < inputs.size(); ++i) {
        constant.push_back(!is_float(inputs[i].dtype()) || (!no_grads.empty() && no_grads[i]));
    }
    return constant;
}

// Leaves over the arrays; the checked ones (constant empty: the float ones) require grad.
std::vector<Variable> leaf_variables(const std::vector<Array>& arrays, const std::vector<bool>& constant = {}) {
    std::vector<Variable> vars;
    for (size_t i = 0; i < arrays.size(); ++i) {
        vars.emplace_back(arrays[i], constant.empty() ? is_float(arrays[i].dtype()) : !constant[i]);
    }
    return vars;
}

std::vector<Array> cast_all(const std::vector<Array>& arrays, std::optional<Dtype> dtype) {
    if (!dtype) return arrays;
    std::vector<Array> cast;
    for (const Array& a : arrays) cast.push_back(a.defined() && is_float(a.dtype()) ? a.astype(*dtype, false) : a);
    return cast;
}

// One random direction (float64) over the checked inputs, then over the params, scaled to
// unit norm as Chainer does; undefined for the constant inputs.
std::vector<Array> random_directions(const std::vector<Array>& inputs, const std::vector<bool>& constant,
                                     const std::vector<Variable>& params) {
    std::vector<Array> directions;
    double norm2 = 0;
    const auto add = [&](const Array& like) {
        directions.push_back(ops::normal(like.shape(), 0.0, 1.0, Dtype::kFloat64, like.device()));
        norm2 += ops::sum(ops::square(directions.back())).item<double>();
    };
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (constant[i]) {
            directions.emplace_back();
        } else {
            add(inputs[i]);
        }
    }
    for (const Variable& p : params) add(p.array());
    const double norm = norm2 > 0 ? std::sqrt(norm2) : 1.0;
    for (Array& d : directions) {
        if (d.defined()) d = ops::divide(d, norm);
    }
    return directions;
}

// x + t d in float64, cast to `dtype` (x's own when unset).
Array shifted(const Array& x, const Array& direction, double t, std::optional<Dtype> dtype) {
    return ops::add(to_float64(x), ops::multiply(direction, t)).astype(dtype.value_or(x.dtype()));
}

// Moves the params' arrays to p + t d for one evaluation and puts the originals back.
class ShiftedParams {
public:
    ShiftedParams(const std::vector<Variable>& params, const Array* directions, double t, std::optional<Dtype> dtype)
        : params_(params) {
        for (size_t j = 0; j < params.size(); ++j) {
            originals_.push_back(params[j].array());
            const bool cast = dtype && is_float(originals_.back().dtype());
            params[j].set_array(shifted(originals_.back(), directions[j], t, cast ? dtype : std::nullopt));
        }
    }
    ShiftedParams(const ShiftedParams&) = delete;
    ShiftedParams& operator=(const ShiftedParams&) = delete;
    ~ShiftedParams() {
        for (size_t j = 0; j < originals_.size(); ++j) params_[j].set_array(originals_[j]);
    }

private:
    const std::vector<Variable>& params_;
    std::vector<Array> originals_;
};

// sum(f(x + t d) * gy) with the checked inputs and the params moved, cast to `dtype` (when set).
double evaluate_along(const VariableFunction& func, const std::vector<Array>& inputs, const std::vector<bool>& constant,
                      const std::vector<Array>& directions, const std::vector<Array>& grad_outputs, double t,
                      const CheckBackwardOptions& options) {
    std::vector<Array> xs;
    for (size_t i = 0; i < inputs.size(); ++i) {
        xs.push_back(constant[i] ? inputs[i] : shifted(inputs[i], directions[i], t, options.dtype));
    }
    const ShiftedParams moved{options.params, directions.data() + inputs.size(), t, options.dtype};
    return weighted_sum(arrays_of(func(leaf_variables(xs, constant))), cast_all(grad_outputs, options.dtype));
}

// The analytical directional derivative: sum_i sum(x_i.grad * d_i) over the checked inputs
// and the params after backward from the outputs that have a grad output.
double analytical_along(const VariableFunction& func, const std::vector<Array>& inputs,
                        const std::vector<bool>& constant, const std::vector<Variable>& params,
                        const std::vector<Array>& directions, const std::vector<Array>& grad_outputs) {
    const std::vector<Variable> xs = leaf_variables(inputs, constant);
    for (const Variable& p : params) p.cleargrad();
    const std::vector<Variable> ys = std::make_shared<Identity>()->apply(func(xs));
    RENSA_CHECK(grad_outputs.empty() || grad_outputs.size() == ys.size(), ValueError,
                "check_backward: the function returned ", ys.size(), " outputs but ", grad_outputs.size(),
                " grad outputs were given");
    std::vector<Variable> outputs = grad_outputs.empty() ? ys : std::vector<Variable>{};
    std::vector<Variable> gys;
    for (size_t k = 0; k < grad_outputs.size(); ++k) {
        if (!grad_outputs[k].defined()) continue;
        outputs.push_back(ys[k]);
        gys.emplace_back(grad_outputs[k], false);
    }
    if (!outputs.empty()) backward(outputs, gys);
    double total = 0;
    const auto add = [&](const Array& grad, const Array& direction) {
        if (direction.defined() && grad.defined()) {  // no grad: zero
            total += ops::sum(ops::multiply(to_float64(grad), direction)).item<double>();
        }
    };
    for (size_t i = 0; i < xs.size(); ++i) add(xs[i].grad(), directions[i]);
    for (size_t j = 0; j < params.size(); ++j) add(params[j].grad(), directions[inputs.size() + j]);
    return total;
}

std::string describe(const std::vector<Array>& arrays) {
    std::ostringstream os;
    for (size_t i = 0; i < arrays.size(); ++i) os << (i ? ", " : "") << arrays[i].shape() << " " << arrays[i].dtype();
    return os.str();
}

}  // namespace

std::vector<Array> numerical_grad(const ArrayFunction& f, const std::vector<Array>& inputs,
                                  const std::vector<Array>& grad_outputs, double eps) {
    std::vector<Array> grads;
    std::vector<Array> current = inputs;
    for (size_t i = 0; i < inputs.size(); ++i) {
        std::vector<double> values = host_values(inputs[i]);
        std::vector<double> grad(values.size(), 0.0);
        for (size_t k = 0; k < values.size() && is_float(inputs[i].dtype()); ++k) {
            const double original = values[k];
            values[k] = original + eps;
            current[i] = from_values(values, inputs[i]);
            const double x_plus = current[i].ravel().to_vector<double>()[k];
            const double y_plus = weighted_sum(f(current), grad_outputs);
            values[k] = original - eps;
            current[i] = from_values(values, inputs[i]);
            const double x_minus = current[i].ravel().to_vector<double>()[k];
            const double y_minus = weighted_sum(f(current), grad_outputs);
            values[k] = original;
            grad[k] = (y_plus - y_minus) / (x_plus - x_minus);
        }
        current[i] = inputs[i];
        grads.push_back(Array::from_vector(grad, inputs[i].shape(), Device::native()).to_device(inputs[i].device()));
    }
    return grads;
}

void check_backward(const VariableFunction& func, const std::vector<Array>& inputs,
                    const std::vector<Array>& grad_outputs, const CheckBackwardOptions& options) {
    const std::vector<bool> constant = constant_inputs(inputs, options.no_grads);
    const std::vector<Array> directions = random_directions(inputs, constant, options.params);
    const double analytical = analytical_along(func, inputs, constant, options.params, directions, grad_outputs);
    const double plus = evaluate_along(func, inputs, constant, directions, grad_outputs, options.eps, options);
    const double minus = evaluate_along(func, inputs, constant, directions, grad_outputs, -options.eps, options);
    const double numerical = (plus - minus) / (2 * options.eps);
    const double error = std::abs(numerical - analytical);
    if (error <= options.atol + options.rtol * std::abs(analytical)) return;
    RENSA_THROW(GradientCheckError, "check_backward: the backward's derivative along a random direction is ",
                analytical, " but central differences give ", numerical, " (|difference| ", error, " > atol ",
                options.atol, " + rtol ", options.rtol, " * |analytical|; eps ", options.eps,
                "); inputs: ", describe(inputs));
}

void check_double_backward(const VariableFunction& func, const std::vector<Array>& inputs,
                           const std::vector<Array>& grad_outputs, const std::vector<Array>& grad_grad_inputs,
                           const CheckBackwardOptions& options) {
    const std::vector<bool> constant = constant_inputs(inputs, options.no_grads);
    std::vector<Array> gys = grad_outputs;
    if (gys.empty()) {  // scalar outputs: seeds of one, which become inputs of the check
        for (const Variable& y : func(leaf_variables(inputs, constant))) gys.push_back(ops::ones_like(y.array()));
    }
    const size_t n = inputs.size();
    const std::vector<Variable>& params = options.params;
    // (x..., gy...) -> the grads of the checked inputs and the params, differentiable again.
    const VariableFunction first_order_grad = [&func, n, &constant, &params](const std::vector<Variable>& args) {
        const std::vector<Variable> xs(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(n));
        const std::vector<Variable> seeds(args.begin() + static_cast<std::ptrdiff_t>(n), args.end());
        std::vector<Variable> targets;
        for (size_t i = 0; i < n; ++i) {
            if (!constant[i]) targets.push_back(xs[i]);
        }
        targets.insert(targets.end(), params.begin(), params.end());
        std::vector<Variable> gxs = grad(func(xs), targets, seeds, {.enable_double_backprop = true});
        for (size_t j = 0; j < gxs.size(); ++j) {
            if (!gxs[j].defined()) gxs[j] = Variable(ops::zeros_like(targets[j].array()), false);
        }
        return gxs;
    };
    std::vector<Array> args = inputs;
    args.insert(args.end(), gys.begin(), gys.end());
    CheckBackwardOptions outer = options;  // the grad outputs are checked inputs too
    outer.no_grads = constant;
    outer.no_grads.resize(args.size(), false);
    check_backward(first_order_grad, args, grad_grad_inputs, outer);
}

}  // namespace rensa
