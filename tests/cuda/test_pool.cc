// Pooling on cuda:0 against the native backend: 1-, 2- and 3-d, max (values and int64
// indices), average with and without padding counted, pads, strides, windows hanging off
// the edge (cover_all), every float dtype and layout, and the backward passes.

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/ops/pooling.h"
#include "tests/cuda/cuda_testing.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

struct PoolCase {
    Shape x_shape;
    ops::PoolParams params;
};

std::vector<PoolCase> pool_cases() {
    return {
        {{2, 3, 11}, {{3}, {2}, {1}, false}},
        {{2, 3, 9, 10}, {{3, 2}, {2, 2}, {1, 0}, false}},
        {{2, 2, 8, 8}, {{2, 2}, {2, 2}, {0, 0}, false}},  // the usual CNN layer
        {{1, 2, 7, 7}, {{3, 3}, {3, 3}, {1, 1}, true}},   // cover_all: the last window hangs off the edge
        {{1, 2, 5, 6, 7}, {{2, 3, 2}, {2, 2, 1}, {1, 1, 0}, false}},
        {{2, 4, 130, 100}, {{2, 2}, {2, 2}, {0, 0}, false}},  // > 65536 input elements
    };
}

// The pooled shape of a case, for gy.
Shape out_shape(const PoolCase& c) { return ops::pooling_output_shape(c.x_shape, c.params, "test"); }

}  // namespace

TEST_CASE("cuda: max_pool and its backward match native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    uint64_t seed = 1;
    for (const PoolCase& c : pool_cases()) {
        for (const Dtype dtype : kCudaFloatDtypes) {
            const Array x = random_array(c.x_shape, dtype, ++seed);
            const Array gy = random_array(out_shape(c), dtype, ++seed);
            const ops::PoolParams params = c.params;
            const Shape x_shape = c.x_shape;
            for (const Layout layout : kAllLayouts) {
                INFO("x " << x_shape << ", dtype " << dtype_name(dtype));
                check_matches_native(
                    [params, x_shape](const std::vector<Array>& in) {
                        const ops::MaxPoolResult r = ops::max_pool(in[0], params);
                        const Array gx = ops::max_pool_backward(in[1], r.indices, x_shape, params);
                        return std::vector<Array>{r.y, r.indices, gx};
                    },
                    {x, gy}, layout);
            }
        }
    }
}

TEST_CASE("cuda: max_pool propagates NaN and skips indices when asked", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> v(2 * 2 * 6 * 6);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 7) % 11) - 5.0;
    v[3] = nan;
    v[40] = nan;
    v[41] = nan;
    const ops::PoolParams params{{3, 3}, {2, 2}, {1, 1}, false};
    for (const Dtype dtype : kCudaFloatDtypes) {
        const Array x = make_array(v, {2, 2, 6, 6}, dtype);
        check_matches_native(
            [params](const std::vector<Array>& in) {
                const ops::MaxPoolResult r = ops::max_pool(in[0], params);
                const ops::MaxPoolResult no_indices = ops::max_pool(in[0], params, /*with_indices=*/false);
                return std::vector<Array>{r.y, r.indices, no_indices.y};
            },
            {x}, Layout::kContiguous, Tolerance{0.0, 0.0});
    }
}

TEST_CASE("cuda: average_pool and its backward match native, both pad modes", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    uint64_t seed = 1000;
    for (const PoolCase& c : pool_cases()) {
        for (const bool exclude_pad : {false, true}) {
            for (const Dtype dtype : kCudaFloatDtypes) {
                const Array x = random_array(c.x_shape, dtype, ++seed);
                const Array gy = random_array(out_shape(c), dtype, ++seed);
                const ops::PoolParams params = c.params;
                const Shape x_shape = c.x_shape;
                for (const Layout layout : kAllLayouts) {
                    INFO("x " << x_shape << ", exclude_pad " << exclude_pad << ", dtype " << dtype_name(dtype));
                    check_matches_native(
                        [params, x_shape, exclude_pad](const std::vector<Array>& in) {
                            const Array y = ops::average_pool(in[0], params, exclude_pad);
                            const Array gx = ops::average_pool_backward(in[1], x_shape, params, exclude_pad);
                            return std::vector<Array>{y, gx};
                        },
                        {x, gy}, layout);
                }
            }
        }
    }
}
