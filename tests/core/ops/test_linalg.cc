// matmul, dot, batch_matmul and the native gemm kernel against float64 references
// computed here with plain loops, over every dtype and layout.

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <vector>

#include "core/backend.h"
#include "core/ops/creation.h"
#include "core/ops/linalg.h"
#include "tests/testing/testing.h"

using namespace rensa;
using testing::Layout;

namespace {

struct Expected {
    std::vector<double> values;
    Shape shape;
};

// Small values every dtype holds exactly, so sums stay exact (no integer overflow).
std::vector<double> values_for(Dtype dtype, int64_t n, int seed) {
    std::vector<double> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        const int64_t r = (i * 7 + seed) % 9;
        double x = static_cast<double>(r) * 0.25 - 1.0;
        if (dtype == Dtype::kBool) x = r % 3 != 0;
        if (is_integral(dtype)) x = static_cast<double>(r % 4);
        v[static_cast<size_t>(i)] = x;
    }
    return v;
}

Array make(const Shape& shape, Dtype dtype, Layout layout, int seed) {
    return testing::make_array(values_for(dtype, shape_size(shape), seed), shape, dtype, layout);
}

// Offset of a batch element of an operand with `batch` leading dims, broadcast to `full`.
int64_t batch_offset(const Shape& full, int64_t flat, const Shape& shape, int batch_dims, int64_t matrix_size) {
    int64_t offset = 0, stride = matrix_size;
    for (int d = full.size() - 1, od = batch_dims - 1; d >= 0; --d, --od) {
        const int64_t index = flat % full[d];
        flat /= full[d];
        if (od < 0) continue;
        if (shape[od] != 1) offset += index * stride;
        stride *= shape[od];
    }
    return offset;
}

// numpy.matmul by plain loops in float64 (a bool result is "any product nonzero").
Expected matmul_reference(const Array& a, const Array& b, Dtype out_dtype) {
    const std::vector<double> av = testing::to_doubles(a), bv = testing::to_doubles(b);
    const Shape as = a.ndim() == 1 ? Shape{1, a.shape()[0]} : a.shape();
    const Shape bs = b.ndim() == 1 ? Shape{b.shape()[0], 1} : b.shape();
    const int na = as.size() - 2, nb = bs.size() - 2;
    const int64_t m = as[na], k = as[na + 1], n = bs[nb + 1];
    Shape batch(std::max(na, nb), 1);
    for (int d = 0; d < batch.size(); ++d) {
        const int ia = d - (batch.size() - na), ib = d - (batch.size() - nb);
        if (ia >= 0) batch[d] = as[ia];
        if (ib >= 0 && bs[ib] != 1) batch[d] = bs[ib];
    }
    Expected e;
    for (int64_t t = 0; t < shape_size(batch); ++t) {
        const int64_t ao = batch_offset(batch, t, as, na, m * k), bo = batch_offset(batch, t, bs, nb, k * n);
        for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) {
                double s = 0;
                for (int64_t p = 0; p < k; ++p) s += av[ao + i * k + p] * bv[bo + p * n + j];
                e.values.push_back(out_dtype == Dtype::kBool ? (s != 0) : s);
            }
        }
    }
    e.shape = batch;
    if (a.ndim() > 1) e.shape.push_back(m);
    if (b.ndim() > 1) e.shape.push_back(n);
    return e;
}

void check_matmul(const Array& a, const Array& b, Dtype out_dtype) {
    const Array c = ops::matmul(a, b);
    REQUIRE(c.dtype() == out_dtype);
    const Expected e = matmul_reference(a, b, out_dtype);
    testing::check_allclose(c, e.values, e.shape, testing::tolerance(out_dtype));
}

int64_t native_allocs() { return global_context().allocator(Device::native()).stats().num_allocs; }

// An array that claims to live on cuda:0 (host memory behind it), for device checks.
Array fake_cuda_array(const Shape& shape) {
    const int64_t bytes = shape_size(shape) * 4;
    auto storage = std::make_shared<Storage>(std::malloc(static_cast<size_t>(bytes)), bytes, Device::cuda(0),
                                             [](void* p) { std::free(p); });
    return Array(storage, shape, contiguous_strides(shape, 4), 0, Dtype::kFloat32);
}

}  // namespace

