// take and scatter_add against plain-loop references: every dtype, layout, axis and
// index dtype, 0-d and size-0 operands, repeated and negative indices, every error.

#include <omp.h>

#include <catch2/catch.hpp>
#include <memory>
#include <vector>

#include "core/backend.h"
#include "core/error.h"
#include "core/half.h"
#include "core/ops/indexing.h"
#include "tests/testing/testing.h"

using namespace rensa;
using testing::check_allclose;
using testing::kAllLayouts;
using testing::Layout;
using testing::make_array;
using testing::sample;

namespace {

struct Split3 {
    int64_t before, n, after;  // prod(shape[:axis]), shape[axis], prod(shape[axis+1:])
};

Split3 split3(const Shape& shape, int axis) {
    Split3 s{1, shape[axis], 1};
    for (int d = 0; d < axis; ++d) s.before *= shape[d];
    for (int d = axis + 1; d < shape.size(); ++d) s.after *= shape[d];
    return s;
}

int64_t wrap(int64_t i, int64_t n) { return i < 0 ? i + n : i; }

Shape gathered(const Shape& shape, const Shape& idx_shape, int axis) {
    Shape out;
    for (int d = 0; d < axis; ++d) out.push_back(shape[d]);
    for (int64_t n : idx_shape) out.push_back(n);
    for (int d = axis + 1; d < shape.size(); ++d) out.push_back(shape[d]);
    return out;
}

std::vector<double> take_reference(const std::vector<double>& x, const Shape& shape, int axis,
                                   const std::vector<int64_t>& idx) {
    const Split3 s = split3(shape, axis);
    std::vector<double> out;
    for (int64_t a = 0; a < s.before; ++a) {
        for (int64_t j : idx) {
            const int64_t row = a * s.n + wrap(j, s.n);
            for (int64_t c = 0; c < s.after; ++c) out.push_back(x[static_cast<size_t>(row * s.after + c)]);
        }
    }
    return out;
}

// numpy.add.at in double; bool targets OR (numpy's True + True is True).
std::vector<double> scatter_reference(std::vector<double> t, const Shape& shape, int axis,
                                      const std::vector<int64_t>& idx, const std::vector<double>& values, Dtype dtype) {
    const Split3 s = split3(shape, axis);
    const auto nj = static_cast<int64_t>(idx.size());
    for (int64_t a = 0; a < s.before; ++a) {
        for (int64_t j = 0; j < nj; ++j) {
            for (int64_t c = 0; c < s.after; ++c) {
                double& dst = t[static_cast<size_t>((a * s.n + wrap(idx[static_cast<size_t>(j)], s.n)) * s.after + c)];
                const double v = values[static_cast<size_t>((a * nj + j) * s.after + c)];
                dst = dtype == Dtype::kBool ? static_cast<double>(dst != 0 || v != 0) : dst + v;
            }
        }
    }
    return t;
}

// An array whose storage claims to live on cuda:0 (never dereferenced: devices are checked first).
Array on_other_device(const Shape& shape, Dtype dtype) {
    static std::vector<char> bytes(4096);
    auto storage = std::make_shared<Storage>(bytes.data(), 4096, Device::cuda(0), nullptr);
    return Array(storage, shape, contiguous_strides(shape, itemsize(dtype)), 0, dtype);
}

}  // namespace

TEST_CASE("take: every dtype, layout and axis", "[indexing]") {
    const Shape shape{3, 4, 5};
    const std::vector<int64_t> idx{0, -1, 2, 2, 1, -3};
    for (Dtype dtype : kAllDtypes) {
        for (Layout layout : kAllLayouts) {
            for (int axis : {0, 1, 2, -1, -3}) {
                INFO(dtype << " " << testing::layout_name(layout) << " axis " << axis);
                const std::vector<double> values = sample(dtype, 60);
                const Array x = make_array(values, shape, dtype, layout);
                const Array indices = make_array({idx.begin(), idx.end()}, {2, 3}, Dtype::kInt64, layout);
                const int a = axis < 0 ? axis + 3 : axis;
                const Array out = ops::take(x, indices, axis);
                CHECK(out.dtype() == dtype);
                CHECK(out.is_contiguous());
                check_allclose(out, take_reference(values, shape, a, idx), gathered(shape, {2, 3}, a), {0, 0});
            }
        }
    }
}

