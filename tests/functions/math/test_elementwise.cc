// Elementwise unary math functions: forward against std:: references, gradients,
// double backprop, 0-d and size-0 inputs, dtype errors.

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>

#include "core/ops/creation.h"
#include "functions/math.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

struct UnaryCase {
    const char* name;
    Variable (*func)(const Variable&);
    double (*reference)(double);
    double low, high;
    std::vector<double> kinks{};
};

const std::vector<UnaryCase>& unary_cases() {
    static const std::vector<UnaryCase> cases{
        {"log1p", F::log1p, [](double x) { return std::log1p(x); }, -0.5, 1.0},
        {"log2", F::log2, [](double x) { return std::log2(x); }, 0.5, 2.0},
        {"log10", F::log10, [](double x) { return std::log10(x); }, 0.5, 2.0},
        {"sqrt", F::sqrt, [](double x) { return std::sqrt(x); }, 0.5, 2.0},
        {"rsqrt", F::rsqrt, [](double x) { return 1.0 / std::sqrt(x); }, 0.5, 2.0},
        {"square", F::square, [](double x) { return x * x; }, -1.0, 1.0},
        {"absolute", F::absolute, [](double x) { return std::abs(x); }, -1.0, 1.0, {0.0}},
        {"sin", F::sin, [](double x) { return std::sin(x); }, -2.0, 2.0},
        {"cos", F::cos, [](double x) { return std::cos(x); }, -2.0, 2.0},
        {"tan", F::tan, [](double x) { return std::tan(x); }, -1.0, 1.0},
        {"arctan", F::arctan, [](double x) { return std::atan(x); }, -2.0, 2.0},
        {"sinh", F::sinh, [](double x) { return std::sinh(x); }, -1.5, 1.5},
        {"cosh", F::cosh, [](double x) { return std::cosh(x); }, -1.5, 1.5},
        {"erf", F::erf, [](double x) { return std::erf(x); }, -1.5, 1.5},
    };
    return cases;
}

}  // namespace

TEST_CASE("math: unary elementwise functions", "[functions][math]") {
    for (const UnaryCase& c : unary_cases()) {
        for (const Shape& shape : {Shape{2, 3}, Shape{}, Shape{0, 2}}) {
            const bool nonempty = shape_size(shape) > 0;
            check_function({
                .name = c.name,
                .inputs = {{.shape = shape, .values = away_from(c.kinks, c.low, c.high)}},
                .func = [&c](const Vars& xs) { return Vars{c.func(xs[0])}; },
                .reference = [&c](const Arrays& xs) { return Arrays{map(xs[0], c.reference)}; },
                .backward = nonempty,
                .double_backward = nonempty,
            });
        }
    }
}

TEST_CASE("math: unary functions reject integer input", "[functions][math]") {
    const Variable x(ops::zeros({2}, Dtype::kInt32));
    for (const UnaryCase& c : unary_cases()) {
        INFO(c.name);
        CHECK_THROWS_AS(c.func(x), DtypeError);
    }
    CHECK_THROWS_WITH(F::sqrt(x), Catch::Contains("sqrt: Expect: x.dtype.kind == 'f', Actual: int32"));
}
