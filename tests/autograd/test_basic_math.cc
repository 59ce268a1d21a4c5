// The basic differentiable arithmetic: forward values, check_backward and
// check_double_backward on every operator and form (Variable-Variable with and without
// broadcasting, Variable-Scalar, Scalar-Variable), and dtype errors.

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <string>

#include "autograd/autograd.h"
#include "core/ops/creation.h"
#include "core/ops/random.h"
#include "core/random.h"
#include "tests/autograd/test_functions.h"
#include "tests/testing/testing.h"

using namespace rensa;
using rensa::testing::check_allclose;

namespace {

using Binary = std::function<Variable(const Variable&, const Variable&)>;
using Unary = std::function<Variable(const Variable&)>;

// Values away from 0 (for div/log) and positive (for pow).
Array positive(const Shape& shape, Dtype dtype = Dtype::kFloat64) { return ops::uniform(shape, 0.5, 2.0, dtype); }

void check_binary(const Binary& f, const Shape& a_shape, const Shape& b_shape) {
    const Shape y_shape = broadcast_shapes(a_shape, b_shape, "test");
    const VariableFunction func = [&](const std::vector<Variable>& xs) {
        return std::vector<Variable>{f(xs[0], xs[1])};
    };
    const std::vector<Array> xs{positive(a_shape), positive(b_shape)};
    check_backward(func, xs, {ops::normal(y_shape, 0, 1, Dtype::kFloat64)}, {.atol = 1e-6, .rtol = 1e-5});
    check_double_backward(func, xs, {ops::normal(y_shape, 0, 1, Dtype::kFloat64)},
                          {ops::normal(a_shape, 0, 1, Dtype::kFloat64), ops::normal(b_shape, 0, 1, Dtype::kFloat64)},
                          {.atol = 1e-5, .rtol = 1e-4});
}

void check_unary(const Unary& f, const Shape& shape) {
    const VariableFunction func = [&](const std::vector<Variable>& xs) { return std::vector<Variable>{f(xs[0])}; };
    const std::vector<Array> xs{positive(shape)};
    check_backward(func, xs, {ops::normal(shape, 0, 1, Dtype::kFloat64)}, {.atol = 1e-6, .rtol = 1e-5});
    check_double_backward(func, xs, {ops::normal(shape, 0, 1, Dtype::kFloat64)},
                          {ops::normal(shape, 0, 1, Dtype::kFloat64)}, {.atol = 1e-5, .rtol = 1e-4});
}

}  // namespace

TEST_CASE("basic_math: forward values of every operator", "[autograd]") {
    const Variable a(Array::from_vector<double>({1, 2, 3, 4}, {2, 2}));
    const Variable b(Array::from_vector<double>({2, 4}, {2}));
    check_allclose((a + b).array(), {3, 6, 5, 8}, {2, 2}, {0, 0});
    check_allclose((a - b).array(), {-1, -2, 1, 0}, {2, 2}, {0, 0});
    check_allclose((a * b).array(), {2, 8, 6, 16}, {2, 2}, {0, 0});
    check_allclose((a / b).array(), {0.5, 0.5, 1.5, 1}, {2, 2}, {0, 0});
    check_allclose(pow(a, b).array(), {1, 16, 9, 256}, {2, 2}, {0, 0});
    check_allclose((-a).array(), {-1, -2, -3, -4}, {2, 2}, {0, 0});
    check_allclose((a + 1.0).array(), {2, 3, 4, 5}, {2, 2}, {0, 0});
    check_allclose((10.0 - a).array(), {9, 8, 7, 6}, {2, 2}, {0, 0});
    check_allclose((a - 1).array(), {0, 1, 2, 3}, {2, 2}, {0, 0});
    check_allclose((a * 2).array(), {2, 4, 6, 8}, {2, 2}, {0, 0});
    check_allclose((12.0 / a).array(), {12, 6, 4, 3}, {2, 2}, {0, 0});
    check_allclose((a / 2.0).array(), {0.5, 1, 1.5, 2}, {2, 2}, {0, 0});
    check_allclose(pow(a, 2).array(), {1, 4, 9, 16}, {2, 2}, {0, 0});
    check_allclose(pow(2.0, a).array(), {2, 4, 8, 16}, {2, 2}, {0, 0});
    check_allclose(exp(log(a)).array(), {1, 2, 3, 4}, {2, 2}, {1e-15, 1e-15});
}

TEST_CASE("basic_math: a scalar keeps the Variable's dtype", "[autograd]") {
    const Variable x(ops::ones({3}, Dtype::kFloat32));
    CHECK((x * 2.5).dtype() == Dtype::kFloat32);
    CHECK((1 - x).dtype() == Dtype::kFloat32);
    CHECK(pow(x, 3).dtype() == Dtype::kFloat32);
    const Variable h(ops::ones({3}, Dtype::kFloat16));

    CHECK((h / 3.0).dtype() == Dtype::kFloat16);
}

