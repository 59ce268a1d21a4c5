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

// sum_k sum(ys[k] * gys[k]) in float64; gys empty means ones.
double weighted_sum(const std::vector<Array>& ys, const std::vector<Array>& gys) {
    RENSA_CHECK(gys.empty() || gys.size() == ys.size(), ValueError, "gradient_check: the function returned ", ys.size(),
                " outputs but ", gys.size(), " grad outputs were given");
    double total = 0;
    for (size_t k = 0; k < ys.size(); ++k) {
        if (gys.empty()) {
            RENSA_CHECK(ys[k].size() == 1, ValueError, "gradient_check: output ", k, " has shape ", ys[k].shape(),
                        "; grad outputs are needed unless every output has one element");
            total += ys[k].item<double>();
        } else {
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

std::vector<Variable> leaf_variables(const std::vector<Array>& arrays) {
    std::vector<Variable> vars;
    for (const Array& a : arrays) vars.emplace_back(a, is_float(a.dtype()));
    return vars;
}

std::vector<Array> cast_all(const std::vector<Array>& arrays, std::optional<Dtype> dtype) {
    if (!dtype) return arrays;
    std::vector<Array> cast;
    for (const Array& a : arrays) cast.push_back(is_float(a.dtype()) ? a.astype(*dtype, false) : a);
    return cast;
}

// One random direction over all float inputs (float64), scaled to unit norm as Chainer does.
std::vector<Array> random_directions(const std::vector<Array>& inputs) {
    std::vector<Array> directions;
    double norm2 = 0;
    for (const Array& x : inputs) {
        directions.push_back(is_float(x.dtype()) ? ops::normal(x.shape(), 0.0, 1.0, Dtype::kFloat64, x.device())
                                                 : Array{});
        if (directions.back().defined()) norm2 += ops::sum(ops::square(directions.back())).item<double>();
    }
    const double norm = norm2 > 0 ? std::sqrt(norm2) : 1.0;
    for (Array& d : directions) {
        if (d.defined()) d = ops::divide(d, norm);
    }
    return directions;
}

// sum(f(x + t d) * gy) with inputs cast to `dtype` (when set).
double evaluate_along(const VariableFunction& func, const std::vector<Array>& inputs,
                      const std::vector<Array>& directions, const std::vector<Array>& grad_outputs, double t,
                      std::optional<Dtype> dtype) {
    std::vector<Array> shifted;
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (!directions[i].defined()) {
            shifted.push_back(inputs[i]);
            continue;
        }
        const Dtype target = dtype.value_or(inputs[i].dtype());
        shifted.push_back(ops::add(to_float64(inputs[i]), ops::multiply(directions[i], t)).astype(target));
    }
    return weighted_sum(arrays_of(func(leaf_variables(shifted))), cast_all(grad_outputs, dtype));
}

// The analytical directional derivative: sum_i sum(x_i.grad * d_i) after backward.
double analytical_along(const VariableFunction& func, const std::vector<Array>& inputs,
                        const std::vector<Array>& directions, const std::vector<Array>& grad_outputs) {
    const std::vector<Variable> xs = leaf_variables(inputs);
    const std::vector<Variable> ys = std::make_shared<Identity>()->apply(func(xs));
    RENSA_CHECK(grad_outputs.empty() || grad_outputs.size() == ys.size(), ValueError,
                "check_backward: the function returned ", ys.size(), " outputs but ", grad_outputs.size(),
                " grad outputs were given");
    std::vector<Variable> gys;
    for (const Array& gy : grad_outputs) gys.emplace_back(gy, false);
    backward(ys, gys);
    double total = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
        if (!directions[i].defined() || !xs[i].grad().defined()) continue;  // no grad: zero
        total += ops::sum(ops::multiply(to_float64(xs[i].grad()), directions[i])).item<double>();
    }
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
    const std::vector<Array> directions = random_directions(inputs);
    const double analytical = analytical_along(func, inputs, directions, grad_outputs);
    const double plus = evaluate_along(func, inputs, directions, grad_outputs, options.eps, options.dtype);
    const double minus = evaluate_along(func, inputs, directions, grad_outputs, -options.eps, options.dtype);
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
    std::vector<Array> gys = grad_outputs;
    if (gys.empty()) {  // scalar outputs: seeds of one, which become inputs of the check
        for (const Variable& y : func(leaf_variables(inputs))) gys.push_back(ops::ones_like(y.array()));
    }
    const size_t n = inputs.size();
    // (x..., gy...) -> the grads of the float inputs, differentiable again.
    const VariableFunction first_order_grad = [&func, n](const std::vector<Variable>& args) {
        const std::vector<Variable> xs(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(n));
        const std::vector<Variable> seeds(args.begin() + static_cast<std::ptrdiff_t>(n), args.end());
        std::vector<Variable> targets;
        for (const Variable& x : xs) {
            if (is_float(x.dtype())) targets.push_back(x);
        }
        std::vector<Variable> gxs = grad(func(xs), targets, seeds, {.enable_double_backprop = true});
        for (size_t j = 0; j < gxs.size(); ++j) {
            if (!gxs[j].defined()) gxs[j] = Variable(ops::zeros_like(targets[j].array()), false);
        }
        return gxs;
    };
    std::vector<Array> args = inputs;
    args.insert(args.end(), gys.begin(), gys.end());
    check_backward(first_order_grad, args, grad_grad_inputs, options);
}

}  // namespace rensa