TEST_CASE("matmul: 2-D, every dtype and layout", "[linalg]") {
    for (Dtype dtype : kAllDtypes) {
        for (Layout la : testing::kAllLayouts) {
            for (Layout lb : testing::kAllLayouts) {
                INFO(dtype << " a " << testing::layout_name(la) << " b " << testing::layout_name(lb));
                check_matmul(make({3, 5}, dtype, la, 1), make({5, 4}, dtype, lb, 2), dtype);
            }
        }
    }
}

TEST_CASE("matmul: row- and column-major operands are read in place", "[linalg]") {
    const Layout in_place[] = {Layout::kContiguous, Layout::kTransposed, Layout::kOffset};
    for (Dtype dtype : {Dtype::kFloat32, Dtype::kFloat64}) {
        for (Layout la : in_place) {
            for (Layout lb : in_place) {
                INFO(dtype << " a " << testing::layout_name(la) << " b " << testing::layout_name(lb));
                const Array a = make({6, 7}, dtype, la, 3), b = make({7, 5}, dtype, lb, 4);
                const int64_t before = native_allocs();
                const Array c = ops::matmul(a, b);
                CHECK(native_allocs() - before == 1);  // the output only: no temporaries
                const Expected e = matmul_reference(a, b, dtype);
                testing::check_allclose(c, e.values, e.shape, testing::tolerance(dtype));
            }
        }
        // Batched, and a broadcast batch (stride 0): still no copies.
        const Array a = make({4, 6, 7}, dtype, Layout::kContiguous, 5).swapaxes(1, 2);  // (4, 7, 6), column-major
        const Array b = make({6, 3}, dtype, Layout::kTransposed, 6);
        const int64_t before = native_allocs();
        const Array c = ops::matmul(a, b);
        CHECK(native_allocs() - before == 1);
        const Expected e = matmul_reference(a, b, dtype);
        testing::check_allclose(c, e.values, e.shape, testing::tolerance(dtype));
    }
}

TEST_CASE("matmul: larger float32 and float64 against float64 loops", "[linalg]") {
    for (Dtype dtype : {Dtype::kFloat32, Dtype::kFloat64}) {
        for (Layout l : testing::kAllLayouts) {
            INFO(dtype << " " << testing::layout_name(l));
            const Array a = testing::make_array(testing::iota(67 * 45, 0.01, -10.0), {67, 45}, dtype, l);
            const Array b = testing::make_array(testing::iota(45 * 38, -0.02, 5.0), {45, 38}, dtype, l);
            const Expected e = matmul_reference(a, b, dtype);
            testing::check_allclose(ops::matmul(a, b), e.values, e.shape, {1e-3, 1e-5});
        }
    }
}

TEST_CASE("matmul: batch dimensions broadcast", "[linalg]") {
    const std::vector<std::pair<Shape, Shape>> cases = {
        {{2, 3, 4}, {2, 4, 5}}, {{2, 1, 3, 4}, {3, 4, 5}},    {{3, 4}, {2, 4, 5}},          {{2, 3, 4}, {4, 5}},
        {{1, 3, 4}, {2, 4, 5}}, {{2, 1, 3, 4}, {1, 2, 4, 5}}, {{2, 2, 3, 4}, {2, 1, 4, 5}},
    };
    for (Dtype dtype : {Dtype::kFloat32, Dtype::kFloat64, Dtype::kInt32, Dtype::kFloat16, Dtype::kBool}) {
        for (const auto& [sa, sb] : cases) {
            for (Layout l : testing::kAllLayouts) {
                INFO(dtype << " " << sa << " @ " << sb << " " << testing::layout_name(l));
                check_matmul(make(sa, dtype, l, 1), make(sb, dtype, Layout::kContiguous, 2), dtype);
                check_matmul(make(sa, dtype, Layout::kContiguous, 3), make(sb, dtype, l, 4), dtype);
            }
        }
    }
    // Views broadcast by the caller (stride 0 in several dims).
    const Array a = make({3, 4}, Dtype::kFloat32, Layout::kContiguous, 5).broadcast_to({2, 3, 3, 4});
    check_matmul(a, make({2, 1, 4, 2}, Dtype::kFloat32, Layout::kStrided, 6), Dtype::kFloat32);
}

