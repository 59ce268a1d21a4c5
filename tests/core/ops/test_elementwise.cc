#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>

#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/operators.h"
#include "tests/testing/testing.h"

using namespace rensa;
using rensa::testing::check_allclose;
using rensa::testing::kAllLayouts;
using rensa::testing::Layout;
using rensa::testing::make_array;
using rensa::testing::to_doubles;

namespace {

constexpr Dtype kFloatDtypes[] = {Dtype::kFloat16, Dtype::kBFloat16, Dtype::kFloat32, Dtype::kFloat64};

struct UnaryCase {
    const char* name;
    std::function<Array(const Array&)> fn;
    std::function<double(double)> ref;
    double lo, hi;  // input range
};

std::vector<UnaryCase> float_unary_cases() {
    return {
        {"exp", [](const Array& x) { return ops::exp(x); }, [](double v) { return std::exp(v); }, -3, 3},
        {"expm1", [](const Array& x) { return ops::expm1(x); }, [](double v) { return std::expm1(v); }, -3, 3},
        {"log", [](const Array& x) { return ops::log(x); }, [](double v) { return std::log(v); }, 0.1, 5},
        {"log1p", [](const Array& x) { return ops::log1p(x); }, [](double v) { return std::log1p(v); }, 0, 5},
        {"log2", [](const Array& x) { return ops::log2(x); }, [](double v) { return std::log2(v); }, 0.1, 5},
        {"log10", [](const Array& x) { return ops::log10(x); }, [](double v) { return std::log10(v); }, 0.1, 5},
        {"sqrt", [](const Array& x) { return ops::sqrt(x); }, [](double v) { return std::sqrt(v); }, 0, 9},
        {"rsqrt", [](const Array& x) { return ops::rsqrt(x); }, [](double v) { return 1 / std::sqrt(v); }, 0.5, 9},
        {"reciprocal", [](const Array& x) { return ops::reciprocal(x); }, [](double v) { return 1 / v; }, 0.5, 4},
        {"sin", [](const Array& x) { return ops::sin(x); }, [](double v) { return std::sin(v); }, -3, 3},
        {"cos", [](const Array& x) { return ops::cos(x); }, [](double v) { return std::cos(v); }, -3, 3},
        {"tan", [](const Array& x) { return ops::tan(x); }, [](double v) { return std::tan(v); }, -1, 1},
        {"arcsin", [](const Array& x) { return ops::arcsin(x); }, [](double v) { return std::asin(v); }, -0.9, 0.9},
        {"arccos", [](const Array& x) { return ops::arccos(x); }, [](double v) { return std::acos(v); }, -0.9, 0.9},
        {"arctan", [](const Array& x) { return ops::arctan(x); }, [](double v) { return std::atan(v); }, -3, 3},
        {"sinh", [](const Array& x) { return ops::sinh(x); }, [](double v) { return std::sinh(v); }, -2, 2},
        {"cosh", [](const Array& x) { return ops::cosh(x); }, [](double v) { return std::cosh(v); }, -2, 2},
        {"tanh", [](const Array& x) { return ops::tanh(x); }, [](double v) { return std::tanh(v); }, -3, 3},
        {"sigmoid", [](const Array& x) { return ops::sigmoid(x); }, [](double v) { return 1 / (1 + std::exp(-v)); }, -8,
         8},
        {"erf", [](const Array& x) { return ops::erf(x); }, [](double v) { return std::erf(v); }, -2, 2},
        {"square", [](const Array& x) { return ops::square(x); }, [](double v) { return v * v; }, -3, 3},
        {"abs", [](const Array& x) { return ops::abs(x); }, [](double v) { return std::abs(v); }, -3, 3},
        {"negative", [](const Array& x) { return ops::negative(x); }, [](double v) { return -v; }, -3, 3},
        {"floor", [](const Array& x) { return ops::floor(x); }, [](double v) { return std::floor(v); }, -3, 3},
        {"ceil", [](const Array& x) { return ops::ceil(x); }, [](double v) { return std::ceil(v); }, -3, 3},
        {"sign", [](const Array& x) { return ops::sign(x); },
         [](double v) { return static_cast<double>((0 < v) - (v < 0)); }, -3, 3},
    };
}

std::vector<double> spread(int64_t n, double lo, double hi) {
    std::vector<double> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = lo + (hi - lo) * static_cast<double>(i) / (n - 1);
    return v;
}

}  // namespace