TEST_CASE("take: any integer index dtype, bool indices as 0 and 1", "[indexing]") {
    const std::vector<double> values = sample(Dtype::kFloat32, 10);
    const Array x = make_array(values, {10}, Dtype::kFloat32);
    for (Dtype idx_dtype : {Dtype::kInt8, Dtype::kUInt8, Dtype::kInt32, Dtype::kInt64}) {
        INFO(idx_dtype);
        const std::vector<int64_t> idx =
            is_signed(idx_dtype) ? std::vector<int64_t>{9, -10, 3, -1} : std::vector<int64_t>{9, 0, 3, 3};
        const Array indices = make_array({idx.begin(), idx.end()}, {4}, idx_dtype);
        check_allclose(ops::take(x, indices, 0), take_reference(values, {10}, 0, idx), {4}, {0, 0});
    }
    const Array mask = make_array({1, 0, 1}, {3}, Dtype::kBool);
    check_allclose(ops::take(x, mask, 0), take_reference(values, {10}, 0, {1, 0, 1}), {3}, {0, 0});
}

TEST_CASE("take: without an axis over the flattened array", "[indexing]") {
    for (Layout layout : kAllLayouts) {
        const std::vector<double> values = sample(Dtype::kInt32, 12);
        const Array x = make_array(values, {3, 4}, Dtype::kInt32, layout);
        const std::vector<int64_t> idx{11, -12, 5, 6};
        const Array indices = make_array({idx.begin(), idx.end()}, {2, 2}, Dtype::kInt64);
        check_allclose(ops::take(x, indices), take_reference(values, {12}, 0, idx), {2, 2}, {0, 0});
    }
    const Array scalar = make_array({4.5}, {}, Dtype::kFloat64);  // 0-d flattens to (1,)
    check_allclose(ops::take(scalar, make_array({0, -1, 0}, {3}, Dtype::kInt64)), {4.5, 4.5, 4.5}, {3}, {0, 0});
}

TEST_CASE("take: 0-d indices drop the axis, empty indices and size-0 arrays", "[indexing]") {
    const std::vector<double> values = sample(Dtype::kFloat64, 12);
    const Array x = make_array(values, {3, 4}, Dtype::kFloat64, Layout::kTransposed);
    check_allclose(ops::take(x, make_array({-2}, {}, Dtype::kInt64), 1), take_reference(values, {3, 4}, 1, {-2}), {3},
                   {0, 0});
    CHECK(ops::take(x, make_array({}, {0}, Dtype::kInt64), 1).shape() == Shape{3, 0});
    CHECK(ops::take(x, make_array({}, {2, 0}, Dtype::kInt32), 0).shape() == Shape{2, 0, 4});
    const Array empty_rows = make_array({}, {0, 4}, Dtype::kFloat32);
    CHECK(ops::take(empty_rows, make_array({3, -4}, {2}, Dtype::kInt64), 1).shape() == Shape{0, 2});
    CHECK(ops::take(empty_rows, make_array({}, {0}, Dtype::kInt64), 0).shape() == Shape{0, 4});
}

TEST_CASE("take: large gathers match the reference on several threads", "[indexing]") {
    const Shape shape{300, 257};  // 200 x 257 outputs: above the parallel threshold
    const std::vector<double> values = testing::iota(300 * 257, 0.5);
    std::vector<int64_t> idx;
    for (int64_t j = 0; j < 200; ++j) idx.push_back((j * 37) % 300 - 150);
    for (Layout layout : {Layout::kContiguous, Layout::kTransposed}) {
        const Array x = make_array(values, shape, Dtype::kFloat64, layout);
        const Array indices = make_array({idx.begin(), idx.end()}, {200}, Dtype::kInt64);
        const Array rows = ops::take(x, indices, 0);
        check_allclose(rows, take_reference(values, shape, 0, idx), {200, 257}, {0, 0});
        check_allclose(ops::take(x.transpose(), indices, 1), rows.transpose(), {0, 0});
    }
}