TEST_CASE("matmul: 1-D operands are promoted and the axis removed", "[linalg]") {
    const std::vector<std::pair<Shape, Shape>> cases = {
        {{5}, {5}}, {{5}, {5, 3}}, {{4, 5}, {5}}, {{5}, {2, 5, 3}}, {{2, 4, 5}, {5}},
    };
    for (Dtype dtype : {Dtype::kFloat64, Dtype::kFloat32, Dtype::kInt64, Dtype::kBool, Dtype::kFloat16}) {
        for (const auto& [sa, sb] : cases) {
            for (Layout l : testing::kAllLayouts) {
                INFO(dtype << " " << sa << " @ " << sb << " " << testing::layout_name(l));
                check_matmul(make(sa, dtype, l, 1), make(sb, dtype, l, 2), dtype);
            }
        }
    }
    CHECK(ops::matmul(make({5}, Dtype::kFloat32, Layout::kContiguous, 1),
                      make({5}, Dtype::kFloat32, Layout::kContiguous, 2))
              .ndim() == 0);
}

TEST_CASE("matmul: size-0 dimensions, k = 0 gives zeros", "[linalg]") {
    for (Dtype dtype : kAllDtypes) {
        INFO(dtype);
        check_matmul(ops::zeros({0, 5}, dtype), make({5, 3}, dtype, Layout::kContiguous, 1), dtype);
        check_matmul(ops::zeros({0, 2, 3}, dtype), make({3, 4}, dtype, Layout::kContiguous, 1), dtype);
        check_matmul(make({3, 2}, dtype, Layout::kContiguous, 1), ops::zeros({2, 0}, dtype), dtype);
        const Array c = ops::matmul(ops::ones({3, 0}, dtype), ops::ones({0, 4}, dtype));
        testing::check_allclose(c, std::vector<double>(12, 0.0), {3, 4}, {0, 0});
        testing::check_allclose(ops::matmul(ops::ones({2, 0}, dtype), ops::ones({0}, dtype)), {0, 0}, {2}, {0, 0});
    }
}

TEST_CASE("matmul: dtype promotion and integer wrap-around", "[linalg]") {
    const auto promoted = [](Dtype da, Dtype db, Dtype expected) {
        INFO(da << " @ " << db);
        check_matmul(make({2, 3}, da, Layout::kContiguous, 1), make({3, 2}, db, Layout::kTransposed, 2), expected);
    };
    promoted(Dtype::kInt32, Dtype::kFloat32, Dtype::kFloat64);
    promoted(Dtype::kInt8, Dtype::kUInt8, Dtype::kInt32);
    promoted(Dtype::kFloat16, Dtype::kBFloat16, Dtype::kFloat32);
    promoted(Dtype::kBool, Dtype::kInt64, Dtype::kInt64);
    promoted(Dtype::kFloat32, Dtype::kFloat64, Dtype::kFloat64);
    promoted(Dtype::kFloat16, Dtype::kFloat32, Dtype::kFloat32);
    // numpy wraps integer products and sums around in the dtype.
    const auto int8 = [](std::vector<double> v, const Shape& s) { return testing::make_array(v, s, Dtype::kInt8); };
    testing::check_allclose(ops::matmul(int8({100, 100}, {1, 2}), int8({2, 1}, {2, 1})), {300 - 256}, {1, 1}, {0, 0});
    const Array u = testing::make_array({200}, {1, 1}, Dtype::kUInt8);
    testing::check_allclose(ops::matmul(u, testing::make_array({2}, {1, 1}, Dtype::kUInt8)), {144}, {1, 1}, {0, 0});
    const Array big = testing::make_array({1 << 30, 1 << 30}, {1, 2}, Dtype::kInt32);
    testing::check_allclose(ops::matmul(big, testing::make_array({2, 2}, {2, 1}, Dtype::kInt32)), {0}, {1, 1}, {0, 0});
}

