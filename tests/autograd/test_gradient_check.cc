// gradient_check: numerical_grad against closed forms, and check_backward /
// check_double_backward rejecting deliberately wrong backward functions.

#include <catch2/catch.hpp>

#include <cmath>

#include "autograd/autograd.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/reduction.h"
#include "core/random.h"
#include "tests/autograd/test_functions.h"
#include "tests/testing/testing.h"

using namespace rensa;
using rensa::testing::check_allclose;

namespace {

// x * x with a backward scaled by `scale` (1 is right, 1.01 deliberately wrong).
class ScaledSquare : public FunctionNode {
public:
    explicit ScaledSquare(double scale) : scale_{scale} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0});
        return {ops::multiply(xs[0], xs[0])};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        return {gys[0] * retained_input(0) * (2.0 * scale_)};
    }

private:
    double scale_;
};

VariableFunction scaled_square(double scale) {
    return [scale](const std::vector<Variable>& xs) { return std::make_shared<ScaledSquare>(scale)->apply(xs); };
}

// x^3 whose backward is 3x^2 but whose second derivative is wrong: the first-order
// grad is built from a constant copy of x, so it does not depend on x again.
class DetachedCube : public FunctionNode {
public:
    std::vector<Array> forward(const std::vector<Array>& xs) override {
        retain_inputs({0});
        return {ops::power(xs[0], 3)};
    }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Variable x_constant(retained_input(0).array(), false);
        return {gys[0] * 3.0 * x_constant * x_constant};
    }
};

}  // namespace

TEST_CASE("gradient_check: numerical_grad matches closed forms", "[autograd]") {
    const Array x = Array::from_vector<double>({0.5, -1.0, 2.0}, {3});
    const Array w = Array::from_vector<double>({1.0, 2.0, 3.0}, {3});
    const auto f = [](const std::vector<Array>& xs) {
        return std::vector<Array>{ops::multiply(ops::sin(xs[0]), xs[1])};
    };
    const std::vector<Array> g = numerical_grad(f, {x, w}, {ops::ones({3}, Dtype::kFloat64)}, 1e-4);
    REQUIRE(g.size() == 2);
    check_allclose(g[0], {std::cos(0.5) * 1, std::cos(-1.0) * 2, std::cos(2.0) * 3}, {3}, {1e-7, 1e-7});
    check_allclose(g[1], {std::sin(0.5), std::sin(-1.0), std::sin(2.0)}, {3}, {1e-7, 1e-7});
    CHECK(g[0].dtype() == Dtype::kFloat64);
}

TEST_CASE("gradient_check: numerical_grad of a float32 function is float64", "[autograd]") {
    const Array x = Array::from_vector<float>({1.0f, 2.0f}, {2});
    const auto f = [](const std::vector<Array>& xs) { return std::vector<Array>{ops::sum(ops::square(xs[0]))}; };
    const std::vector<Array> g = numerical_grad(f, {x}, {}, 1e-2);
    CHECK(g[0].dtype() == Dtype::kFloat64);
    check_allclose(g[0], {2.0, 4.0}, {2}, {1e-4, 1e-4});
}

TEST_CASE("gradient_check: check_backward accepts a right backward", "[autograd]") {
    seed(5);
    const Array x = Array::from_vector<double>({0.3, -1.2, 2.0, 0.7}, {2, 2});
    CHECK_NOTHROW(check_backward(scaled_square(1.0), {x}, {ops::ones({2, 2}, Dtype::kFloat64)}));
}

TEST_CASE("gradient_check: check_backward rejects a backward scaled by 1.01", "[autograd]") {
    for (uint64_t s : {1, 2, 3, 4, 5}) {
        seed(s);
        const Array x = Array::from_vector<double>({0.3, -1.2, 2.0, 0.7}, {2, 2});
        CHECK_THROWS_AS(check_backward(scaled_square(1.01), {x}, {ops::ones({2, 2}, Dtype::kFloat64)}),
                        GradientCheckError);
    }
}

TEST_CASE("gradient_check: check_double_backward accepts x^3 and rejects a detached backward", "[autograd]") {
    seed(9);
    const Array x = Array::from_vector<double>({0.5, -1.5, 1.1}, {3});
    const Array gy = Array::from_vector<double>({1.0, 0.5, -2.0}, {3});
    const Array ggx = Array::from_vector<double>({0.3, 1.0, 0.7}, {3});
    const VariableFunction cube = [](const std::vector<Variable>& xs) { return std::vector<Variable>{pow(xs[0], 3)}; };
    CHECK_NOTHROW(check_double_backward(cube, {x}, {gy}, {ggx}, {.atol = 1e-5, .rtol = 1e-4}));
    const VariableFunction detached = [](const std::vector<Variable>& xs) {
        return std::make_shared<DetachedCube>()->apply(xs);
    };
    CHECK_NOTHROW(check_backward(detached, {x}, {gy}));  // first order is right
    CHECK_THROWS_AS(check_double_backward(detached, {x}, {gy}, {ggx}, {.atol = 1e-5, .rtol = 1e-4}),
                    GradientCheckError);
}

