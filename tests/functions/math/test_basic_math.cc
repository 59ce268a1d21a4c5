// The arithmetic of Variables (F::add/sub/mul/div/pow/neg/exp/log and the operators),
// with broadcasting: forward against float64 references, gradients, double backprop.

#include <catch2/catch.hpp>

#include <cmath>

#include "core/ops/creation.h"
#include "functions/math.h"
#include "tests/functions/math/reference.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;
namespace ref = rensa::testing::math_reference;

namespace {

struct BinaryCase {
    const char* name;
    std::function<Variable(const Variable&, const Variable&)> func;
    std::function<double(double, double)> reference;
    double b_low = -1.0, b_high = 1.0;  // range of the second operand (and the first, for pow)
};

const std::vector<BinaryCase>& binary_cases() {
    static const std::vector<BinaryCase> cases{
        {"add", [](const Variable& a, const Variable& b) { return F::add(a, b); },
         [](double a, double b) { return a + b; }},
        {"sub", [](const Variable& a, const Variable& b) { return a - b; }, [](double a, double b) { return a - b; }},
        {"mul", [](const Variable& a, const Variable& b) { return F::mul(a, b); },
         [](double a, double b) { return a * b; }},
        {"div", [](const Variable& a, const Variable& b) { return a / b; }, [](double a, double b) { return a / b; },
         0.5, 2.0},
        {"pow", [](const Variable& a, const Variable& b) { return F::pow(a, b); },
         [](double a, double b) { return std::pow(a, b); }, 0.5, 2.0},
    };
    return cases;
}

}  // namespace

TEST_CASE("math: binary operators with broadcasting", "[functions][math]") {
    const std::vector<std::pair<Shape, Shape>> shapes{{{2, 3}, {2, 3}}, {{2, 3}, {3}}, {{2, 1}, {1, 3}}, {{}, {2}}};
    for (const BinaryCase& c : binary_cases()) {
        for (const auto& [sa, sb] : shapes) {
            const bool is_pow = std::string(c.name) == "pow";
            check_function({
                .name = c.name,
                .inputs = {{.shape = sa, .low = is_pow ? 0.5 : -1.0, .high = is_pow ? 2.0 : 1.0},
                           {.shape = sb, .low = c.b_low, .high = c.b_high}},
                .func = [&c](const Vars& xs) { return Vars{c.func(xs[0], xs[1])}; },
                .reference = [&c](const Arrays& xs) { return Arrays{ref::binary(xs[0], xs[1], c.reference)}; },
            });
        }
    }
}

TEST_CASE("math: operators with a scalar", "[functions][math]") {
    using Fn = std::function<Variable(const Variable&)>;
    using Ref = std::function<double(double)>;
    const std::vector<std::tuple<const char*, Fn, Ref>> cases{
        {"x + 2", [](const Variable& x) { return x + 2.0; }, [](double x) { return x + 2; }},
        {"2 - x", [](const Variable& x) { return 2.0 - x; }, [](double x) { return 2 - x; }},
        {"x * 3", [](const Variable& x) { return x * 3.0; }, [](double x) { return x * 3; }},
        {"x / 4", [](const Variable& x) { return x / 4.0; }, [](double x) { return x / 4; }},
        {"2 / x", [](const Variable& x) { return 2.0 / x; }, [](double x) { return 2 / x; }},
        {"x ** 3", [](const Variable& x) { return F::pow(x, 3); }, [](double x) { return x * x * x; }},
        {"2 ** x", [](const Variable& x) { return F::pow(2.0, x); }, [](double x) { return std::pow(2.0, x); }},
        {"-x", [](const Variable& x) { return -x; }, [](double x) { return -x; }},
        {"neg", [](const Variable& x) { return F::neg(x); }, [](double x) { return -x; }},
        {"exp", [](const Variable& x) { return F::exp(x); }, [](double x) { return std::exp(x); }},
        {"log", [](const Variable& x) { return F::log(x); }, [](double x) { return std::log(x); }},
    };
    for (const auto& [name, fn, reference] : cases) {
        check_function({
            .name = name,
            .inputs = {{.shape = {2, 3}, .low = 0.5, .high = 2.0}},
            .func = [&fn](const Vars& xs) { return Vars{fn(xs[0])}; },
            .reference = [&reference](const Arrays& xs) { return Arrays{map(xs[0], reference)}; },
        });
    }
}

TEST_CASE("math: operators on size-0 inputs", "[functions][math]") {
    check_function({
        .name = "add size-0",
        .inputs = {{.shape = {0, 3}}, {.shape = {3}}},
        .func = [](const Vars& xs) { return Vars{xs[0] + xs[1]}; },
        .reference = [](const Arrays& xs) { return Arrays{ref::binary(xs[0], xs[1], std::plus<>())}; },
        .backward = false,
        .double_backward = false,
    });
}

TEST_CASE("math: operator errors", "[functions][math]") {
    const Variable a(ops::zeros({2, 3})), b(ops::zeros({4})), c(ops::zeros({3}, Dtype::kFloat64));
    CHECK_THROWS_AS(a + b, DimensionError);
    CHECK_THROWS_AS(a * c, DtypeError);
    CHECK_THROWS_AS(F::exp(Variable(ops::zeros({2}, Dtype::kInt32))), DtypeError);
}