TEST_CASE("take and scatter_add kernels: negative strides and a non-contiguous out", "[indexing]") {
    const std::vector<double> values = sample(Dtype::kFloat64, 20);
    const Array base = make_array(values, {4, 5}, Dtype::kFloat64);
    const Slice reversed{std::nullopt, std::nullopt, -1};
    const Array x = base.index({reversed, Slice{std::nullopt, std::nullopt, -2}});  // (4, 3): columns 4, 2, 0
    const std::vector<double> flipped = x.to_vector<double>();
    const std::vector<int64_t> idx{2, 0, 2, 1};
    const Array indices = make_array({1, 2, 0, 2}, {4}, Dtype::kInt64).index({reversed});
    Kernels& kernels = global_context().kernels(Device::native());
    const Array out = Array::empty({4, 4}, Dtype::kFloat64).transpose();  // column-major (4, 4)
    kernels.take({.x = x, .indices = indices, .axis = 1, .out = out});
    check_allclose(out, take_reference(flipped, {4, 3}, 1, idx), {4, 4}, {0, 0});

    const std::vector<double> v = sample(Dtype::kFloat64, 16, 1);
    const Array vals = make_array(v, {4, 4}, Dtype::kFloat64, Layout::kTransposed);
    kernels.scatter_add({.target = x, .indices = indices, .axis = 1, .values = vals});
    check_allclose(x, scatter_reference(flipped, {4, 3}, 1, idx, v, Dtype::kFloat64), {4, 3}, {0, 0});
    check_allclose(base.index({Slice{}, 1}), {values[1], values[6], values[11], values[16]}, {4}, {0, 0});
}

TEST_CASE("take: errors", "[indexing]") {
    const Array x = make_array(sample(Dtype::kFloat32, 10), {5, 2}, Dtype::kFloat32);
    REQUIRE_THROWS_WITH(ops::take(x, make_array({1, 7}, {2}, Dtype::kInt64), 0),
                        "take: index 7 is out of bounds for axis 0 with size 5");
    REQUIRE_THROWS_AS(ops::take(x, make_array({-6}, {1}, Dtype::kInt64), 0), IndexError);
    REQUIRE_THROWS_AS(ops::take(x, make_array({2}, {1}, Dtype::kInt8), 1), IndexError);
    REQUIRE_THROWS_AS(ops::take(x, make_array({10}, {1}, Dtype::kInt64)), IndexError);  // flattened size 10
    REQUIRE_THROWS_AS(ops::take(x, make_array({1.0}, {1}, Dtype::kFloat32), 0), DtypeError);
    REQUIRE_THROWS_AS(ops::take(x, make_array({1.0}, {1}, Dtype::kFloat16), 0), DtypeError);
    REQUIRE_THROWS_AS(ops::take(x, make_array({0}, {1}, Dtype::kInt64), 2), DimensionError);
    REQUIRE_THROWS_AS(ops::take(x, make_array({0}, {1}, Dtype::kInt64), -3), DimensionError);
    REQUIRE_THROWS_AS(ops::take(make_array({1}, {}, Dtype::kInt64), make_array({0}, {1}, Dtype::kInt64), 0),
                      DimensionError);
    REQUIRE_THROWS_AS(ops::take(make_array({}, {0}, Dtype::kInt64), make_array({0}, {1}, Dtype::kInt64), 0),
                      IndexError);
    REQUIRE_THROWS_AS(ops::take(x, on_other_device({1}, Dtype::kInt64), 0), DeviceError);
}

