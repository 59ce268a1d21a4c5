// The CUDA binary, binary_scalar and where kernels against the native backend: every
// BinaryOp on every dtype the CPU accepts, every layout, broadcasting ((3,1,5) with
// (1,4,5)), scalars on both sides, 0-d, empty and large arrays, integer division and
// modulo signs, NaN in maximum/minimum.

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/ops/elementwise.h"
#include "tests/cuda/cuda_testing.h"
#include "tests/testing/elementwise_rows.h"

namespace rensa::testing {
namespace {

bool native_accepts(const ArrayFn& fn, const std::vector<Array>& inputs) {
    try {
        (void)fn(inputs);
        return true;
    } catch (const Error&) {
        return false;
    }
}

// One case per row of the binary table (tests/testing/elementwise_rows.h).
struct BinaryCase {
    std::string name;
    BinaryOp op;
    Array fn(const Array& a, const Array& b) const { return ops::elementwise(op, a, b); }
    Array fn_scalar(const Array& a, Scalar s) const { return ops::elementwise(op, a, s); }
    Array fn_reversed(Scalar s, const Array& a) const { return ops::elementwise(op, s, a); }
};

const std::vector<BinaryCase>& binary_cases() {
    static const std::vector<BinaryCase> cases = [] {
        std::vector<BinaryCase> out;
        for (const BinaryTestRow& row : binary_test_rows()) out.push_back({op_name(row.op), row.op});
        return out;
    }();
    return cases;
}

const Shape kShapes[] = {Shape{}, Shape{0}, Shape{7}, Shape{3, 5}, Shape{2, 3, 5}, Shape{131079}};

// Power's exponents stay small so integer powers do not overflow differently.
double high_for(const BinaryCase& c) { return c.name == "power" ? 3.0 : 4.0; }

void check_pair(const BinaryCase& c, const Array& a, const Array& b, Layout layout) {
    const ArrayFn fn = [&c](const std::vector<Array>& in) { return std::vector<Array>{c.fn(in[0], in[1])}; };
    if (!native_accepts(fn, {a, b})) return;
    INFO(c.name << " on " << dtype_name(a.dtype()) << ", sizes " << a.size() << " and " << b.size());
    check_matches_native(fn, {a, b}, layout);
}

}  // namespace

TEST_CASE("cuda: every binary op matches native", "[cuda][elementwise]") {
    RENSA_REQUIRE_CUDA();
    uint64_t seed = 1;
    for (const BinaryCase& c : binary_cases()) {
        for (const Dtype dtype : kCudaAllDtypes) {
            for (const Shape& shape : kShapes) {
                const bool layouts = shape.size() >= 2;
                for (const Layout layout : kAllLayouts) {
                    if (layout != Layout::kContiguous && !layouts) continue;
                    const Array a = random_array(shape, dtype, ++seed, -4.0, 4.0);
                    const Array b = random_array(shape, dtype, ++seed, -3.0, high_for(c));
                    check_pair(c, a, b, layout);
                }
            }
            // Misaligned large operands: the scalar (non-vectorised) contiguous path.
            seed += 2;
            check_pair(c, random_array({131079}, dtype, seed, -4.0, 4.0),
                       random_array({131079}, dtype, seed + 1, -3.0, high_for(c)), Layout::kOffset);
        }
    }
}

TEST_CASE("cuda: binary ops broadcast like native", "[cuda][elementwise]") {
    RENSA_REQUIRE_CUDA();
    uint64_t seed = 1000;
    for (const BinaryCase& c : binary_cases()) {
        for (const Dtype dtype : {Dtype::kFloat32, Dtype::kFloat16, Dtype::kInt32, Dtype::kBool}) {
            const Array a = random_array({3, 1, 5}, dtype, ++seed, -4.0, 4.0);
            const Array b = random_array({1, 4, 5}, dtype, ++seed, -3.0, high_for(c));
            check_pair(c, a, b, Layout::kContiguous);
            check_pair(c, a, b, Layout::kTransposed);
            seed += 4;
            check_pair(c, random_array({6, 7}, dtype, seed), random_array({7}, dtype, seed + 1), Layout::kContiguous);
            check_pair(c, random_array({6, 7}, dtype, seed + 2), random_array({}, dtype, seed + 3), Layout::kStrided);
        }
    }
}

TEST_CASE("cuda: binary ops with a scalar on either side match native", "[cuda][elementwise]") {
    RENSA_REQUIRE_CUDA();
    const Scalar scalars[] = {Scalar{3}, Scalar{-2}, Scalar{1.5}, Scalar{true}};
    uint64_t seed = 2000;
    for (const BinaryCase& c : binary_cases()) {
        for (const Dtype dtype : kCudaAllDtypes) {
            for (const Scalar& s : scalars) {
                for (const Shape& shape : {Shape{}, Shape{4, 6}, Shape{131079}}) {
                    const Array a = random_array(shape, dtype, ++seed, -4.0, 4.0);
                    const ArrayFn right = [&c, s](const std::vector<Array>& in) {
                        return std::vector<Array>{c.fn_scalar(in[0], s)};
                    };
                    const ArrayFn left = [&c, s](const std::vector<Array>& in) {
                        return std::vector<Array>{c.fn_reversed(s, in[0])};
                    };
                    INFO(c.name << " on " << dtype_name(dtype) << " with scalar " << s);
                    const Layout layout = shape.size() >= 2 ? Layout::kTransposed : Layout::kContiguous;
                    if (native_accepts(right, {a})) check_matches_native(right, {a}, layout);
                    if (native_accepts(left, {a})) check_matches_native(left, {a}, layout);
                }
            }
        }
    }
}

TEST_CASE("cuda: integer division, modulo and power signs match native", "[cuda][elementwise]") {
    RENSA_REQUIRE_CUDA();
    const std::vector<double> a = {7, -7, 7, -7, 0, 5, -128, 3, -3, 2};
    const std::vector<double> b = {2, 2, -2, -2, 3, 0, -1, -1, 0, -3};
    for (const Dtype dtype : {Dtype::kInt8, Dtype::kInt32, Dtype::kInt64, Dtype::kFloat32, Dtype::kFloat64}) {
        for (const BinaryOp op :
             {BinaryOp::kFloorDivide, BinaryOp::kMod, BinaryOp::kFmod, BinaryOp::kPower, BinaryOp::kDivide}) {
            const ArrayFn f = [op](const std::vector<Array>& in) {
                return std::vector<Array>{ops::elementwise(op, in[0], in[1])};
            };
            const std::vector<Array> inputs = {make_array(a, {10}, dtype), make_array(b, {10}, dtype)};
            if (native_accepts(f, inputs)) check_matches_native(f, inputs);
        }
    }
}

TEST_CASE("cuda: maximum and minimum propagate NaN like native", "[cuda][elementwise]") {
    RENSA_REQUIRE_CUDA();
    const std::vector<double> a = {std::nan(""), 1.0, std::nan(""), -INFINITY, 2.0};
    const std::vector<double> b = {1.0, std::nan(""), std::nan(""), 3.0, INFINITY};
    for (const Dtype dtype : kCudaFloatDtypes) {
        for (const BinaryOp op :
             {BinaryOp::kMaximum, BinaryOp::kMinimum, BinaryOp::kEqual, BinaryOp::kLess, BinaryOp::kLogicalAnd}) {
            check_matches_native(
                [op](const std::vector<Array>& in) { return std::vector<Array>{ops::elementwise(op, in[0], in[1])}; },
                {make_array(a, {5}, dtype), make_array(b, {5}, dtype)});
        }
    }
}

TEST_CASE("cuda: where matches native", "[cuda][elementwise]") {
    RENSA_REQUIRE_CUDA();
    uint64_t seed = 3000;
    for (const Dtype dtype : kCudaAllDtypes) {
        const ArrayFn fn = [](const std::vector<Array>& in) {
            return std::vector<Array>{ops::where(in[0], in[1], in[2])};
        };
        for (const Shape& shape : kShapes) {
            const bool layouts = shape.size() >= 2;
            for (const Layout layout : kAllLayouts) {
                if (layout != Layout::kContiguous && !layouts) continue;
                check_matches_native(fn,
                                     {random_array(shape, Dtype::kBool, ++seed), random_array(shape, dtype, ++seed),
                                      random_array(shape, dtype, ++seed)},
                                     layout);
            }
        }
        // Broadcast condition and operands, and a scalar operand.
        check_matches_native(fn, {random_array({3, 1, 5}, Dtype::kBool, ++seed), random_array({1, 4, 5}, dtype, ++seed),
                                  random_array({5}, dtype, ++seed)});
        check_matches_native(
            [](const std::vector<Array>& in) { return std::vector<Array>{ops::where(in[0], in[1], Scalar{1})}; },
            {random_array({4, 6}, Dtype::kBool, ++seed), random_array({4, 6}, dtype, ++seed)}, Layout::kTransposed);
    }
}

}  // namespace rensa::testing
