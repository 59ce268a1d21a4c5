// take and scatter_add on cuda:0 against the native backend: every dtype, every axis,
// repeated and negative indices, every layout, empty and 0-d index arrays, and a size
// past 65536 for the grid-stride loops.

#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "core/ops/indexing.h"
#include "tests/cuda/cuda_testing.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// int64 indices in [-size, size) (negatives wrap in ops), many repeats when n > size.
Array random_indices(const Shape& shape, int64_t size, uint64_t seed) {
    return random_array(shape, Dtype::kInt64, seed, static_cast<double>(-size), static_cast<double>(size));
}

ArrayFn take_fn(int axis) {
    return [axis](const std::vector<Array>& in) { return std::vector<Array>{ops::take(in[0], in[1], axis)}; };
}

// Sum-order differences of float atomics: loose for the half types.
Tolerance scatter_tolerance(Dtype dtype) {
    switch (dtype) {
        case Dtype::kFloat16:
            return {0.05, 0.02};
        case Dtype::kBFloat16:
            return {0.25, 0.05};
        case Dtype::kFloat32:
            return {1e-4, 1e-5};
        case Dtype::kFloat64:
            return {1e-10, 1e-10};
        default:
            return {0.0, 0.0};
    }
}

}  // namespace

TEST_CASE("cuda: take along every axis, every dtype and layout", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    const Shape x_shape{5, 7, 3};
    uint64_t seed = 1;
    for (const Dtype dtype : kCudaAllDtypes) {
        const Array x = random_array(x_shape, dtype, ++seed);
        for (int axis = 0; axis < 3; ++axis) {
            const Array idx = random_indices({4, 6}, x_shape[axis], ++seed);  // repeats: 24 picks of <= 7
            for (const Layout layout : kAllLayouts) {
                INFO("dtype " << dtype_name(dtype) << ", axis " << axis);
                check_matches_native(take_fn(axis), {x, idx}, layout, Tolerance{0.0, 0.0});
            }
        }
    }
}

TEST_CASE("cuda: take with 0-d, empty and large index arrays", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    const Array x = random_array({6, 9}, Dtype::kFloat32, 3);
    check_matches_native(take_fn(1), {x, random_indices({}, 9, 4)}, Layout::kContiguous, Tolerance{0.0, 0.0});
    check_matches_native(take_fn(0), {x, random_indices({0}, 6, 5)}, Layout::kContiguous, Tolerance{0.0, 0.0});
    // 70001 picks from a flattened x: more elements than one grid of 256-thread blocks covers per pass.
    const Array big = random_array({301, 257}, Dtype::kFloat16, 6);
    const Array idx = random_indices({70001}, 301 * 257, 7);
    for (const Layout layout : {Layout::kContiguous, Layout::kTransposed}) {
        check_matches_native([](const std::vector<Array>& in) { return std::vector<Array>{ops::take(in[0], in[1])}; },
                             {big, idx}, layout, Tolerance{0.0, 0.0});
    }
}

TEST_CASE("cuda: scatter_add accumulates repeated indices, every dtype", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    const Shape t_shape{4, 5, 3};
    uint64_t seed = 100;
    for (const Dtype dtype : kCudaAllDtypes) {
        const bool floating = is_float(dtype);
        for (int axis = 0; axis < 3; ++axis) {
            const Array target = random_array(t_shape, dtype, ++seed, floating ? -1.0 : 0.0, floating ? 1.0 : 3.0);
            const Array idx = random_indices({40}, t_shape[axis], ++seed);  // ~10 hits per row
            Shape v_shape = t_shape;
            v_shape[axis] = 40;
            const Array values = random_array(v_shape, dtype, ++seed, floating ? -1.0 : 0.0, floating ? 1.0 : 3.0);
            for (const Layout layout : kAllLayouts) {
                INFO("dtype " << dtype_name(dtype) << ", axis " << axis);
                check_matches_native(
                    [axis](const std::vector<Array>& in) {
                        ops::scatter_add(in[0], in[1], in[2], axis);  // in place on this run's copy
                        return std::vector<Array>{in[0]};
                    },
                    {target, idx, values}, layout, scatter_tolerance(dtype));
            }
        }
    }
}

TEST_CASE("cuda: scatter_add with 2-d indices, broadcast values and many repeats", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    for (const Dtype dtype : {Dtype::kFloat32, Dtype::kFloat64, Dtype::kInt32, Dtype::kInt64}) {
        const bool floating = is_float(dtype);
        const Array target = random_array({8, 33}, dtype, 200, floating ? -1.0 : 0.0, floating ? 1.0 : 3.0);
        const Array idx = random_indices({300, 250}, 8, 201);  // 75000 values into 8 rows
        const Array values = random_array({1, 1, 33}, dtype, 202, floating ? -1.0 : 0.0, floating ? 1.0 : 3.0);
        INFO("dtype " << dtype_name(dtype));
        check_matches_native(
            [](const std::vector<Array>& in) {
                ops::scatter_add(in[0], in[1], in[2], 0);
                return std::vector<Array>{in[0]};
            },
            {target, idx, values}, Layout::kContiguous, Tolerance{floating ? 1e-2 : 0.0, floating ? 1e-5 : 0.0});
    }
}