TEST_CASE("scatter_add: every dtype, layout and axis with repeated indices", "[indexing]") {
    const Shape shape{4, 3, 2};
    const std::vector<int64_t> idx{1, -1, 1, 0, 1};  // repeats accumulate
    for (Dtype dtype : kAllDtypes) {
        for (Layout layout : kAllLayouts) {
            for (int axis : {0, 1, 2, -2}) {
                INFO(dtype << " " << testing::layout_name(layout) << " axis " << axis);
                const int a = axis < 0 ? axis + 3 : axis;
                const Shape vshape = gathered(shape, {5}, a);
                const std::vector<double> t0 = sample(dtype, 24, 1);
                const std::vector<double> v = sample(dtype, shape_size(vshape), 2);
                const Array target = make_array(t0, shape, dtype, layout);
                const Array values = make_array(v, vshape, dtype, layout);
                ops::scatter_add(target, make_array({idx.begin(), idx.end()}, {5}, Dtype::kInt32, layout), values,
                                 axis);
                check_allclose(target, scatter_reference(t0, shape, a, idx, v, dtype), shape,
                               testing::tolerance(dtype));
            }
        }
    }
}

TEST_CASE("scatter_add: multi-dimensional and 0-d indices, broadcast and cast values", "[indexing]") {
    const Shape shape{3, 5};
    const std::vector<double> t0 = sample(Dtype::kInt32, 15);
    const std::vector<int64_t> idx{4, -1, 0, 4, 2, 2};
    SECTION("indices of shape (2, 3) on axis 1") {
        const Array target = make_array(t0, shape, Dtype::kInt32, Layout::kStrided);
        const std::vector<double> v = sample(Dtype::kInt32, 18, 3);
        ops::scatter_add(target, make_array({idx.begin(), idx.end()}, {2, 3}, Dtype::kInt64, Layout::kTransposed),
                         make_array(v, {3, 2, 3}, Dtype::kInt32, Layout::kTransposed), -1);
        check_allclose(target, scatter_reference(t0, shape, 1, idx, v, Dtype::kInt32), shape, {0, 0});
    }
    SECTION("0-d index, 0-d value broadcast") {
        const Array target = make_array(t0, shape, Dtype::kInt32);
        ops::scatter_add(target, make_array({-2}, {}, Dtype::kInt64), make_array({7}, {}, Dtype::kInt32), 0);
        check_allclose(target, scatter_reference(t0, shape, 0, {-2}, std::vector<double>(5, 7.0), Dtype::kInt32), shape,
                       {0, 0});
    }
    SECTION("float values cast (truncated) into an int target, broadcast over a (1, 6) row") {
        const Array target = make_array(t0, shape, Dtype::kInt32);
        ops::scatter_add(target, make_array({idx.begin(), idx.end()}, {6}, Dtype::kInt8),
                         make_array(testing::iota(6, 1.0, 0.75), {1, 6}, Dtype::kFloat64), 1);
        std::vector<double> v;
        for (int r = 0; r < 3; ++r) {
            for (int j = 0; j < 6; ++j) v.push_back(j);  // trunc(j + 0.75)
        }
        std::vector<int64_t> wrapped{4, 4, 0, 4, 2, 2};
        check_allclose(target, scatter_reference(t0, shape, 1, wrapped, v, Dtype::kInt32), shape, {0, 0});
    }
    SECTION("values that alias the target are read before any write") {
        const Array target = make_array(t0, {15}, Dtype::kFloat32);
        ops::scatter_add(target, make_array({1, 2, 3}, {3}, Dtype::kInt64), target.index({Slice{0, 3, 1}}), 0);
        const std::vector<double> v(t0.begin(), t0.begin() + 3);
        check_allclose(target, scatter_reference(t0, {15}, 0, {1, 2, 3}, v, Dtype::kFloat32), {15}, {0, 0});
    }
    SECTION("empty indices and size-0 targets change nothing") {
        const Array target = make_array(t0, shape, Dtype::kInt32);
        ops::scatter_add(target, make_array({}, {0}, Dtype::kInt64), make_array({}, {3, 0}, Dtype::kInt32), 1);
        check_allclose(target, t0, shape, {0, 0});
        const Array empty = make_array({}, {0, 3}, Dtype::kFloat32);
        ops::scatter_add(empty, make_array({1, 2}, {2}, Dtype::kInt64), make_array({}, {0, 2}, Dtype::kFloat32), 1);
        CHECK(empty.shape() == Shape{0, 3});
    }
}