TEST_CASE("matmul: errors", "[linalg]") {
    const Array a = ops::zeros({2, 3}), b = ops::zeros({4, 5});
    REQUIRE_THROWS_AS(ops::matmul(a, b), DimensionError);
    REQUIRE_THROWS_WITH(ops::matmul(a, b), "matmul: shapes (2, 3) and (4, 5) not aligned: 3 (dim 1) != 4 (dim 0)");
    REQUIRE_THROWS_WITH(ops::matmul(ops::zeros({3}), ops::zeros({4})),
                        "matmul: shapes (3,) and (4,) not aligned: 3 (dim 0) != 4 (dim 0)");
    REQUIRE_THROWS_AS(ops::matmul(ops::zeros({}), a), DimensionError);
    REQUIRE_THROWS_AS(ops::matmul(a, ops::zeros({})), DimensionError);
    REQUIRE_THROWS_AS(ops::matmul(ops::zeros({2, 2, 3}), ops::zeros({3, 3, 4})), DimensionError);
    const Array on_cuda = fake_cuda_array({3, 2});
    REQUIRE_THROWS_AS(ops::matmul(a, on_cuda), DeviceError);
    REQUIRE_THROWS_AS(ops::dot(a, on_cuda), DeviceError);
    REQUIRE_THROWS_AS(ops::batch_matmul(ops::zeros({1, 2, 3}), on_cuda.reshape({1, 3, 2})), DeviceError);
}

namespace {

// numpy.dot by plain loops: sum over a's last axis and b's second-to-last (only) axis.
Expected dot_reference(const Array& a, const Array& b) {
    const std::vector<double> av = testing::to_doubles(a), bv = testing::to_doubles(b);
    Expected e;
    if (a.ndim() == 0 || b.ndim() == 0) {
        const bool scalar_a = a.ndim() == 0;
        for (double v : scalar_a ? bv : av) e.values.push_back(v * (scalar_a ? av[0] : bv[0]));
        e.shape = scalar_a ? b.shape() : a.shape();
        return e;
    }
    const int64_t k = a.shape()[a.ndim() - 1];
    const int64_t n = b.ndim() == 1 ? 1 : b.shape()[b.ndim() - 1];
    const int64_t rows = a.size() / std::max<int64_t>(k, 1), blocks = b.size() / std::max<int64_t>(k * n, 1);
    for (int64_t r = 0; r < rows; ++r) {
        for (int64_t j = 0; j < blocks; ++j) {
            for (int64_t c = 0; c < n; ++c) {
                double s = 0;
                for (int64_t p = 0; p < k; ++p) s += av[r * k + p] * bv[(j * k + p) * n + c];
                e.values.push_back(s);
            }
        }
    }
    for (int d = 0; d + 1 < a.ndim(); ++d) e.shape.push_back(a.shape()[d]);
    for (int d = 0; d < b.ndim(); ++d) {
        if (d != (b.ndim() == 1 ? 0 : b.ndim() - 2)) e.shape.push_back(b.shape()[d]);
    }
    return e;
}

}  // namespace

TEST_CASE("dot: 0-D, 1-D, 2-D and N-D operands", "[linalg]") {
    const std::vector<std::pair<Shape, Shape>> cases = {
        {{}, {}},         {{}, {3, 4}},           {{2, 3}, {}},     {{5}, {5}},          {{3, 5}, {5, 4}},
        {{5}, {5, 4}},    {{3, 5}, {5}},          {{2, 3, 4}, {4}}, {{2, 3, 4}, {4, 5}}, {{2, 3, 4}, {5, 4, 6}},
        {{4}, {2, 4, 3}}, {{2, 1, 3}, {2, 3, 2}},
    };
    for (Dtype dtype : {Dtype::kFloat64, Dtype::kFloat32, Dtype::kInt64, Dtype::kFloat16, Dtype::kUInt8}) {
        for (const auto& [sa, sb] : cases) {
            for (Layout l : testing::kAllLayouts) {
                INFO(dtype << " dot(" << sa << ", " << sb << ") " << testing::layout_name(l));
                const Array a = make(sa, dtype, l, 1), b = make(sb, dtype, Layout::kContiguous, 2);
                const Array c = ops::dot(a, b);
                REQUIRE(c.dtype() == dtype);
                const Expected e = dot_reference(a, b);
                testing::check_allclose(c, e.values, e.shape, testing::tolerance(dtype));
                const Array b2 = make(sb, dtype, l, 3);
                const Expected e2 = dot_reference(a, b2);
                testing::check_allclose(ops::dot(a, b2), e2.values, e2.shape, testing::tolerance(dtype));
            }
        }
    }
    REQUIRE_THROWS_WITH(ops::dot(ops::zeros({2, 3, 4}), ops::zeros({5, 6})),
                        "dot: shapes (2, 3, 4) and (5, 6) not aligned: 4 (dim 2) != 5 (dim 0)");
    REQUIRE_THROWS_AS(ops::dot(ops::zeros({3}), ops::zeros({2, 4, 3})), DimensionError);
    // k = 0 in N-D: zeros.
    testing::check_allclose(ops::dot(ops::ones({2, 0}), ops::ones({3, 0, 4})), std::vector<double>(24, 0.0), {2, 3, 4},
                            {0, 0});
}

