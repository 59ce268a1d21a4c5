// The CUDA softmax kernel against the native backend: softmax and log_softmax along
// axes 0, 1 and -1 of several shapes, every float dtype and layout, large magnitudes
// (stability), NaN rows, long rows (a block per row) and many short ones.

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "core/ops/softmax.h"
#include "tests/cuda/cuda_testing.h"

namespace rensa::testing {
namespace {

std::vector<Array> both(const Array& x, int axis) { return {ops::softmax(x, axis), ops::log_softmax(x, axis)}; }

}  // namespace

TEST_CASE("cuda: softmax and log_softmax match native on every float dtype, axis and layout", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    uint64_t seed = 1;
    for (const Dtype dtype : kCudaFloatDtypes) {
        for (const Shape& shape : {Shape{4, 10}, Shape{3, 5, 7}, Shape{2, 33, 4, 3}}) {
            const Array x = random_array(shape, dtype, seed++);
            for (const Layout layout : kAllLayouts) {
                for (const int axis : {0, 1, -1}) {
                    INFO("dtype " << dtype_name(dtype) << ", shape " << shape << ", axis " << axis);
                    check_matches_native([&](const std::vector<Array>& v) { return both(v[0], axis); }, {x}, layout);
                }
            }
        }
    }
}

TEST_CASE("cuda: softmax is stable for large and small magnitudes", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    uint64_t seed = 50;
    for (const Dtype dtype : kCudaFloatDtypes) {
        for (const double scale : {100.0, 1e-3}) {
            const Array x = random_array({6, 40}, dtype, seed++, -2.0 * scale, 2.0 * scale);
            for (const int axis : {0, 1}) {
                INFO("dtype " << dtype_name(dtype) << ", scale " << scale << ", axis " << axis);
                check_matches_native([&](const std::vector<Array>& v) { return both(v[0], axis); }, {x});
            }
        }
    }
}

TEST_CASE("cuda: softmax propagates NaN and handles broadcast views like native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    std::vector<double> values;
    for (int i = 0; i < 3 * 40; ++i) values.push_back(std::cos(i * 0.7) * 2.0);
    values[5] = std::numeric_limits<double>::quiet_NaN();  // row 0 all NaN
    values[45] = std::numeric_limits<double>::infinity();  // row 1 +inf: NaN where x is inf
    for (const Dtype dtype : kCudaFloatDtypes) {
        const Array x = make_array(values, {3, 40}, dtype);
        const Array row = random_array({1, 37}, dtype, 60);
        INFO("dtype " << dtype_name(dtype));
        check_matches_native([](const std::vector<Array>& v) { return both(v[0], 1); }, {x});
        check_matches_native(
            [](const std::vector<Array>& v) {
                const Array b = v[0].broadcast_to({5, 37});
                return std::vector{ops::softmax(b, 1), ops::log_softmax(b, 0)};
            },
            {row});
    }
}

TEST_CASE("cuda: long softmax rows and many short ones match native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    for (const Dtype dtype : {Dtype::kFloat32, Dtype::kFloat16, Dtype::kFloat64}) {
        const Array long_rows = random_array({3, 100003}, dtype, 70);
        const Array medium = random_array({50, 1000}, dtype, 71);
        const Array many = random_array({70001, 10}, dtype, 72);
        const Array channels = random_array({8, 19, 300}, dtype, 73);
        INFO("dtype " << dtype_name(dtype));
        check_matches_native([](const std::vector<Array>& v) { return both(v[0], 1); }, {long_rows});
        for (const Layout layout : kAllLayouts) {
            check_matches_native([](const std::vector<Array>& v) { return both(v[0], 1); }, {medium}, layout);
            check_matches_native([](const std::vector<Array>& v) { return both(v[0], -1); }, {many}, layout);
            check_matches_native([](const std::vector<Array>& v) { return both(v[0], 1); }, {channels}, layout);
        }
    }
}

}  // namespace rensa::testing