TEST_CASE("basic_math: check_backward and check_double_backward on Variable-Variable forms", "[autograd]") {
    seed(7);
    const std::vector<std::pair<std::string, Binary>> ops_list{
        {"add", [](auto& a, auto& b) { return a + b; }},     {"sub", [](auto& a, auto& b) { return a - b; }},
        {"mul", [](auto& a, auto& b) { return a * b; }},     {"div", [](auto& a, auto& b) { return a / b; }},
        {"pow", [](auto& a, auto& b) { return pow(a, b); }},
    };
    const std::vector<std::pair<Shape, Shape>> shapes{
        {{2, 3}, {2, 3}}, {{2, 3}, {3}}, {{3}, {2, 3}},       {{2, 1}, {1, 3}},
        {{}, {2, 3}},     {{2, 3}, {}},  {{4, 1, 2}, {3, 1}},
    };
    for (const auto& [name, f] : ops_list) {
        for (const auto& [a_shape, b_shape] : shapes) {
            CAPTURE(name, a_shape, b_shape);
            check_binary(f, a_shape, b_shape);
        }
    }
}

TEST_CASE("basic_math: check_backward on Variable-Scalar and Scalar-Variable forms", "[autograd]") {
    seed(11);
    const std::vector<std::pair<std::string, Unary>> forms{
        {"x + c", [](auto& x) { return x + 1.5; }},
        {"c + x", [](auto& x) { return 1.5 + x; }},
        {"x - c", [](auto& x) { return x - 1.5; }},
        {"c - x", [](auto& x) { return 1.5 - x; }},
        {"x * c", [](auto& x) { return x * -2.5; }},
        {"c * x", [](auto& x) { return -2.5 * x; }},
        {"x / c", [](auto& x) { return x / 3.0; }},
        {"c / x", [](auto& x) { return 3.0 / x; }},
        {"x ** c", [](auto& x) { return pow(x, 3); }},
        {"x ** 0.5", [](auto& x) { return pow(x, 0.5); }},
        {"c ** x", [](auto& x) { return pow(2.5, x); }},
        {"-x", [](auto& x) { return -x; }},
        {"exp", [](auto& x) { return exp(x); }},
        {"log", [](auto& x) { return log(x); }},
        {"sum", [](auto& x) { return broadcast_to(sum(x, Axes{1}, true), x.shape()); }},
        {"sum_to",
         [](auto& x) {
             return broadcast_to(sum_to(x, {1, 3}), x.shape());
         }},
        {"reshape",
         [](auto& x) {
             return reshape(reshape(x, {3, 2}) * 2.0, x.shape());
         }},
    };
    for (const auto& [name, f] : forms) {
        CAPTURE(name);
        check_unary(f, {2, 3});
    }
}

TEST_CASE("basic_math: float32 functions checked in float64", "[autograd]") {
    seed(3);
    const VariableFunction f = [](const std::vector<Variable>& xs) {
        return std::vector<Variable>{xs[0] * xs[1] / (xs[0] + 1.0)};
    };
    check_backward(f, {positive({3}, Dtype::kFloat32), positive({3}, Dtype::kFloat32)},
                   {ops::ones({3}, Dtype::kFloat32)}, {.atol = 1e-4, .rtol = 1e-3, .dtype = Dtype::kFloat64});
}

TEST_CASE("basic_math: dtype and shape errors name the function", "[autograd]") {
    const Variable f32(ops::ones({2}, Dtype::kFloat32));
    const Variable f64(ops::ones({2}, Dtype::kFloat64));
    const Variable i32(ops::ones({2}, Dtype::kInt32), false);
    CHECK_THROWS_AS(f32 + f64, DtypeError);
    CHECK_THROWS_WITH(f32 * f64, Catch::Contains("mul") && Catch::Contains("float32") && Catch::Contains("float64"));
    CHECK_THROWS_AS(i32 * 2, DtypeError);
    CHECK_THROWS_AS(f32 + Variable(ops::ones({3}, Dtype::kFloat32)), DimensionError);
    CHECK_THROWS_AS(Variable() + f32, ValueError);
    CHECK_THROWS_AS(sum_to(Variable(ops::ones({2, 3})), {4}), DimensionError);
}

TEST_CASE("basic_math: the exponent's grad is computed only when needed", "[autograd]") {
    // log(a) of a negative base is NaN; a constant exponent must not bring it in.
    ConfigScope debug{&Config::debug, true};
    const Variable a(Array::from_vector<double>({-2.0}, {}));
    const Variable b(Array::from_vector<double>({2.0}, {}), false);
    pow(a, b).backward();
    CHECK(a.grad().item<double>() == -4.0);
}
