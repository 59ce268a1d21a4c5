// The CUDA reduce and arg_reduce kernels against the native backend: every ReduceOp and
// dtype (through the kernel directly, so int8 sums wrap as in the kernel contract, and
// through core/ops), axes (0), (1), (2), (0, 2) and all on 3-d arrays, every layout,
// broadcast views, empty reductions, NaN, long reductions and many short ones.

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "core/backend.h"
#include "core/kernels.h"
#include "core/ops/reduction.h"
#include "tests/cuda/cuda_testing.h"

namespace rensa::testing {
namespace {

const Axes kAxesCases[] = {Axes{0}, Axes{1}, Axes{2}, Axes{0, 2}, Axes{0, 1, 2}};
constexpr ReduceOp kOps[] = {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMax,
                             ReduceOp::kMin, ReduceOp::kAny,  ReduceOp::kAll};

// The kernel called directly: out has x's shape with the axes set to 1 and x's dtype.
Array reduce_kernel(ReduceOp op, const Array& x, const Axes& axes) {
    Shape shape = x.shape();
    for (const int a : axes) shape[a] = 1;
    const Array out = Array::empty(shape, x.dtype(), x.device());
    global_context().kernels(x.device()).reduce(op, x, axes, out);
    return out;
}

Array arg_reduce_kernel(ArgReduceOp op, const Array& x, int axis) {
    Shape shape = x.shape();
    shape[axis] = 1;
    const Array out = Array::empty(shape, Dtype::kInt64, x.device());
    global_context().kernels(x.device()).arg_reduce(op, x, axis, out);
    return out;
}

// Values near 1 so products of a few dozen elements stay finite and normal in every dtype.
Array product_friendly(const Shape& shape, Dtype dtype, uint64_t seed) {
    if (is_float(dtype)) return random_array(shape, dtype, seed, 0.7, 1.4);
    return random_array(shape, dtype, seed, -2.0, 3.0);
}

}  // namespace

TEST_CASE("cuda: reduce kernel matches native for every op, dtype, axes and layout", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    uint64_t seed = 1;
    for (const Dtype dtype : kCudaAllDtypes) {
        for (const ReduceOp op : kOps) {
            const Array x = product_friendly({5, 6, 7}, dtype, seed++);
            for (const Axes& axes : kAxesCases) {
                for (const Layout layout : kAllLayouts) {
                    INFO("dtype " << dtype_name(dtype) << ", op " << static_cast<int>(op) << ", axes " << axes);
                    check_matches_native(
                        [&](const std::vector<Array>& v) { return std::vector{reduce_kernel(op, v[0], axes)}; }, {x},
                        layout);
                }
            }
        }
    }
}

TEST_CASE("cuda: reductions through ops match native, keepdims and broadcast views", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    uint64_t seed = 100;
    for (const Dtype dtype : kCudaAllDtypes) {
        const Array x = random_array({4, 1, 9}, dtype, seed++);
        INFO("dtype " << dtype_name(dtype));
        check_matches_native(
            [](const std::vector<Array>& v) {
                const Array b = v[0].broadcast_to({4, 3, 9});
                return std::vector{ops::sum(b, Axes{1}, true),
                                   ops::max(b, Axes{0, 1}),
                                   ops::min(b, std::nullopt, true),
                                   ops::any(b, Axes{2}),
                                   ops::all(b, Axes{0}),
                                   ops::argmax(b, 1, true),
                                   ops::argmin(b)};
            },
            {x});
    }
    for (const Dtype dtype : kCudaFloatDtypes) {
        const Array x = random_array({3, 5, 7}, dtype, seed++);
        check_matches_native(
            [](const std::vector<Array>& v) {
                return std::vector{ops::mean(v[0], Axes{0, 2}), ops::var(v[0], Axes{1}), ops::logsumexp(v[0], Axes{2})};
            },
            {x}, Layout::kTransposed);
    }
}

TEST_CASE("cuda: empty reductions give the identity", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    for (const Dtype dtype : kCudaAllDtypes) {
        const Array x = random_array({0, 3, 2}, dtype, 7);
        for (const ReduceOp op : {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kAny, ReduceOp::kAll}) {
            INFO("dtype " << dtype_name(dtype) << ", op " << static_cast<int>(op));
            check_matches_native(
                [&](const std::vector<Array>& v) {
                    return std::vector{reduce_kernel(op, v[0], Axes{0}), reduce_kernel(op, v[0], Axes{0, 1, 2})};
                },
                {x});
        }
        // Outputs of size 0: nothing to do.
        check_matches_native(
            [](const std::vector<Array>& v) { return std::vector{reduce_kernel(ReduceOp::kMax, v[0], Axes{1})}; }, {x});
    }
}

TEST_CASE("cuda: max, min, argmax and argmin propagate NaN like native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> values;
    for (int i = 0; i < 4 * 50; ++i) values.push_back(std::sin(i * 0.37) * 3.0 + 0.1);
    values[7] = nan;   // row 0
    values[60] = nan;  // row 1, with a second NaN later
    values[95] = nan;
    values[120] = inf;   // row 2: inf, no NaN
    values[199] = -inf;  // row 3: -inf last
    for (const Dtype dtype : kCudaFloatDtypes) {
        const Array x = make_array(values, {4, 50}, dtype);
        for (const Layout layout : kAllLayouts) {
            INFO("dtype " << dtype_name(dtype));
            check_matches_native(
                [](const std::vector<Array>& v) {
                    return std::vector{ops::max(v[0], Axes{1}), ops::min(v[0], Axes{1}), ops::max(v[0], Axes{0}),
                                       ops::min(v[0]),          ops::argmax(v[0], 1),    ops::argmin(v[0], 1),
                                       ops::argmax(v[0], 0),    ops::argmin(v[0])};
                },
                {x}, layout);
        }
    }
}

TEST_CASE("cuda: arg_reduce matches native with ties on every dtype and axis", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    uint64_t seed = 200;
    for (const Dtype dtype : kCudaAllDtypes) {
        // Few distinct values: many ties, so the first index must win.
        const Array x = random_array({6, 70, 5}, dtype, seed++, -2.0, 3.0);
        for (const Layout layout : kAllLayouts) {
            for (int axis = 0; axis < 3; ++axis) {
                INFO("dtype " << dtype_name(dtype) << ", axis " << axis);
                check_matches_native(
                    [&](const std::vector<Array>& v) {
                        return std::vector{arg_reduce_kernel(ArgReduceOp::kArgMax, v[0], axis),
                                           arg_reduce_kernel(ArgReduceOp::kArgMin, v[0], axis)};
                    },
                    {x}, layout);
            }
        }
    }
}

TEST_CASE("cuda: long reductions match native (block groups and segments)", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    const Array flat = random_array({(int64_t{1} << 20) + 3}, Dtype::kFloat32, 300);
    check_matches_native(
        [](const std::vector<Array>& v) {
            return std::vector{ops::sum(v[0]),    ops::max(v[0]), ops::min(v[0]), ops::argmax(v[0]),
                               ops::argmin(v[0]), ops::any(v[0]), ops::all(v[0])};
        },
        {flat}, Layout::kContiguous, Tolerance{1e-4, 1e-4});
    const Array rows = random_array({3, 400001}, Dtype::kFloat32, 301);
    const Array cols = random_array({400001, 3}, Dtype::kFloat32, 302);
    for (const Layout layout : {Layout::kContiguous, Layout::kTransposed}) {
        check_matches_native(
            [](const std::vector<Array>& v) {
                return std::vector{ops::sum(v[0], Axes{1}), ops::max(v[0], Axes{1}), ops::argmin(v[0], 1)};
            },
            {rows}, layout, Tolerance{1e-4, 1e-4});
        check_matches_native(
            [](const std::vector<Array>& v) {
                return std::vector{ops::sum(v[0], Axes{0}), ops::min(v[0], Axes{0}), ops::argmax(v[0], 0)};
            },
            {cols}, layout, Tolerance{1e-4, 1e-4});
    }
    for (const Dtype dtype : kCudaFloatDtypes) {
        const Array x = random_array({3000, 37}, dtype, 303);
        check_matches_native([](const std::vector<Array>& v) { return std::vector{ops::sum(v[0], Axes{0})}; }, {x},
                             Layout::kContiguous, Tolerance{1e-4, 1e-4});
    }
    const Array ints = random_array({1 << 20}, Dtype::kInt32, 304, -1000.0, 1000.0);
    check_matches_native(
        [](const std::vector<Array>& v) {
            return std::vector{ops::sum(v[0]), ops::max(v[0])};
        },
        {ints});
}

TEST_CASE("cuda: many short reductions match native (thread groups, grid-stride)", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    for (const Dtype dtype : {Dtype::kFloat32, Dtype::kFloat16, Dtype::kInt64}) {
        const Array x = random_array({70001, 5}, dtype, 400);
        const Array y = random_array({300, 301}, dtype, 401);
        for (const Layout layout : kAllLayouts) {
            INFO("dtype " << dtype_name(dtype));
            check_matches_native(
                [](const std::vector<Array>& v) {
                    return std::vector{ops::sum(v[0], Axes{1}), ops::max(v[0], Axes{1}), ops::argmax(v[0], 1),
                                       ops::sum(v[0].transpose(), Axes{0})};
                },
                {x}, layout, Tolerance{1e-4, 1e-4});
            check_matches_native(
                [](const std::vector<Array>& v) {
                    return std::vector{ops::sum(v[0], Axes{0}), ops::min(v[0], Axes{0}), ops::argmin(v[0], 0),
                                       ops::sum(v[0], Axes{1})};
                },
                {y}, layout, Tolerance{1e-4, 1e-4});
        }
    }
}

TEST_CASE("cuda: 0-d and size-1 reductions match native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    for (const Dtype dtype : kCudaAllDtypes) {
        const Array scalar = random_array({}, dtype, 500);
        const Array ones = random_array({1, 1, 1}, dtype, 501);
        check_matches_native(
            [](const std::vector<Array>& v) {
                return std::vector{ops::max(v[0]), ops::any(v[0])};
            },
            {scalar});
        check_matches_native(
            [](const std::vector<Array>& v) {
                return std::vector{reduce_kernel(ReduceOp::kSum, v[0], Axes{1}),
                                   reduce_kernel(ReduceOp::kMin, v[0], Axes{0, 1, 2}),
                                   arg_reduce_kernel(ArgReduceOp::kArgMax, v[0], 2)};
            },
            {ones});
    }
}

}  // namespace rensa::testing