TEST_CASE("batch_matmul: transposes, layouts, dtypes", "[linalg]") {
    for (Dtype dtype : {Dtype::kFloat32, Dtype::kFloat64, Dtype::kInt32, Dtype::kBFloat16, Dtype::kBool}) {
        for (int flags = 0; flags < 4; ++flags) {
            const bool ta = flags & 1, tb = flags & 2;
            for (Layout l : testing::kAllLayouts) {
                INFO(dtype << " trans_a " << ta << " trans_b " << tb << " " << testing::layout_name(l));
                const Array a = make(ta ? Shape{3, 4, 2} : Shape{3, 2, 4}, dtype, l, 1);
                const Array b = make(tb ? Shape{3, 5, 4} : Shape{3, 4, 5}, dtype, l, 2);
                // The reference sees the transposes as views.
                const Expected e = matmul_reference(ta ? a.swapaxes(1, 2) : a, tb ? b.swapaxes(1, 2) : b, dtype);
                testing::check_allclose(ops::batch_matmul(a, b, ta, tb), e.values, e.shape, testing::tolerance(dtype));
            }
        }
    }
    const Array one = make({1, 2, 4}, Dtype::kFloat64, Layout::kContiguous, 1);
    const Array many = make({3, 4, 5}, Dtype::kFloat64, Layout::kContiguous, 2);
    const Expected e = matmul_reference(one, many, Dtype::kFloat64);
    testing::check_allclose(ops::batch_matmul(one, many), e.values, e.shape, {1e-12, 1e-12});
    CHECK(ops::batch_matmul(ops::zeros({1, 2, 3}), ops::zeros({0, 3, 4})).shape() == Shape{0, 2, 4});
    testing::check_allclose(ops::batch_matmul(ops::ones({2, 3, 0}), ops::ones({1, 0, 4})), std::vector<double>(24, 0.0),
                            {2, 3, 4}, {0, 0});
    REQUIRE_THROWS_AS(ops::batch_matmul(ops::zeros({2, 3}), ops::zeros({3, 4})), DimensionError);
    REQUIRE_THROWS_AS(ops::batch_matmul(ops::zeros({2, 2, 3}), ops::zeros({3, 3, 4})), DimensionError);
    REQUIRE_THROWS_WITH(ops::batch_matmul(ops::zeros({2, 2, 3}), ops::zeros({2, 4, 5})),
                        "batch_matmul: shapes (2, 2, 3) and (2, 4, 5) not aligned: 3 (dim 2) != 4 (dim 1)");
    REQUIRE_THROWS_AS(ops::batch_matmul(ops::zeros({2, 3, 2}), ops::zeros({2, 4, 5}), true), DimensionError);
}

namespace {

// v wrapped into the range of a small integer dtype, as two's complement arithmetic does.
double wrap(double v, Dtype dtype) {
    const double span = dtype == Dtype::kInt32 ? 0x1p32 : 256.0;
    const double low = dtype == Dtype::kUInt8 ? 0.0 : -span / 2;
    if (dtype == Dtype::kInt64) return v;
    return v - span * std::floor((v - low) / span);
}

// alpha * op(a) @ op(b) + beta * old_out by loops; integers truncate non-integral scalings
// and wrap around, bool is (alpha and any product) or (beta and old).
std::vector<double> gemm_reference(const GemmArgs& g, const std::vector<double>& old) {
    const Array a = g.trans_a ? g.a.swapaxes(1, 2) : g.a, b = g.trans_b ? g.b.swapaxes(1, 2) : g.b;
    const Expected sums = matmul_reference(a, b, Dtype::kFloat64);
    std::vector<double> e;
    for (size_t i = 0; i < old.size(); ++i) {
        const double s = sums.values[i], o = g.beta != 0 ? old[i] : 0.0;
        if (g.out.dtype() == Dtype::kBool) {
            e.push_back((g.alpha != 0 && s != 0) || (g.beta != 0 && o != 0));
        } else {
            const double v = g.alpha * s + g.beta * o;
            e.push_back(is_integral(g.out.dtype()) ? wrap(std::trunc(v), g.out.dtype()) : v);
        }
    }
    return e;
}

// Runs the kernel on g and checks g.out; returns how many arrays the kernel allocated.
int64_t check_gemm(const GemmArgs& g) {
    const std::vector<double> old = testing::to_doubles(g.out);
    const std::vector<double> expected = gemm_reference(g, old);
    const int64_t before = native_allocs();
    global_context().kernels(Device::native()).gemm(g);
    const int64_t allocs = native_allocs() - before;
    testing::check_allclose(g.out, expected, g.out.shape(), testing::tolerance(g.out.dtype()));
    return allocs;
}

}  // namespace