TEST_CASE("unary float ops match float64 references for every float dtype and layout", "[elementwise]") {
    const Shape shape{3, 7};
    for (const UnaryCase& c : float_unary_cases()) {
        for (Dtype dtype : kFloatDtypes) {
            for (Layout layout : kAllLayouts) {
                INFO(c.name << " " << dtype << " " << rensa::testing::layout_name(layout));
                const Array x = make_array(spread(21, c.lo, c.hi), shape, dtype, layout);
                const std::vector<double> xs = to_doubles(x);  // the values after rounding to dtype
                std::vector<double> expected;
                for (double v : xs) expected.push_back(c.ref(v));
                const Array y = c.fn(x);
                CHECK(y.dtype() == dtype);
                check_allclose(y, expected, shape, rensa::testing::tolerance(dtype));
            }
        }
    }
}

TEST_CASE("unary float ops promote integers like numpy", "[elementwise]") {
    CHECK(ops::exp(make_array({1, 2}, {2}, Dtype::kInt8)).dtype() == Dtype::kFloat16);
    CHECK(ops::exp(make_array({1, 2}, {2}, Dtype::kUInt8)).dtype() == Dtype::kFloat16);
    CHECK(ops::exp(make_array({1, 0}, {2}, Dtype::kBool)).dtype() == Dtype::kFloat16);
    const Array y = ops::sqrt(make_array({4, 9}, {2}, Dtype::kInt32));
    CHECK(y.dtype() == Dtype::kFloat64);
    check_allclose(y, {2, 3}, {2}, {0, 0});
    CHECK(ops::log(make_array({1, 2}, {2}, Dtype::kInt64)).dtype() == Dtype::kFloat64);
}

TEST_CASE("integer unary ops keep their dtype and wrap like numpy", "[elementwise]") {
    const Array x = make_array({-128, -3, 0, 5, 127}, {5}, Dtype::kInt8);
    check_allclose(ops::negative(x), {-128, 3, 0, -5, -127}, {5}, {0, 0});
    check_allclose(ops::abs(x), {-128, 3, 0, 5, 127}, {5}, {0, 0});
    check_allclose(ops::sign(x), {-1, -1, 0, 1, 1}, {5}, {0, 0});
    check_allclose(ops::square(make_array({-3, 4}, {2}, Dtype::kInt32)), {9, 16}, {2}, {0, 0});
    CHECK(ops::floor(make_array({-3, 4}, {2}, Dtype::kInt64)).dtype() == Dtype::kInt64);
    const Array big = Array::from_vector<int64_t>({std::numeric_limits<int64_t>::min()}, {1});
    CHECK(ops::negative(big).item<int64_t>() == std::numeric_limits<int64_t>::min());
    CHECK_THROWS_AS(ops::negative(make_array({1, 0}, {2}, Dtype::kBool)), DtypeError);
    CHECK_THROWS_AS(ops::sign(make_array({1, 0}, {2}, Dtype::kBool)), DtypeError);
}

TEST_CASE("predicates: isnan, isinf, isfinite, logical_not", "[elementwise]") {
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    for (Dtype dtype : kFloatDtypes) {
        const Array x = make_array({nan, inf, -inf, 0, 1.5}, {5}, dtype, Layout::kStrided);
        CHECK(ops::isnan(x).to_vector<bool>() == std::vector<bool>{true, false, false, false, false});
        CHECK(ops::isinf(x).to_vector<bool>() == std::vector<bool>{false, true, true, false, false});
        CHECK(ops::isfinite(x).to_vector<bool>() == std::vector<bool>{false, false, false, true, true});
        CHECK(ops::logical_not(x).to_vector<bool>() == std::vector<bool>{false, false, false, true, false});
    }
    const Array i = make_array({0, 3}, {2}, Dtype::kInt32);
    CHECK(ops::isnan(i).to_vector<bool>() == std::vector<bool>{false, false});
    CHECK(ops::isfinite(i).to_vector<bool>() == std::vector<bool>{true, true});
    CHECK(ops::isnan(i).dtype() == Dtype::kBool);
}

