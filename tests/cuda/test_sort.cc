// sort and argsort on cuda:0 against the native backend, exactly: every dtype, values
// with many ties (argsort checks stability), NaN, +-inf and -0.0 for the float dtypes,
// every axis and layout, and a row longer than 65536.

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/ops/sort.h"
#include "tests/cuda/cuda_testing.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr Tolerance kExact{0.0, 0.0};

// Few distinct values (ties), and NaN, +-inf, -0.0 for floats; every dtype holds them exactly.
Array sort_input(const Shape& shape, Dtype dtype, uint64_t seed) {
    std::vector<double> v(static_cast<size_t>(shape_size(shape)));
    uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
    for (double& x : v) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;  // LCG
        const auto r = static_cast<int64_t>((state >> 33) % 7);
        x = dtype == Dtype::kBool ? static_cast<double>(r % 2) : static_cast<double>(r);
        if (is_signed(dtype)) x -= 3.0;
        if (is_float(dtype)) {
            x *= 0.5;
            if (x == 0.0 && (state >> 50) % 2 == 0) x = -0.0;
            if ((state >> 20) % 9 == 0) x = kNaN;
            if ((state >> 20) % 13 == 0) x = (state >> 40) % 2 != 0 ? kInf : -kInf;
        }
    }
    return make_array(v, shape, dtype);
}

ArrayFn sort_fn(int axis) {
    return [axis](const std::vector<Array>& in) {
        return std::vector<Array>{ops::sort(in[0], axis), ops::argsort(in[0], axis)};
    };
}

}  // namespace

TEST_CASE("cuda: sort and argsort match native, every dtype, axis and layout", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    const Shape shape{3, 37, 5};
    uint64_t seed = 1;
    for (const Dtype dtype : kCudaAllDtypes) {
        const Array x = sort_input(shape, dtype, ++seed);
        for (int axis = 0; axis < 3; ++axis) {
            for (const Layout layout : kAllLayouts) {
                INFO("dtype " << dtype_name(dtype) << ", axis " << axis);
                check_matches_native(sort_fn(axis), {x}, layout, kExact);
            }
        }
    }
}

TEST_CASE("cuda: sort of 1-element, empty, long and many short rows", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    for (const Dtype dtype : {Dtype::kFloat32, Dtype::kFloat64, Dtype::kFloat16, Dtype::kInt64, Dtype::kInt32}) {
        INFO("dtype " << dtype_name(dtype));
        check_matches_native(sort_fn(-1), {sort_input({1}, dtype, 10)}, Layout::kContiguous, kExact);
        check_matches_native(sort_fn(0), {sort_input({0, 4}, dtype, 11)}, Layout::kContiguous, kExact);
        check_matches_native(sort_fn(-1), {sort_input({2, 70001}, dtype, 12)}, Layout::kContiguous, kExact);
        check_matches_native(sort_fn(0), {sort_input({70001, 2}, dtype, 13)}, Layout::kTransposed, kExact);
        // Random (mostly distinct) values, many short rows.
        check_matches_native(sort_fn(-1), {random_array({5000, 3}, dtype, 14, -100.0, 100.0)}, Layout::kContiguous,
                             kExact);
    }
}