TEST_CASE("gemm kernel: alpha, beta, transposes and output layouts", "[linalg]") {
    for (Dtype dtype : kAllDtypes) {
        const bool is_bool = dtype == Dtype::kBool;
        const double alpha = is_bool ? 1.0 : is_float(dtype) ? 1.5 : 3.0;
        const double beta = is_bool ? 1.0 : is_float(dtype) ? -0.5 : -2.0;
        for (int flags = 0; flags < 4; ++flags) {
            const bool ta = flags & 1, tb = flags & 2;
            for (Layout l : testing::kAllLayouts) {
                INFO(dtype << " trans_a " << ta << " trans_b " << tb << " " << testing::layout_name(l));
                const Array a = make(ta ? Shape{2, 5, 3} : Shape{2, 3, 5}, dtype, l, 1);
                const Array b = make(tb ? Shape{2, 4, 5} : Shape{2, 5, 4}, dtype, l, 2);
                check_gemm({a, b, make({2, 3, 4}, dtype, l, 3), ta, tb, alpha, beta});
                check_gemm({a, b, make({2, 4, 3}, dtype, l, 4).swapaxes(1, 2), ta, tb, alpha, beta});
                // A batch stride of 0 broadcasts one matrix.
                const Array a1 = make(ta ? Shape{1, 5, 3} : Shape{1, 3, 5}, dtype, l, 5).broadcast_to(a.shape());
                check_gemm({a1, b, make({2, 3, 4}, dtype, Layout::kContiguous, 6), ta, tb, alpha, 0.0});
            }
        }
        INFO(dtype << ": k = 0 scales out by beta");
        check_gemm({ops::zeros({2, 3, 0}, dtype), ops::zeros({2, 0, 4}, dtype),
                    make({2, 3, 4}, dtype, Layout::kStrided, 7), false, false, alpha, beta});
    }
    for (Dtype dtype : {Dtype::kInt8, Dtype::kInt32, Dtype::kInt64}) {  // non-integral scalings truncate
        INFO(dtype);
        check_gemm({make({1, 3, 5}, dtype, Layout::kContiguous, 1), make({1, 5, 4}, dtype, Layout::kContiguous, 2),
                    make({1, 3, 4}, dtype, Layout::kContiguous, 3), false, false, 0.5, 0.0});
    }
}

TEST_CASE("gemm kernel: beta = 0 ignores the old output, column-major output is written in place", "[linalg]") {
    for (Dtype dtype : {Dtype::kFloat16, Dtype::kBFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
        INFO(dtype);
        const Array out = ops::empty({1, 4, 3}, dtype);
        out.fill(std::nan(""));
        check_gemm({make({1, 4, 6}, dtype, Layout::kOffset, 1), make({1, 6, 3}, dtype, Layout::kTransposed, 2), out});
    }
    for (Dtype dtype : {Dtype::kFloat32, Dtype::kFloat64}) {
        INFO(dtype);
        const Array out = make({2, 5, 4}, dtype, Layout::kContiguous, 3).swapaxes(1, 2);  // (2, 4, 5), ld 4
        const Array a = make({2, 4, 6}, dtype, Layout::kContiguous, 1);
        const Array b = make({2, 5, 6}, dtype, Layout::kContiguous, 2);
        CHECK(check_gemm({a, b, out, false, true, 2.0, 1.0}) == 0);
        CHECK(check_gemm({a.swapaxes(1, 2).copy().swapaxes(1, 2), b, out, false, true, 1.0, 0.0}) == 0);
    }
}