TEST_CASE("sigmoid does not overflow at extreme inputs", "[elementwise]") {
    const Array y = ops::sigmoid(make_array({-1000, 1000}, {2}, Dtype::kFloat32));
    check_allclose(y, {0, 1}, {2}, {0, 0});
}

namespace {

struct BinaryCase {
    const char* name;
    std::function<Array(const Array&, const Array&)> fn;
    std::function<double(double, double)> ref;
};

double py_floordiv(double a, double b) { return std::floor(a / b); }
double py_mod(double a, double b) {
    double r = std::fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

// Integer results wrap modulo 2^bits like numpy.
double wrap_to(Dtype dtype, double v) {
    switch (dtype) {
        case Dtype::kInt8:
            return static_cast<double>(static_cast<int8_t>(static_cast<int64_t>(v)));
        case Dtype::kUInt8:
            return static_cast<double>(static_cast<uint8_t>(static_cast<int64_t>(v)));
        default:
            return v;
    }
}

std::vector<BinaryCase> arithmetic_cases() {
    return {
        {"add", [](const Array& a, const Array& b) { return a + b; }, [](double x, double y) { return x + y; }},
        {"subtract", [](const Array& a, const Array& b) { return a - b; }, [](double x, double y) { return x - y; }},
        {"multiply", [](const Array& a, const Array& b) { return a * b; }, [](double x, double y) { return x * y; }},
        {"floor_divide", [](const Array& a, const Array& b) { return ops::floor_divide(a, b); }, py_floordiv},
        {"mod", [](const Array& a, const Array& b) { return ops::mod(a, b); }, py_mod},
        {"maximum", [](const Array& a, const Array& b) { return ops::maximum(a, b); },
         [](double x, double y) { return std::max(x, y); }},
        {"minimum", [](const Array& a, const Array& b) { return ops::minimum(a, b); },
         [](double x, double y) { return std::min(x, y); }},
        {"keep_where_positive", [](const Array& a, const Array& b) { return ops::keep_where_positive(a, b); },
         [](double x, double y) { return y > 0 ? x : 0.0; }},
        {"power", [](const Array& a, const Array& b) { return ops::power(a, b); },
         [](double x, double y) { return std::pow(x, y); }},
    };
}

}  // namespace

TEST_CASE("binary arithmetic matches references for every dtype, layout and broadcast", "[elementwise]") {
    constexpr Dtype kNumeric[] = {Dtype::kInt8,    Dtype::kUInt8,    Dtype::kInt32,   Dtype::kInt64,
                                  Dtype::kFloat16, Dtype::kBFloat16, Dtype::kFloat32, Dtype::kFloat64};
    // Small non-negative exponents and non-zero divisors keep every dtype exact or in range.
    const std::vector<double> av = {-7, -3, 0, 2, 5, 9, 1, -1, 4, 3, 6, -5};
    const std::vector<double> bv = {3, -2, 1, 2};
    for (const BinaryCase& c : arithmetic_cases()) {
        for (Dtype dtype : kNumeric) {
            for (Layout layout : kAllLayouts) {
                INFO(c.name << " " << dtype << " " << rensa::testing::layout_name(layout));
                std::vector<double> a_vals = av, b_vals = bv;
                if (dtype == Dtype::kUInt8) {
                    for (double& v : a_vals) v = std::abs(v);
                    for (double& v : b_vals) v = std::abs(v);
                }
                if (std::string(c.name) == "power") {
                    for (double& v : b_vals) v = std::abs(v);
                }
                const Array a = make_array(a_vals, {3, 4}, dtype, layout);
                const Array b = make_array(b_vals, {4}, dtype, layout);  // broadcast along rows
                std::vector<double> expected;
                for (int i = 0; i < 12; ++i) {
                    const double e = c.ref(a_vals[static_cast<size_t>(i)], b_vals[static_cast<size_t>(i % 4)]);
                    expected.push_back(wrap_to(dtype, e));
                }
                const Array y = c.fn(a, b);
                CHECK(y.dtype() == dtype);
                check_allclose(y, expected, {3, 4}, rensa::testing::tolerance(dtype));
            }
        }
    }
}

TEST_CASE("divide is true division and promotes integers to float64", "[elementwise]") {
    const Array a = make_array({1, 7, -7}, {3}, Dtype::kInt32);
    const Array b = make_array({2, 2, 2}, {3}, Dtype::kInt32);
    const Array y = a / b;
    CHECK(y.dtype() == Dtype::kFloat64);
    check_allclose(y, {0.5, 3.5, -3.5}, {3}, {0, 0});
    CHECK((make_array({1}, {1}, Dtype::kFloat16) / make_array({4}, {1}, Dtype::kFloat16)).dtype() == Dtype::kFloat16);
    const double inf = std::numeric_limits<double>::infinity();
    check_allclose(make_array({1, -1}, {2}, Dtype::kFloat32) / 0.0, {inf, -inf}, {2}, {0, 0});
}

TEST_CASE("integer division and modulo by zero give 0 and INT_MIN / -1 wraps (numpy, no UB)", "[elementwise]") {
    const Array a = Array::from_vector<int32_t>({7, -7, std::numeric_limits<int32_t>::min()}, {3});
    check_allclose(ops::floor_divide(a, 0), {0, 0, 0}, {3}, {0, 0});
    check_allclose(ops::mod(a, 0), {0, 0, 0}, {3}, {0, 0});
    CHECK(ops::floor_divide(a, -1).to_vector<int32_t>()[2] == std::numeric_limits<int32_t>::min());
    check_allclose(ops::floor_divide(a, 2), {3, -4, -1073741824}, {3}, {0, 0});
    check_allclose(ops::mod(a, -3), {-2, -1, -2}, {3}, {0, 0});
    // Wrapping addition, not UB.
    const Array m = Array::from_vector<int32_t>({std::numeric_limits<int32_t>::max()}, {1});
    CHECK((m + 1).item<int32_t>() == std::numeric_limits<int32_t>::min());
    CHECK((m * 2).item<int32_t>() == -2);
    // Integer powers are exact; negative exponents truncate instead of raising.
    check_allclose(
        ops::power(Array::from_vector<int64_t>({3, 2, 1, -1}, {4}), Array::from_vector<int64_t>({13, 40, -5, -3}, {4})),
        {1594323, 1099511627776.0, 1, -1}, {4}, {0, 0});
}

TEST_CASE("maximum and minimum propagate NaN", "[elementwise]") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (Dtype dtype : kFloatDtypes) {
        const Array a = make_array({nan, 1, 2}, {3}, dtype);
        const Array b = make_array({0, nan, 1}, {3}, dtype);
        check_allclose(ops::maximum(a, b), {nan, nan, 2}, {3}, {0, 0});
        check_allclose(ops::minimum(a, b), {nan, nan, 1}, {3}, {0, 0});
    }
}

