// The CUDA unary, copy (cast) and fill kernels against the native backend: every UnaryOp
// on every dtype the CPU accepts, values inside each op's domain, every layout, 0-d,
// empty and large arrays (> 2^17 elements, not a multiple of 8: the vectorised path and
// its tail), every cast pair, and fill with every dtype.

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/manipulation.h"
#include "tests/cuda/cuda_testing.h"
#include "tests/testing/elementwise_rows.h"

namespace rensa::testing {
namespace {

// True when the native backend runs fn on these inputs (ops reject some dtypes).
bool native_accepts(const ArrayFn& fn, const std::vector<Array>& inputs) {
    try {
        (void)fn(inputs);
        return true;
    } catch (const Error&) {
        return false;
    }
}

const Shape kSmallShapes[] = {Shape{}, Shape{0}, Shape{7}, Shape{3, 5}, Shape{2, 3, 5}, Shape{4, 0, 3}};
const Shape kLargeShape{131079};  // > 2^17, odd

struct UnaryCase {
    std::string name;
    std::function<Array(const Array&)> fn;
    double low = -2.0, high = 2.0;
};

// One case per row of the unary table (tests/testing/elementwise_rows.h), in its domain.
std::vector<UnaryCase> unary_cases() {
    std::vector<UnaryCase> cases;
    for (const UnaryTestRow& row : unary_test_rows()) {
        const UnaryOp op = row.op;
        cases.push_back({op_name(op), [op](const Array& x) { return ops::elementwise(op, x); }, row.low, row.high});
    }
    return cases;
}

void check_unary(const UnaryCase& c, Dtype dtype, const Shape& shape, uint64_t seed, Layout layout) {
    const Array x = random_array(shape, dtype, seed, c.low, c.high);
    const ArrayFn fn = [&c](const std::vector<Array>& in) { return std::vector<Array>{c.fn(in[0])}; };
    if (!native_accepts(fn, {x})) return;
    INFO(c.name << " on " << dtype_name(dtype) << " shape " << shape.size() << "-d size " << x.size());
    check_matches_native(fn, {x}, layout);
}

}  // namespace

TEST_CASE("cuda: every unary op matches native", "[cuda][elementwise]") {
    RENSA_REQUIRE_CUDA();
    uint64_t seed = 1;
    for (const UnaryCase& c : unary_cases()) {
        for (const Dtype dtype : kCudaAllDtypes) {
            for (const Shape& shape : kSmallShapes) {
                const bool layouts = shape.size() >= 2 && shape_size(shape) > 0;
                for (const Layout layout : kAllLayouts) {
                    if (layout != Layout::kContiguous && !layouts) continue;
                    check_unary(c, dtype, shape, ++seed, layout);
                }
            }
            check_unary(c, dtype, kLargeShape, ++seed, Layout::kContiguous);
            check_unary(c, dtype, kLargeShape, ++seed, Layout::kOffset);  // misaligned: scalar path
        }
    }
}

TEST_CASE("cuda: unary ops on flipped and broadcast views match native", "[cuda][elementwise]") {
    RENSA_REQUIRE_CUDA();
    for (const Dtype dtype : kCudaFloatDtypes) {
        const Array x = random_array({4, 6}, dtype, 7);
        check_matches_native(
            [](const std::vector<Array>& in) { return std::vector<Array>{ops::exp(ops::flip(in[0]))}; }, {x});
        const Array row = random_array({1, 6}, dtype, 8);
        check_matches_native(
            [](const std::vector<Array>& in) {
                return std::vector<Array>{ops::tanh(in[0].broadcast_to({5, 6}))};
            },
            {row});
    }
}

TEST_CASE("cuda: unary special values match native", "[cuda][elementwise]") {
    RENSA_REQUIRE_CUDA();
    const std::vector<double> values = {0.0, -0.0, 1.5, -2.5, std::nan(""), INFINITY, -INFINITY, 1e30};
    for (const Dtype dtype : kCudaFloatDtypes) {
        const Array x = make_array(values, {8}, dtype);
        for (auto fn : {ops::isnan, ops::isinf, ops::isfinite, ops::sign, ops::abs, ops::logical_not}) {
            check_matches_native([fn](const std::vector<Array>& in) { return std::vector<Array>{fn(in[0])}; }, {x});
        }
    }
}

TEST_CASE("cuda: every cast pair matches native", "[cuda][elementwise]") {
    RENSA_REQUIRE_CUDA();
    uint64_t seed = 100;
    for (const Dtype from : kCudaAllDtypes) {
        for (const Dtype to : kCudaAllDtypes) {
            INFO("cast " << dtype_name(from) << " -> " << dtype_name(to));
            const ArrayFn fn = [to](const std::vector<Array>& in) { return std::vector<Array>{in[0].astype(to)}; };
            for (const Layout layout : kAllLayouts) {
                check_matches_native(fn, {random_array({3, 7}, from, ++seed, -3.0, 3.0)}, layout);
            }
            check_matches_native(fn, {random_array({}, from, ++seed, -3.0, 3.0)});
            check_matches_native(fn, {random_array({0, 2}, from, ++seed)});
            check_matches_native(fn, {random_array(kLargeShape, from, ++seed, -100.0, 100.0)});
        }
    }
}

TEST_CASE("cuda: exact casts of large integers and doubles", "[cuda][elementwise]") {
    RENSA_REQUIRE_CUDA();
    // int64 -> float64 -> int64 must not pass through float32.
    const std::vector<double> big = {9007199254740991.0, -9007199254740991.0, 123456789012345.0, 16777217.0};
    for (const Dtype to : {Dtype::kFloat64, Dtype::kInt64, Dtype::kFloat32, Dtype::kBFloat16}) {
        for (const Dtype from : {Dtype::kInt64, Dtype::kFloat64}) {
            INFO("cast " << dtype_name(from) << " -> " << dtype_name(to));
            check_matches_native([to](const std::vector<Array>& in) { return std::vector<Array>{in[0].astype(to)}; },
                                 {make_array(big, {4}, from)}, Layout::kContiguous, Tolerance{0.0, 0.0});
        }
    }
}

TEST_CASE("cuda: out-of-range float to integer casts match native", "[cuda][elementwise]") {
    RENSA_REQUIRE_CUDA();
    // NaN, infinities and values beyond every integer dtype: numpy's results on both backends
    // (core/float_to_int.h), not CUDA's saturation.
    const std::vector<double> values{3e9, -3e9, 300.0, -129.0, -1.0, std::nan(""), INFINITY, -INFINITY, 1e19, 255.9};
    for (const Dtype from : {Dtype::kFloat16, Dtype::kBFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
        for (const Dtype to : {Dtype::kInt8, Dtype::kUInt8, Dtype::kInt32, Dtype::kInt64}) {
            INFO("cast " << dtype_name(from) << " -> " << dtype_name(to));
            check_matches_native([to](const std::vector<Array>& in) { return std::vector<Array>{in[0].astype(to)}; },
                                 {make_array(values, {10}, from)}, Layout::kContiguous, Tolerance{0.0, 0.0});
        }
    }
}

TEST_CASE("cuda: same-dtype copies of every layout match native", "[cuda][elementwise]") {
    RENSA_REQUIRE_CUDA();
    uint64_t seed = 500;
    for (const Dtype dtype : kCudaAllDtypes) {
        const ArrayFn fn = [](const std::vector<Array>& in) { return std::vector<Array>{in[0].copy()}; };
        for (const Layout layout : kAllLayouts) check_matches_native(fn, {random_array({5, 9}, dtype, ++seed)}, layout);
        check_matches_native([](const std::vector<Array>& in) { return std::vector<Array>{ops::flip(in[0]).copy()}; },
                             {random_array({3, 4, 5}, dtype, ++seed)});
        check_matches_native(fn, {random_array(kLargeShape, dtype, ++seed)}, Layout::kStrided);
    }
}

TEST_CASE("cuda: fill matches native for every dtype", "[cuda][elementwise]") {
    RENSA_REQUIRE_CUDA();
    const Scalar values[] = {Scalar{true}, Scalar{-3}, Scalar{7}, Scalar{2.75}, Scalar{-1.5}, Scalar{100.5}};
    for (const Dtype dtype : kCudaAllDtypes) {
        for (const Scalar& value : values) {
            INFO("fill " << dtype_name(dtype) << " with " << value);
            for (const Layout layout : kAllLayouts) {
                check_matches_native(
                    [value](const std::vector<Array>& in) {
                        const Array out = in[0].copy();
                        out.fill(value);
                        return std::vector<Array>{out};
                    },
                    {random_array({4, 5}, dtype, 3)}, layout);
            }
            // Filling a strided view in place leaves the other elements alone.
            check_matches_native(
                [value](const std::vector<Array>& in) {
                    const Array out = in[0].copy();
                    out.index({Slice{}, Slice{std::nullopt, std::nullopt, 2}}).fill(value);
                    return std::vector<Array>{out};
                },
                {random_array({6, 9}, dtype, 4)});
            check_matches_native(
                [value, dtype](const std::vector<Array>& in) {
                    return std::vector<Array>{ops::full(in[0].shape(), value, dtype, in[0].device())};
                },
                {random_array(kLargeShape, dtype, 5)});
        }
    }
}

}  // namespace rensa::testing
