// autograd/check.h: each input check passes on good input and throws its typed error with
// the "<function>: Expect: ..., Actual: ..." message on bad input (Note [Input check messages]).

#include <catch2/catch.hpp>

#include "autograd/check.h"
#include "core/ops/creation.h"

using namespace rensa;
using Catch::Equals;

namespace {

Variable zeros(const Shape& shape, Dtype dtype = Dtype::kFloat32) { return Variable(ops::zeros(shape, dtype)); }

}  // namespace

TEST_CASE("check: undefined inputs are named by the function", "[autograd]") {
    const Variable undefined;
    CHECK_NOTHROW(expect_defined(zeros({2}), "f", "x"));
    CHECK_THROWS_AS(expect_defined(undefined, "f", "x"), ValueError);
    CHECK_THROWS_WITH(expect_defined(undefined, "linear", "W"),
                      Equals("linear: Expect: W to be defined, Actual: undefined Variable"));
    // Every other check rejects an undefined input the same way before looking at it.
    CHECK_THROWS_WITH(expect_float(undefined, "relu", "x"),
                      Equals("relu: Expect: x to be defined, Actual: undefined Variable"));
    CHECK_THROWS_AS(expect_integer(undefined, "f", "t"), ValueError);
    CHECK_THROWS_AS(expect_signed_integer(undefined, "f", "t"), ValueError);
    CHECK_THROWS_AS(expect_dtype(undefined, Dtype::kBool, "f", "c"), ValueError);
    CHECK_THROWS_AS(expect_ndim(undefined, 2, "f", "x"), ValueError);
    CHECK_THROWS_AS(expect_shape(undefined, {2}, "f", "x"), ValueError);
    CHECK_THROWS_WITH(expect_same_dtype(zeros({2}), undefined, "f", "a", "b"),
                      Equals("f: Expect: b to be defined, Actual: undefined Variable"));
    CHECK_THROWS_WITH(expect_same_shape(undefined, zeros({2}), "f", "a", "b"),
                      Equals("f: Expect: a to be defined, Actual: undefined Variable"));
}

TEST_CASE("check: dtype checks", "[autograd]") {
    for (const Dtype dtype : {Dtype::kFloat16, Dtype::kBFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
        CHECK_NOTHROW(expect_float(zeros({2}, dtype), "f", "x"));
    }
    CHECK_THROWS_AS(expect_float(zeros({2}, Dtype::kInt32), "f", "x"), DtypeError);
    CHECK_THROWS_WITH(expect_float(zeros({2}, Dtype::kInt32), "relu", "x"),
                      Equals("relu: Expect: x.dtype.kind == 'f', Actual: int32"));

    CHECK_NOTHROW(expect_integer(zeros({2}, Dtype::kUInt8), "f", "t"));
    CHECK_NOTHROW(expect_integer(zeros({2}, Dtype::kInt64), "f", "t"));
    CHECK_THROWS_WITH(expect_integer(zeros({2}, Dtype::kBool), "embed_id", "x"),
                      Equals("embed_id: Expect: x.dtype.kind in 'iu', Actual: bool"));
    CHECK_NOTHROW(expect_signed_integer(zeros({2}, Dtype::kInt8), "f", "t"));
    CHECK_THROWS_AS(expect_signed_integer(zeros({2}, Dtype::kUInt8), "f", "t"), DtypeError);
    CHECK_THROWS_WITH(expect_signed_integer(zeros({2}), "accuracy", "t"),
                      Equals("accuracy: Expect: t.dtype.kind == 'i', Actual: float32"));

    CHECK_NOTHROW(expect_dtype(zeros({2}, Dtype::kBool), Dtype::kBool, "where", "condition"));
    CHECK_THROWS_WITH(expect_dtype(zeros({2}), Dtype::kBool, "where", "condition"),
                      Equals("where: Expect: condition.dtype == bool, Actual: float32"));

    CHECK_NOTHROW(expect_same_dtype(zeros({2}), zeros({3}), "f", "a", "b"));
    CHECK_THROWS_AS(expect_same_dtype(zeros({2}), zeros({2}, Dtype::kFloat64), "f", "a", "b"), DtypeError);
    CHECK_THROWS_WITH(expect_same_dtype(zeros({2}), zeros({2}, Dtype::kFloat64), "linear", "x", "W"),
                      Equals("linear: Expect: x.dtype == W.dtype, Actual: float32 != float64"));

    CHECK_NOTHROW(expect_same_float(zeros({2}, Dtype::kFloat64), zeros({2}, Dtype::kFloat64), "f", "a", "b"));
    CHECK_THROWS_WITH(expect_same_float(zeros({2}, Dtype::kInt32), zeros({2}, Dtype::kInt32), "f", "a", "b"),
                      Equals("f: Expect: a.dtype.kind == 'f', Actual: int32"));
    CHECK_THROWS_WITH(expect_same_float(zeros({2}), zeros({2}, Dtype::kInt32), "f", "a", "b"),
                      Equals("f: Expect: a.dtype == b.dtype, Actual: float32 != int32"));
}

TEST_CASE("check: rank and shape checks", "[autograd]") {
    CHECK_NOTHROW(expect_ndim(zeros({2, 3}), 2, "f", "x"));
    CHECK_NOTHROW(expect_ndim(zeros({}), 0, "f", "x"));
    CHECK_THROWS_AS(expect_ndim(zeros({2, 3}), 4, "f", "x"), DimensionError);
    CHECK_THROWS_WITH(expect_ndim(zeros({2, 3, 4}), 4, "max_pooling_2d", "x"),
                      Equals("max_pooling_2d: Expect: x.ndim == 4, Actual: 3"));

    CHECK_NOTHROW(expect_shape(zeros({3}), {3}, "f", "x"));
    CHECK_THROWS_AS(expect_shape(zeros({2}), {3}, "f", "b"), DimensionError);
    CHECK_THROWS_WITH(expect_shape(zeros({2}), {3}, "linear", "b"),
                      Equals("linear: Expect: b.shape == (3,), Actual: (2,)"));

    CHECK_NOTHROW(expect_same_shape(zeros({2, 3}), zeros({2, 3}, Dtype::kFloat64), "f", "a", "b"));
    CHECK_THROWS_AS(expect_same_shape(zeros({2, 3}), zeros({3, 2}), "f", "a", "b"), DimensionError);
    CHECK_THROWS_WITH(expect_same_shape(zeros({2, 3}), zeros({3, 2}), "squared_error", "x0", "x1"),
                      Equals("squared_error: Expect: x0.shape == x1.shape, Actual: (2, 3) != (3, 2)"));
}