TEST_CASE("comparisons and logical ops give bool", "[elementwise]") {
    for (Dtype dtype : kAllDtypes) {
        INFO(dtype);
        const Array a = make_array({0, 1, 1, 0}, {2, 2}, dtype, Layout::kTransposed);
        const Array b = make_array({1, 1}, {2}, dtype);
        const Array lt = a < b;
        CHECK(lt.dtype() == Dtype::kBool);
        CHECK(lt.to_vector<bool>() == std::vector<bool>{true, false, false, true});
        CHECK((a == b).to_vector<bool>() == std::vector<bool>{false, true, true, false});
        CHECK((a != b).to_vector<bool>() == std::vector<bool>{true, false, false, true});
        CHECK((a <= b).to_vector<bool>() == std::vector<bool>{true, true, true, true});
        CHECK((a > b).to_vector<bool>() == std::vector<bool>{false, false, false, false});
        CHECK((a >= b).to_vector<bool>() == std::vector<bool>{false, true, true, false});
        CHECK(ops::logical_and(a, b).to_vector<bool>() == std::vector<bool>{false, true, true, false});
        CHECK(ops::logical_or(a, ops::zeros_like(a)).to_vector<bool>() == std::vector<bool>{false, true, true, false});
        CHECK(ops::logical_xor(a, b).to_vector<bool>() == std::vector<bool>{true, false, false, true});
    }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const Array n = make_array({nan}, {1}, Dtype::kFloat32);
    CHECK_FALSE((n == n).item<bool>());
    CHECK((n != n).item<bool>());
}

