// A user-defined differentiable function in rensa, the C++ form of Chainer's
// "Define your own function" guide: a FunctionNode with forward on Arrays and backward
// on Variables (so it can be differentiated twice), a public free function that applies
// it, and the numerical gradient checks (check_backward, check_double_backward) that
// prove the backward right. Exits non-zero when a check fails.

#include <CLI/CLI.hpp>
#include <cmath>
#include <exception>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/operators.h"
#include "core/ops/random.h"
#include "core/ops/reduction.h"
#include "core/random.h"
#include "functions/activation.h"
#include "functions/math.h"

namespace {

using rensa::Array;
using rensa::Variable;
namespace F = rensa::functions;
namespace ops = rensa::ops;

// muladd(x, a, b) = x * a + b, elementwise on arrays of one shape. Its backward is
// written with differentiable Variable arithmetic, so double backprop works unchanged.
// `wrong_backward` plants a bug (d/dx returns b instead of a) to show the check failing.
class MulAdd final : public rensa::FunctionNode {
public:
    explicit MulAdd(bool wrong_backward) : wrong_backward_{wrong_backward} {}

    std::vector<Array> forward(const std::vector<Array>& inputs) override {
        RENSA_CHECK(inputs[0].shape() == inputs[1].shape() && inputs[0].shape() == inputs[2].shape(), DimensionError,
                    "muladd: shapes differ: x ", inputs[0].shape(), ", a ", inputs[1].shape(), ", b ",
                    inputs[2].shape());
        retain_inputs({0, 1, 2});
        return {inputs[0] * inputs[1] + inputs[2]};
    }

    std::vector<Variable> backward(const Indexes& /*target_input_indexes*/,
                                   const std::vector<Variable>& grad_outputs) override {
        const Variable& gy = grad_outputs[0];
        const Variable x = retained_input(0);
        const Variable a = retained_input(1);
        const Variable gx = wrong_backward_ ? gy * retained_input(2) : gy * a;
        return {gx, gy * x, gy};
    }

    std::string label() const override { return "MulAdd"; }

private:
    bool wrong_backward_;
};

// softplus(beta * x) / beta, computed stably as (max(bx, 0) + log1p(exp(-|bx|))) / beta.
// Its derivative is sigmoid(beta * x), built from F::sigmoid (differentiable again).
class ScaledSoftplus final : public rensa::FunctionNode {
public:
    explicit ScaledSoftplus(double beta) : beta_{beta} {}

    std::vector<Array> forward(const std::vector<Array>& inputs) override {
        retain_inputs({0});
        const Array bx = inputs[0] * beta_;
        return {(ops::maximum(bx, 0.0) + ops::log1p(ops::exp(-ops::abs(bx)))) / beta_};
    }

    std::vector<Variable> backward(const Indexes& /*target_input_indexes*/,
                                   const std::vector<Variable>& grad_outputs) override {
        return {grad_outputs[0] * F::sigmoid(retained_input(0) * beta_)};
    }

