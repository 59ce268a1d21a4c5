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
    bool integer_a = false;   // a: integers in [low, high), int32 and not differentiated (orders)
};

namespace reference {
// Independent long double references for the special functions (Note [Special functions] in
// core/special_math.h computes them otherwise).
inline long double digamma(long double x) {
    long double shift = 0;
    for (; x < 30; x += 1) shift -= 1 / x;
    const long double r = 1 / (x * x);
    return shift + std::log(x) - 1 / (2 * x) - r * (1.0L / 12 - r * (1.0L / 120 - r * (1.0L / 252 - r / 240)));
}
// (-1)^(n+1) n! zeta(n + 1, x): 2000 terms, then the integral tail with two corrections.
inline double polygamma(double n, double x) {
    if (n == 0) return static_cast<double>(digamma(x));
    const long double s = n + 1;
    long double sum = 0, a = x;
    for (int k = 0; k < 2000; ++k, a += 1) sum += std::pow(a, -s);
    sum += std::pow(a, 1 - s) / (s - 1) + std::pow(a, -s) / 2 + s * std::pow(a, -s - 1) / 12;
    const long double sign = std::fmod(n, 2.0) == 0 ? -1 : 1;
    return static_cast<double>(sign * std::tgamma(s) * sum);
}
// The root of the increasing f on [low, high] by bisection.
template <class F>
double bisect(F f, long double target, long double low, long double high) {
    for (int i = 0; i < 200; ++i) {
        const long double mid = (low + high) / 2;
        (f(mid) < target ? low : high) = mid;
    }
    return static_cast<double>((low + high) / 2);
}
// zeta(s, q) for s > 1: polygamma's sum of 2000 terms with its tail.
inline double zeta(double s, double q) {
    long double sum = 0, a = q;
    for (int k = 0; k < 2000; ++k, a += 1) sum += std::pow(a, -static_cast<long double>(s));
    const long double ls = s;
    sum += std::pow(a, 1 - ls) / (ls - 1) + std::pow(a, -ls) / 2 + ls * std::pow(a, -ls - 1) / 12;
    return static_cast<double>(sum);
}
inline long double ndtr(long double x) { return std::erfc(-x / std::sqrt(2.0L)) / 2; }
}  // namespace reference

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
        {UnaryOp::kArctanh, [](double x) { return std::atanh(x); }, -0.9, 0.9, F::arctanh},
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
        {UnaryOp::kLgamma, [](double x) { return std::lgamma(x); }, 0.2, 5.0, F::lgamma},
        {UnaryOp::kDigamma, [](double x) { return static_cast<double>(reference::digamma(x)); }, 0.3, 5.0, F::digamma},
        {UnaryOp::kLogNdtr, [](double x) { return static_cast<double>(std::log(reference::ndtr(x))); }, -20.0, 5.0,
         F::log_ndtr},
        {UnaryOp::kNdtri, [](double p) { return reference::bisect(reference::ndtr, p, -40, 40); }, 0.02, 0.98,
         F::ndtri},
        {UnaryOp::kErfinv,
         [](double x) { return reference::bisect([](long double y) { return std::erf(y); }, x, -6, 6); }, -0.9, 0.9,
         F::erfinv},
        {UnaryOp::kErfcinv,
         [](double q) { return reference::bisect([](long double y) { return -std::erfc(y); }, -q, -6, 6); }, 0.05, 1.95,
         F::erfcinv},
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
        {BinaryOp::kPolygamma, reference::polygamma, 0.0, 3.0, F::polygamma, true, true},
        {BinaryOp::kZeta, reference::zeta, 2.0, 5.0, F::zeta, true, true},
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
