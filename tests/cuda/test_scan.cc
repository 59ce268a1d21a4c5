// The CUDA cumsum kernel against the native backend: every dtype (through the kernel
// directly, so narrow integers wrap as in the contract, and through ops::cumsum), every
// axis and layout, short lines (a thread per line), long ones (block scans with
// segments) and many strided ones.

#include <catch2/catch.hpp>
#include <vector>

#include "core/backend.h"
#include "core/kernels.h"
#include "core/ops/reduction.h"
#include "tests/cuda/cuda_testing.h"

namespace rensa::testing {
namespace {

Array cumsum_kernel(const Array& x, int axis) {
    const Array out = Array::empty(x.shape(), x.dtype(), x.device());
    global_context().kernels(x.device()).cumsum(x, axis, out);
    return out;
}

}  // namespace

TEST_CASE("cuda: cumsum kernel matches native on every dtype, axis and layout", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    uint64_t seed = 1;
    for (const Dtype dtype : kCudaAllDtypes) {
        const Array x = random_array({5, 6, 7}, dtype, seed++);
        for (const Layout layout : kAllLayouts) {
            for (int axis = 0; axis < 3; ++axis) {
                INFO("dtype " << dtype_name(dtype) << ", axis " << axis);
                check_matches_native(
                    [&](const std::vector<Array>& v) {
                        return std::vector{cumsum_kernel(v[0], axis), ops::cumsum(v[0], axis)};
                    },
                    {x}, layout);
            }
        }
    }
}

TEST_CASE("cuda: cumsum of 0-d, empty, flattened and broadcast arrays matches native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    for (const Dtype dtype : kCudaAllDtypes) {
        const Array scalar = random_array({}, dtype, 10);
        const Array empty = random_array({3, 0}, dtype, 11);
        const Array row = random_array({1, 9}, dtype, 12);
        INFO("dtype " << dtype_name(dtype));
        check_matches_native([](const std::vector<Array>& v) { return std::vector{ops::cumsum(v[0])}; }, {scalar});
        check_matches_native(
            [](const std::vector<Array>& v) {
                return std::vector{cumsum_kernel(v[0], 0), cumsum_kernel(v[0], 1), ops::cumsum(v[0])};
            },
            {empty});
        check_matches_native(
            [](const std::vector<Array>& v) {
                const Array b = v[0].broadcast_to({4, 9});
                return std::vector{cumsum_kernel(b, 0), cumsum_kernel(b, 1), ops::cumsum(b)};
            },
            {row});
    }
}

TEST_CASE("cuda: long cumsum lines match native (block scans, segments)", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    for (const Dtype dtype : {Dtype::kFloat32, Dtype::kFloat64, Dtype::kInt32, Dtype::kFloat16}) {
        // float16 lines stay short enough that the running sum stays well inside its range.
        const int64_t n = dtype == Dtype::kFloat16 ? 3001 : 1000003;
        const Array line = random_array({n}, dtype, 20);
        const Array two = random_array({2, n / 2}, dtype, 21);
        INFO("dtype " << dtype_name(dtype));
        const Tolerance tol{1e-4, 1e-4};
        check_matches_native([](const std::vector<Array>& v) { return std::vector{cumsum_kernel(v[0], 0)}; }, {line},
                             Layout::kContiguous, dtype == Dtype::kInt32 ? Tolerance{0, 0} : tol);
        for (const Layout layout : kAllLayouts) {
            check_matches_native([](const std::vector<Array>& v) { return std::vector{cumsum_kernel(v[0], 1)}; }, {two},
                                 layout, dtype == Dtype::kInt32 ? Tolerance{0, 0} : tol);
        }
    }
    // Medium lines, a block per line without segments, and a strided axis with few lines.
    const Array mid = random_array({300, 700}, Dtype::kFloat32, 22);
    for (const Layout layout : kAllLayouts) {
        check_matches_native(
            [](const std::vector<Array>& v) {
                return std::vector{cumsum_kernel(v[0], 1), cumsum_kernel(v[0], 0)};
            },
            {mid}, layout, Tolerance{1e-4, 1e-4});
    }
}

TEST_CASE("cuda: many short cumsum lines match native (a thread per line, grid-stride)", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    for (const Dtype dtype : {Dtype::kFloat32, Dtype::kBFloat16, Dtype::kInt64}) {
        const Array x = random_array({70001, 6}, dtype, 30);
        for (const Layout layout : kAllLayouts) {
            INFO("dtype " << dtype_name(dtype));
            check_matches_native(
                [](const std::vector<Array>& v) {
                    return std::vector{cumsum_kernel(v[0], 1), cumsum_kernel(v[0], 0)};
                },
                {x}, layout, Tolerance{1e-3, 1e-3});
        }
    }
}

}  // namespace rensa::testing