    std::string label() const override { return "ScaledSoftplus"; }

private:
    double beta_;
};

// The public functions, as Chainer's F.xxx wrap FunctionNode.apply.
[[nodiscard]] Variable muladd(const Variable& x, const Variable& a, const Variable& b, bool wrong_backward = false) {
    return std::make_shared<MulAdd>(wrong_backward)->apply({x, a, b})[0];
}

[[nodiscard]] Variable scaled_softplus(const Variable& x, double beta) {
    return std::make_shared<ScaledSoftplus>(beta)->apply({x})[0];
}

struct Options {
    int64_t size = 12;
    double beta = 2.0;
    uint64_t seed = 0;
    bool wrong_backward = false;
};

[[nodiscard]] Array random_input(int64_t size) { return ops::normal({3, size}, 0.0, 1.0, rensa::Dtype::kFloat64); }

// Runs one named check and prints its verdict; returns whether it passed.
bool run_check(const std::string& name, const std::function<void()>& check) {
    try {
        check();
        std::cout << "  [ok]     " << name << "\n";
        return true;
    } catch (const rensa::GradientCheckError& error) {
        std::cout << "  [FAILED] " << name << "\n" << error.what() << "\n";
        return false;
    }
}

// Forward values against a composition of built-in functions.
bool check_forward(const Options& options) {
    const Array x = random_input(options.size), a = random_input(options.size), b = random_input(options.size);
    const Array y_muladd = muladd(Variable(x), Variable(a), Variable(b)).array();
    const double err_muladd = ops::max(ops::abs(y_muladd - (x * a + b))).item<double>();
    const Array y_softplus = scaled_softplus(Variable(x), options.beta).array();
    const Array reference = F::softplus(Variable(x), options.beta).array();
    const double err_softplus = ops::max(ops::abs(y_softplus - reference)).item<double>();
    std::cout << "forward: max |muladd - (x * a + b)| = " << err_muladd
              << ", max |scaled_softplus - F::softplus| = " << err_softplus << "\n";
    return err_muladd < 1e-12 && err_softplus < 1e-12;
}

bool check_gradients(const Options& options) {
    const int64_t n = options.size;
    const rensa::VariableFunction f_muladd = [&](const std::vector<Variable>& xs) {
        return std::vector<Variable>{muladd(xs[0], xs[1], xs[2], options.wrong_backward)};
    };
    const rensa::VariableFunction f_softplus = [&](const std::vector<Variable>& xs) {
        return std::vector<Variable>{scaled_softplus(xs[0], options.beta)};
    };
    const std::vector<Array> inputs{random_input(n), random_input(n), random_input(n)};
    const std::vector<Array> gy{random_input(n)};
    const std::vector<Array> ggx{random_input(n), random_input(n), random_input(n)};
    const rensa::CheckBackwardOptions second_order{.atol = 1e-4, .rtol = 1e-3};
    bool ok = true;
    ok &= run_check("check_backward(muladd)", [&] { rensa::check_backward(f_muladd, inputs, gy); });
    ok &= run_check("check_double_backward(muladd)",
                    [&] { rensa::check_double_backward(f_muladd, inputs, gy, ggx, second_order); });
    ok &= run_check("check_backward(scaled_softplus)", [&] { rensa::check_backward(f_softplus, {inputs[0]}, gy); });
    ok &= run_check("check_double_backward(scaled_softplus)",
                    [&] { rensa::check_double_backward(f_softplus, {inputs[0]}, gy, {ggx[0]}, second_order); });
    return ok;
}

// d/dx of sum(scaled_softplus(x)) by backward, against sigmoid(beta x) by hand.
bool check_use_in_a_graph(const Options& options) {
    const Variable x{ops::normal({options.size}, 0.0, 1.0, rensa::Dtype::kFloat64)};
    const Variable loss = F::sum(scaled_softplus(x, options.beta) * 3.0);
    loss.backward();
    const Array expected = 3.0 * ops::sigmoid(x.array() * options.beta);
    const double err = ops::max(ops::abs(x.grad() - expected)).item<double>();
    std::cout << "backward through a graph: max |x.grad - 3 sigmoid(beta x)| = " << err << "\n";
    return err < 1e-12;
}

}  // namespace

int main(int argc, char** argv) {
    Options options;
    CLI::App app{"rensa example: a user-defined FunctionNode checked with check_backward"};
    app.add_option("--size", options.size, "Elements per row of the random test inputs (3 rows)")
        ->check(CLI::PositiveNumber);
    app.add_option("--beta", options.beta, "beta of scaled_softplus")->check(CLI::PositiveNumber);
    app.add_option("--seed", options.seed, "Random seed");
    app.add_flag("--wrong-backward", options.wrong_backward,
                 "Plant a bug in muladd's backward to see the gradient check fail");
    CLI11_PARSE(app, argc, argv);

    try {
        rensa::seed(options.seed);
        bool ok = check_forward(options);
        std::cout << "gradient checks (float64, random direction):\n";
        ok &= check_gradients(options);
        ok &= check_use_in_a_graph(options);
        std::cout << (ok ? "all checks passed" : "some checks FAILED") << "\n";
        return ok ? 0 : 1;
    } catch (const std::exception& error) {
        std::cerr << "custom_function: " << error.what() << "\n";
        return 2;
    }
}