TEST_CASE("gradient_check: scalar outputs need no grad outputs, mismatches are errors", "[autograd]") {
    seed(2);
    const VariableFunction f = [](const std::vector<Variable>& xs) {
        return std::vector<Variable>{sum(test::sin(xs[0]) * xs[0])};
    };
    const Array x = Array::from_vector<double>({0.1, 0.2, 0.3}, {3});
    CHECK_NOTHROW(check_backward(f, {x}, {}));
    CHECK_NOTHROW(check_double_backward(f, {x}, {}, {ops::ones({3}, Dtype::kFloat64)}, {.atol = 1e-5, .rtol = 1e-4}));
    CHECK_THROWS_AS(check_backward(scaled_square(1.0), {x}, {}), ValueError);  // non-scalar output, no seed
    CHECK_THROWS_AS(check_backward(f, {x}, {ops::ones({}), ops::ones({})}), ValueError);
}

TEST_CASE("gradient_check: integer inputs are constants", "[autograd]") {
    seed(4);
    const VariableFunction f = [](const std::vector<Variable>& xs) {
        return std::vector<Variable>{xs[0] * Variable(xs[1].array().astype(Dtype::kFloat64), false)};
    };
    CHECK_NOTHROW(
        check_backward(f, {Array::from_vector<double>({1.5, 2.5}, {2}), Array::from_vector<int32_t>({3, 4}, {2})},
                       {ops::ones({2}, Dtype::kFloat64)}));
}

TEST_CASE("gradient_check: no_grads leaves inputs out of the check", "[autograd]") {
    seed(6);
    const Array x = Array::from_vector<double>({0.5, -1.0, 2.0}, {3});
    const Array c = Array::from_vector<double>({1.5, 0.5, -0.5}, {3});
    const Array gy = Array::from_vector<double>({1.0, -2.0, 0.5}, {3});
    // Right for x, wrong for the constant c: the check passes only when c is left out.
    const VariableFunction f = [](const std::vector<Variable>& xs) {
        const Variable c_wrong(xs[1].array(), false);  // no gradient reaches c
        return std::vector<Variable>{xs[0] * c_wrong + xs[1] * 0.0 + c_wrong * c_wrong};
    };
    CHECK_NOTHROW(check_backward(f, {x, c}, {gy}, {.no_grads = {false, true}}));
    CHECK_THROWS_AS(check_backward(f, {x, c}, {gy}), GradientCheckError);
    CHECK_THROWS_AS(check_backward(f, {x, c}, {gy}, {.no_grads = {false}}), ValueError);
}

TEST_CASE("gradient_check: params are checked, restored, and keep their grads", "[autograd]") {
    seed(7);
    const Array x = Array::from_vector<double>({0.5, -1.0, 2.0, 0.3}, {2, 2});
    const Variable w(Array::from_vector<double>({1.0, -0.5, 0.25, 2.0}, {2, 2}));
    const Array gy = Array::from_vector<double>({1.0, 0.5, -1.0, 2.0}, {2, 2});
    const VariableFunction right = [&w](const std::vector<Variable>& xs) { return std::vector<Variable>{xs[0] * w}; };
    CHECK_NOTHROW(check_backward(right, {x}, {gy}, {.params = {w}}));
    REQUIRE(w.grad().defined());
    check_allclose(w.array(), {1.0, -0.5, 0.25, 2.0}, {2, 2}, {0, 0});  // put back
    // A backward that forgets w: wrong only when w is checked.
    const VariableFunction detached = [&w](const std::vector<Variable>& xs) {
        return std::vector<Variable>{xs[0] * Variable(w.array(), false)};
    };
    CHECK_NOTHROW(check_backward(detached, {x}, {gy}));
    CHECK_THROWS_AS(check_backward(detached, {x}, {gy}, {.params = {w}}), GradientCheckError);
    check_allclose(w.array(), {1.0, -0.5, 0.25, 2.0}, {2, 2}, {0, 0});
    // Second order through a param: the derivatives of the first-order grads (gy w^2 for x,
    // 2 gy x w for w) along w are checked too.
    const Array ggx = Array::from_vector<double>({0.3, -0.7, 1.1, 0.2}, {2, 2});
    const Array ggw = Array::from_vector<double>({-0.4, 0.9, 0.6, -1.3}, {2, 2});
    const VariableFunction square_w = [&w](const std::vector<Variable>& xs) {
        return std::vector<Variable>{xs[0] * w * w};
    };
    CHECK_NOTHROW(check_double_backward(square_w, {x}, {gy}, {ggx, ggw}, {.atol = 1e-5, .rtol = 1e-4, .params = {w}}));
}

TEST_CASE("gradient_check: an undefined grad output leaves its output out", "[autograd]") {
    seed(8);
    const Array x = Array::from_vector<double>({0.5, -1.0}, {2});
    // The second output's backward is wrong; it is not checked without a grad output.
    const VariableFunction f = [](const std::vector<Variable>& xs) {
        return std::vector<Variable>{xs[0] * xs[0], std::make_shared<ScaledSquare>(1.5)->apply(xs)[0]};
    };
    const Array gy = ops::ones({2}, Dtype::kFloat64);
    CHECK_NOTHROW(check_backward(f, {x}, {gy, Array{}}));
    CHECK_THROWS_AS(check_backward(f, {x}, {gy, gy}), GradientCheckError);
    const auto g = [](const std::vector<Array>& xs) { return std::vector<Array>{ops::square(xs[0]), xs[0]}; };
    check_allclose(numerical_grad(g, {x}, {gy, Array{}}, 1e-4)[0], {1.0, -2.0}, {2}, {1e-7, 1e-7});
}