TEST_CASE("scatter_add: float16 adds round once per addition like numpy", "[indexing]") {
    const Array target = make_array({0.0}, {1}, Dtype::kFloat16);
    const std::vector<int64_t> idx(3000, 0);
    ops::scatter_add(target, Array::from_vector(idx, {3000}),
                     make_array(std::vector<double>(3000, 1.0), {3000}, Dtype::kFloat16));
    Half expected{0.0f};
    for (int i = 0; i < 3000; ++i) expected = Half(static_cast<float>(expected) + 1.0f);
    CHECK(static_cast<float>(expected) < 3000.0f);  // the test is only meaningful when rounding bites
    check_allclose(target, {static_cast<double>(static_cast<float>(expected))}, {1}, {0, 0});
}

TEST_CASE("scatter_add: results do not depend on the thread count", "[indexing]") {
    const Shape shape{8, 4096};
    std::vector<int64_t> idx;
    for (int64_t j = 0; j < 1000; ++j) idx.push_back((j * j + 3) % 8);
    std::vector<double> v;
    for (int64_t k = 0; k < 1000 * 4096; ++k) v.push_back(static_cast<double>((k * 2654435761) % 1000) / 7.0);
    const Array values = make_array(v, {1000, 4096}, Dtype::kFloat32);
    const Array indices = Array::from_vector(idx, {1000});
    // The reference adds in float32 in index order, exactly as one thread would.
    std::vector<float> ref(8 * 4096, 0.0f);
    const std::vector<float> vf = values.to_vector<float>();
    for (size_t j = 0; j < idx.size(); ++j) {
        for (size_t c = 0; c < 4096; ++c) ref[static_cast<size_t>(idx[j]) * 4096 + c] += vf[j * 4096 + c];
    }
    const int saved = omp_get_max_threads();
    for (int threads : {1, 2, 3, 8}) {
        INFO(threads << " threads");
        omp_set_num_threads(threads);
        const Array target = make_array(std::vector<double>(8 * 4096, 0.0), shape, Dtype::kFloat32);
        ops::scatter_add(target, indices, values, 0);
        CHECK(target.to_vector<float>() == ref);
    }
    omp_set_num_threads(saved);
}

TEST_CASE("scatter_add: errors", "[indexing]") {
    const Array target = make_array(sample(Dtype::kFloat32, 10), {5, 2}, Dtype::kFloat32);
    const Array two = make_array({1, 1, 1, 1}, {2, 2}, Dtype::kFloat32);
    REQUIRE_THROWS_WITH(ops::scatter_add(target, make_array({7, 0}, {2}, Dtype::kInt64), two, 0),
                        "scatter_add: index 7 is out of bounds for axis 0 with size 5");
    REQUIRE_THROWS_AS(ops::scatter_add(target, make_array({0, -3}, {2}, Dtype::kInt64), two, 1), IndexError);
    REQUIRE_THROWS_AS(ops::scatter_add(target, make_array({0, 1}, {2}, Dtype::kFloat64), two, 0), DtypeError);
    REQUIRE_THROWS_AS(ops::scatter_add(target, make_array({0, 1, 2}, {3}, Dtype::kInt64), two, 0), DimensionError);
    REQUIRE_THROWS_AS(ops::scatter_add(target, make_array({0}, {1}, Dtype::kInt64), two, 0), DimensionError);
    REQUIRE_THROWS_AS(ops::scatter_add(target, make_array({0, 1}, {2}, Dtype::kInt64), two, 2), DimensionError);
    const Array broadcast = make_array({0, 0}, {1, 2}, Dtype::kFloat32).broadcast_to({5, 2});
    REQUIRE_THROWS_AS(ops::scatter_add(broadcast, make_array({0, 1}, {2}, Dtype::kInt64), two, 0), ValueError);
    REQUIRE_THROWS_AS(ops::scatter_add(target, on_other_device({2}, Dtype::kInt64), two, 0), DeviceError);
    REQUIRE_THROWS_AS(
        ops::scatter_add(target, make_array({0, 1}, {2}, Dtype::kInt64), on_other_device({2, 2}, Dtype::kFloat32), 0),
        DeviceError);
    // A failed call leaves the target untouched.
    check_allclose(target, sample(Dtype::kFloat32, 10), {5, 2}, {0, 0});
}
