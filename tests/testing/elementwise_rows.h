#pragma once
// The test rows of the elementwise op tables (Note [Elementwise tables] in
// core/elementwise_table.h): one row per UnaryOp and BinaryOp with a float64 reference, the
// domain random inputs come from, and the F:: function when F has one. The native tests
// (tests/functions/math/test_elementwise.cc) check each formula against its reference and
// each F gradient numerically; the CUDA tests (tests/cuda/test_elementwise_*.cc) run every
// row on every dtype against the native backend. A test fails while an op has no row here.

#include <cmath>
#include <numbers>
#include <vector>

#include "autograd/basic_math.h"
#include "core/elementwise_table.h"
#include "functions/activation.h"
#include "functions/math.h"

namespace rensa::testing {

struct UnaryTestRow {
    UnaryOp op;
    double (*reference)(double);                      // numpy's value in float64 (predicates: 0 or 1)
    double low = -2.0, high = 2.0;                    // where random inputs come from (inside the domain)
    Variable (*function)(const Variable&) = nullptr;  // F::, when F has it
    bool differentiable = true;                       // F's gradient is checked numerically
    std::vector<double> kinks{};                      // inputs keep away from these
};

struct BinaryTestRow {
    BinaryOp op;
    double (*reference)(double, double);
    double low = -2.0, high = 2.0;  // both operands
    Variable (*function)(const Variable&, const Variable&) = nullptr;
    bool positive_b = false;  // b in [0.5, high) (divisions)
};

inline const std::vector<UnaryTestRow>& unary_test_rows() {
    using std::numbers::sqrt2;
    static const std::vector<UnaryTestRow> rows{
        {UnaryOp::kNegative, [](double x) { return -x; }},
        {UnaryOp::kAbs, [](double x) { return std::abs(x); }, -1.0, 1.0, F::absolute, true, {0.0}},
        {UnaryOp::kSign, [](double x) { return double((0 < x) - (x < 0)); }, -2.0, 2.0, F::sign, false, {0.0}},
        {UnaryOp::kReciprocal, [](double x) { return 1 / x; }, 0.5, 2.0},
        {UnaryOp::kFloor, [](double x) { return std::floor(x); }, -3.0, 3.0, F::floor, false},
        {UnaryOp::kCeil, [](double x) { return std::ceil(x); }, -3.0, 3.0, F::ceil, false},
        {UnaryOp::kTrunc, [](double x) { return std::trunc(x); }, -3.0, 3.0, F::fix, false},
        {UnaryOp::kExp, [](double x) { return std::exp(x); }, -2.0, 2.0, F::exp},
        {UnaryOp::kExpm1, [](double x) { return std::expm1(x); }, -2.0, 2.0, F::expm1},
        {UnaryOp::kLog, [](double x) { return std::log(x); }, 0.5, 2.0, F::log},
        {UnaryOp::kLog1p, [](double x) { return std::log1p(x); }, -0.5, 1.0, F::log1p},
        {UnaryOp::kLog2, [](double x) { return std::log2(x); }, 0.5, 2.0, F::log2},
        {UnaryOp::kLog10, [](double x) { return std::log10(x); }, 0.5, 2.0, F::log10},
        {UnaryOp::kSqrt, [](double x) { return std::sqrt(x); }, 0.5, 2.0, F::sqrt},
        {UnaryOp::kRsqrt, [](double x) { return 1 / std::sqrt(x); }, 0.5, 2.0, F::rsqrt},
        {UnaryOp::kSquare, [](double x) { return x * x; }, -1.0, 1.0, F::square},
        {UnaryOp::kSin, [](double x) { return std::sin(x); }, -2.0, 2.0, F::sin},
        {UnaryOp::kCos, [](double x) { return std::cos(x); }, -2.0, 2.0, F::cos},
        {UnaryOp::kTan, [](double x) { return std::tan(x); }, -1.0, 1.0, F::tan},
        {UnaryOp::kArcsin, [](double x) { return std::asin(x); }, -0.9, 0.9, F::arcsin},
        {UnaryOp::kArccos, [](double x) { return std::acos(x); }, -0.9, 0.9, F::arccos},
        {UnaryOp::kArctan, [](double x) { return std::atan(x); }, -2.0, 2.0, F::arctan},
        {UnaryOp::kSinh, [](double x) { return std::sinh(x); }, -1.5, 1.5, F::sinh},
        {UnaryOp::kCosh, [](double x) { return std::cosh(x); }, -1.5, 1.5, F::cosh},
        {UnaryOp::kTanh, [](double x) { return std::tanh(x); }, -2.0, 2.0, F::tanh},
        {UnaryOp::kSigmoid, [](double x) { return 1 / (1 + std::exp(-x)); }, -6.0, 6.0, F::sigmoid},
        {UnaryOp::kErf, [](double x) { return std::erf(x); }, -1.5, 1.5, F::erf},
        {UnaryOp::kErfc, [](double x) { return std::erfc(x); }, -1.5, 1.5, F::erfc},
        {UnaryOp::kNdtr, [](double x) { return 0.5 * std::erfc(-x / sqrt2); }, -2.0, 2.0, F::ndtr},
        {UnaryOp::kErfcx,
         [](double x) {
             const long double v = x;  // exp(x^2) fits long double's range where double's ends
             return static_cast<double>(std::exp(v * v) * std::erfc(v));
         },
         -2.0, 30.0, F::erfcx},
        {UnaryOp::kLogicalNot, [](double x) { return double(x == 0); }},
        {UnaryOp::kIsnan, [](double x) { return double(std::isnan(x)); }},
        {UnaryOp::kIsinf, [](double x) { return double(std::isinf(x)); }},
        {UnaryOp::kIsfinite, [](double x) { return double(std::isfinite(x)); }},
    };
    return rows;
}

inline const std::vector<BinaryTestRow>& binary_test_rows() {
    static const std::vector<BinaryTestRow> rows{
        {BinaryOp::kAdd, [](double a, double b) { return a + b; }},
        {BinaryOp::kSubtract, [](double a, double b) { return a - b; }},
        {BinaryOp::kMultiply, [](double a, double b) { return a * b; }},
        {BinaryOp::kDivide, [](double a, double b) { return a / b; }, -2.0, 2.0, nullptr, true},
        {BinaryOp::kFloorDivide, [](double a, double b) { return std::floor(a / b); }, -4.0, 4.0, nullptr, true},
        {BinaryOp::kMod,
         [](double a, double b) {
             const double r = std::fmod(a, b);
             return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
         },
         -4.0, 4.0, nullptr, true},
        {BinaryOp::kFmod, [](double a, double b) { return std::fmod(a, b); }, -4.0, 4.0, F::fmod, true},
        {BinaryOp::kPower, [](double a, double b) { return std::pow(a, b); }, 0.5, 2.0, nullptr, true},
        {BinaryOp::kMaximum, [](double a, double b) { return a < b ? b : a; }},
        {BinaryOp::kMinimum, [](double a, double b) { return b < a ? b : a; }},
        {BinaryOp::kArctan2, [](double a, double b) { return std::atan2(a, b); }, -2.0, 2.0, F::arctan2},
        {BinaryOp::kKeepWherePositive, [](double a, double b) { return b > 0 ? a : 0.0; }},
        {BinaryOp::kEqual, [](double a, double b) { return double(a == b); }},
        {BinaryOp::kNotEqual, [](double a, double b) { return double(a != b); }},
        {BinaryOp::kLess, [](double a, double b) { return double(a < b); }},
        {BinaryOp::kLessEqual, [](double a, double b) { return double(a <= b); }},
        {BinaryOp::kGreater, [](double a, double b) { return double(a > b); }},
        {BinaryOp::kGreaterEqual, [](double a, double b) { return double(a >= b); }},
        {BinaryOp::kLogicalAnd, [](double a, double b) { return double(a != 0 && b != 0); }},
        {BinaryOp::kLogicalOr, [](double a, double b) { return double(a != 0 || b != 0); }},
        {BinaryOp::kLogicalXor, [](double a, double b) { return double((a != 0) != (b != 0)); }},
    };
    return rows;
}

}  // namespace rensa::testing