TEST_CASE("binary ops promote dtypes like numpy, with weak scalars", "[elementwise]") {
    const Array i8 = make_array({1}, {1}, Dtype::kInt8);
    const Array u8 = make_array({1}, {1}, Dtype::kUInt8);
    const Array f32 = make_array({1}, {1}, Dtype::kFloat32);
    const Array f16 = make_array({1}, {1}, Dtype::kFloat16);
    const Array i32 = make_array({1}, {1}, Dtype::kInt32);
    const Array b = make_array({1}, {1}, Dtype::kBool);
    CHECK((i8 + u8).dtype() == Dtype::kInt32);
    CHECK((i32 + f32).dtype() == Dtype::kFloat64);
    CHECK((i8 + f16).dtype() == Dtype::kFloat16);
    CHECK((f32 * 2.0).dtype() == Dtype::kFloat32);
    CHECK((f16 + 1).dtype() == Dtype::kFloat16);
    CHECK((i32 + 1.5).dtype() == Dtype::kFloat64);
    CHECK((i8 * 3).dtype() == Dtype::kInt8);
    CHECK((b + 1).dtype() == Dtype::kInt64);
    CHECK((b + b).dtype() == Dtype::kBool);
    CHECK((b + b).item<bool>());
    CHECK(ops::power(b, b).dtype() == Dtype::kInt8);
    CHECK_THROWS_AS(b - b, DtypeError);
}

TEST_CASE("scalar operands on either side", "[elementwise]") {
    const Array x = make_array({1, 2, 4}, {3}, Dtype::kFloat32, Layout::kStrided);
    check_allclose(x - 1.0, {0, 1, 3}, {3}, {0, 0});
    check_allclose(1.0 - x, {0, -1, -3}, {3}, {0, 0});
    check_allclose(8.0 / x, {8, 4, 2}, {3}, {0, 0});
    check_allclose(ops::power(2.0, x), {2, 4, 16}, {3}, {0, 0});
    check_allclose(ops::power(x, 2), {1, 4, 16}, {3}, {0, 0});
    check_allclose(-x, {-1, -2, -4}, {3}, {0, 0});
    CHECK((x > 1.5).to_vector<bool>() == std::vector<bool>{false, true, true});
    CHECK((1.5 > x).to_vector<bool>() == std::vector<bool>{true, false, false});
}

TEST_CASE("broadcasting edge cases", "[elementwise]") {
    const Array a = make_array(rensa::testing::iota(6), {2, 1, 3}, Dtype::kFloat64);
    const Array b = make_array({10, 20}, {2, 1}, Dtype::kFloat64);
    const Array y = a + b;
    CHECK(y.shape() == Shape{2, 2, 3});
    check_allclose(y, {10, 11, 12, 20, 21, 22, 13, 14, 15, 23, 24, 25}, {2, 2, 3}, {0, 0});
    // 0-d with anything.
    const Array s = Array::from_vector<double>({5}, {});
    CHECK((s + s).shape() == Shape{});
    CHECK((s + s).item<double>() == 10);
    CHECK((s + a).shape() == a.shape());
    // Size-0 broadcasts to size 0.
    const Array e = ops::zeros({0, 3}, Dtype::kFloat32);
    CHECK((e + make_array({1, 2, 3}, {3}, Dtype::kFloat32)).shape() == Shape{0, 3});
    CHECK((e + make_array({1}, {1}, Dtype::kFloat32)).shape() == Shape{0, 3});
    CHECK(ops::exp(e).shape() == Shape{0, 3});
}

