// matmul, batch_matmul, tensordot: forward against naive float64 loops, gradients,
// double backprop, transposes, broadcast batch axes, 1-D operands, errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "functions/math.h"
#include "tests/functions/math/reference.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;
namespace ref = rensa::testing::math_reference;

namespace {

// The 2-D matrix number `batch` of x (..., r, c) viewed as (B, r, c), broadcast over
// batch axes of size 1 by the caller's index.
Array matrix(const Array& x, int64_t batch) {
    const int64_t r = x.shape()[x.ndim() - 2], c = x.shape()[x.ndim() - 1];
    const std::vector<double> v = to_doubles(x);
    return f64(std::vector<double>(v.begin() + batch * r * c, v.begin() + (batch + 1) * r * c), {r, c});
}

// numpy.matmul of operands of >= 2 dims (transposes applied), batch axes broadcast.
Array matmul_ref(const Array& a, const Array& b, bool ta, bool tb) {
    const Shape ab(a.shape().begin(), a.shape().end() - 2), bb(b.shape().begin(), b.shape().end() - 2);
    const Shape batch = ref::broadcast(ab, bb);
    std::vector<double> out;
    Shape out_shape = batch;
    for (int64_t i = 0; i < shape_size(batch); ++i) {
        const auto index = unravel(i, batch);
        Array ma = matrix(a, ref::source(index, ab)), mb = matrix(b, ref::source(index, bb));
        if (ta) ma = ref::transpose2d(ma);
        if (tb) mb = ref::transpose2d(mb);
        const Array m = ref::matmul2d(ma, mb);
        if (i == 0) {
            out_shape.push_back(m.shape()[0]);
            out_shape.push_back(m.shape()[1]);
        }
        for (double v : to_doubles(m)) out.push_back(v);
    }
    return f64(out, out_shape);
}

}  // namespace

TEST_CASE("math: matmul", "[functions][math]") {
    struct Case {
        Shape a, b;
        bool ta, tb;
    };
    const std::vector<Case> cases{
        {{2, 3}, {3, 4}, false, false},         {{3, 2}, {3, 4}, true, false},        {{2, 3}, {4, 3}, false, true},
        {{3, 2}, {4, 3}, true, true},           {{2, 2, 3}, {2, 3, 4}, false, false}, {{2, 2, 3}, {3, 4}, false, false},
        {{1, 2, 3}, {2, 1, 2, 4}, true, false},
    };
    for (const Case& c : cases) {
        check_function({
            .name = "matmul",
            .inputs = {{.shape = c.a}, {.shape = c.b}},
            .func = [&c](const Vars& xs) { return Vars{F::matmul(xs[0], xs[1], c.ta, c.tb)}; },
            .reference = [&c](const Arrays& xs) { return Arrays{matmul_ref(xs[0], xs[1], c.ta, c.tb)}; },
        });
    }
}

TEST_CASE("math: matmul with 1-D operands", "[functions][math]") {
    check_function({
        .name = "matmul vector-matrix",
        .inputs = {{.shape = {3}}, {.shape = {3, 2}}},
        .func = [](const Vars& xs) { return Vars{F::matmul(xs[0], xs[1], true)}; },  // transa ignored for 1-D
        .reference =
            [](const Arrays& xs) {
                return Arrays{ref::matmul2d(xs[0].reshape({1, 3}), xs[1]).reshape({2})};
            },
    });
    check_function({
        .name = "matmul matrix-vector",
        .inputs = {{.shape = {2, 3}}, {.shape = {3}}},
        .func = [](const Vars& xs) { return Vars{F::matmul(xs[0], xs[1])}; },
        .reference =
            [](const Arrays& xs) {
                return Arrays{ref::matmul2d(xs[0], xs[1].reshape({3, 1})).reshape({2})};
            },
    });
    check_function({
        .name = "matmul vector-vector",
        .inputs = {{.shape = {4}}, {.shape = {4}}},
        .func = [](const Vars& xs) { return Vars{F::matmul(xs[0], xs[1])}; },
        .reference =
            [](const Arrays& xs) {
                return Arrays{ref::matmul2d(xs[0].reshape({1, 4}), xs[1].reshape({4, 1})).reshape({})};
            },
    });
    CHECK(F::matmul(Variable(ops::zeros({0, 3})), Variable(ops::zeros({3, 2}))).shape() == Shape{0, 2});
}