TEST_CASE("shape errors name the routine and both shapes", "[elementwise]") {
    const Array a = ops::zeros({3, 4});
    const Array b = ops::zeros({5});
    CHECK_THROWS_WITH(ops::add(a, b), "add: shapes (3, 4) and (5,) cannot be broadcast");
    CHECK_THROWS_AS(ops::maximum(a, b), DimensionError);
    CHECK_THROWS_AS(ops::where(ops::zeros({2}, Dtype::kBool), a, a), DimensionError);
    CHECK_THROWS_AS(ops::exp(Array{}), ValueError);
}

TEST_CASE("where and clip", "[elementwise]") {
    for (Dtype dtype : kAllDtypes) {
        INFO(dtype);
        const Array cond = make_array({1, 0, 1, 0}, {2, 2}, Dtype::kBool, Layout::kTransposed);
        const Array a = make_array({1, 1, 1, 1}, {2, 2}, dtype, Layout::kStrided);
        const Array b = make_array({0, 0}, {2}, dtype);
        check_allclose(ops::where(cond, a, b), {1, 0, 1, 0}, {2, 2}, {0, 0});
    }
    const Array x = make_array({-2, 0.5, 3}, {3}, Dtype::kFloat32);
    check_allclose(ops::where(x > 0.0, x, 0.0), {0, 0.5, 3}, {3}, {0, 0});
    CHECK(ops::where(x > 0.0, x, 0.0).dtype() == Dtype::kFloat32);
    const Array c = ops::clip(x, -1.0, 1.0);
    CHECK(c.dtype() == Dtype::kFloat32);
    check_allclose(c, {-1, 0.5, 1}, {3}, {0, 0});
    check_allclose(ops::clip(make_array({-5, 2, 9}, {3}, Dtype::kInt32), 0, 4), {0, 2, 4}, {3}, {0, 0});
}

TEST_CASE("in-place add and multiply write through views", "[elementwise]") {
    const Array base = ops::zeros({2, 3}, Dtype::kFloat32);
    const Array row = base[1];
    ops::add_inplace(row, make_array({1, 2, 3}, {3}, Dtype::kFloat32));
    ops::multiply_inplace(row, 2.0);
    check_allclose(base, {0, 0, 0, 2, 4, 6}, {2, 3}, {0, 0});
    // Overlapping source and destination: the source is read before it is written.
    const Array v = make_array({1, 2, 3, 4}, {4}, Dtype::kInt32);
    ops::add_inplace(v.index({Slice{1, std::nullopt, 1}}), v.index({Slice{std::nullopt, -1, 1}}));
    check_allclose(v, {1, 3, 5, 7}, {4}, {0, 0});
}

TEST_CASE("large contiguous operations split across threads agree with a serial reference", "[elementwise]") {
    const int64_t n = 200003;  // several parallel chunks and an odd tail
    std::vector<double> xs(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) xs[static_cast<size_t>(i)] = std::sin(static_cast<double>(i));
    const Array x = Array::from_vector(xs, {n}).astype(Dtype::kFloat32);
    const Array y = ops::add(ops::multiply(x, 3.0), x);
    const std::vector<double> got = to_doubles(y), xf = to_doubles(x);
    for (int64_t i = 0; i < n; i += 997) {
        const auto k = static_cast<size_t>(i);
        REQUIRE(got[k] == Approx(static_cast<double>(
                                     static_cast<float>(static_cast<float>(xf[k] * 3.0f) + static_cast<float>(xf[k]))))
                              .epsilon(1e-6));
    }
}