TEST_CASE("math: batch_matmul", "[functions][math]") {
    check_function({
        .name = "batch_matmul",
        .inputs = {{.shape = {2, 3, 4}}, {.shape = {2, 4, 2}}},
        .func = [](const Vars& xs) { return Vars{F::batch_matmul(xs[0], xs[1])}; },
        .reference = [](const Arrays& xs) { return Arrays{matmul_ref(xs[0], xs[1], false, false)}; },
    });
    // 2-D operands are (batch, m) -> (batch, m, 1); transb makes this a batched outer product.
    check_function({
        .name = "batch_matmul 2-D transb",
        .inputs = {{.shape = {2, 3}}, {.shape = {2, 4}}},
        .func = [](const Vars& xs) { return Vars{F::batch_matmul(xs[0], xs[1], false, true)}; },
        .reference =
            [](const Arrays& xs) {
                return Arrays{matmul_ref(xs[0].reshape({2, 3, 1}), xs[1].reshape({2, 4, 1}), false, true)};
            },
    });
}

TEST_CASE("math: tensordot", "[functions][math]") {
    // a (2, 3, 4) . b (3, 4, 2) over two axes: naive sum.
    const auto ref2 = [](const Arrays& xs) {
        const std::vector<double> a = to_doubles(xs[0]), b = to_doubles(xs[1]);
        std::vector<double> out(4, 0.0);
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 3; ++j)
                for (int k = 0; k < 4; ++k)
                    for (int l = 0; l < 2; ++l) out[i * 2 + l] += a[(i * 3 + j) * 4 + k] * b[(j * 4 + k) * 2 + l];
        return Arrays{f64(out, {2, 2})};
    };
    check_function({
        .name = "tensordot axes=2",
        .inputs = {{.shape = {2, 3, 4}}, {.shape = {3, 4, 2}}},
        .func = [](const Vars& xs) { return Vars{F::tensordot(xs[0], xs[1])}; },
        .reference = ref2,
    });
    // The same contraction with b laid out (4, 2, 3): a's axes (1, 2) with b's (2, 0).
    check_function({
        .name = "tensordot axis lists",
        .inputs = {{.shape = {2, 3, 4}}, {.shape = {4, 2, 3}}},
        .func =
            [](const Vars& xs) {
                return Vars{F::tensordot(xs[0], xs[1], Axes{1, 2}, Axes{2, 0})};
            },
        .reference =
            [&](const Arrays& xs) {
                return ref2({xs[0], xs[1].transpose({2, 0, 1}).copy()});
            },
    });
    check_function({
        .name = "tensordot axes=0 (outer)",
        .inputs = {{.shape = {2}}, {.shape = {3}}},
        .func = [](const Vars& xs) { return Vars{F::tensordot(xs[0], xs[1], 0)}; },
        .reference =
            [](const Arrays& xs) {
                return Arrays{ref::matmul2d(xs[0].reshape({2, 1}), xs[1].reshape({1, 3}))};
            },
    });
}

TEST_CASE("math: matmul/tensordot errors", "[functions][math]") {
    const Variable a(ops::zeros({2, 3})), b(ops::zeros({2, 3}));
    CHECK_THROWS_WITH(F::matmul(a, b), Catch::Contains("matmul: Expect: contracted dimensions"));
    CHECK_NOTHROW(F::matmul(a, b, false, true));
    CHECK_THROWS_AS(F::matmul(Variable(ops::zeros({})), b), DimensionError);
    CHECK_THROWS_AS(F::matmul(a, Variable(ops::zeros({3, 2}, Dtype::kFloat64))), DtypeError);
    CHECK_THROWS_AS(F::matmul(Variable(ops::zeros({2, 2, 3})), Variable(ops::zeros({3, 3, 4}))), DimensionError);
    CHECK_THROWS_AS(F::batch_matmul(a, Variable(ops::zeros({3, 3}))), DimensionError);
    CHECK_THROWS_AS(F::tensordot(a, b, 3), DimensionError);
    CHECK_THROWS_WITH(F::tensordot(a, b, Axes{0}, Axes{1}), Catch::Contains("tensordot: shape mismatch"));
    CHECK_THROWS_AS(F::tensordot(a, b, Axes{0}, Axes{0, 1}), DimensionError);
}
