#include "core/ops/elementwise.h"

#include <string_view>

#include "core/backend.h"
#include "core/error.h"

namespace rensa::ops {
namespace {

Kernels& kernels_of(const Array& a) { return global_context().kernels(a.device()); }

// numpy's loop choice for float-only ufuncs: the smallest float that holds the input
// (bool/int8/uint8 -> float16, int32/int64 -> float64).
Dtype float_dtype_for(Dtype dtype) { return is_float(dtype) ? dtype : result_type(dtype, Dtype::kFloat16); }

// The row's bool_hint, for rows whose dtype rule refuses bool.
template <class Op>
const char* bool_hint(Op op) {
    return visit_row(op, []<class Row>(Row) -> const char* {
        if constexpr (requires { Row::bool_hint; }) {
            return Row::bool_hint;
        } else {
            return "";
        }
    });
}

// The dtype op computes in for operands promoting to `common` (Note [Elementwise tables]).
template <class Op>
Dtype compute_dtype(Op op, Dtype common) {
    switch (op_dtypes(op)) {
        case Dtypes::kSame:
        case Dtypes::kPredicate:
            return common;
        case Dtypes::kBoolAsInt8:
            return common == Dtype::kBool ? Dtype::kInt8 : common;
        case Dtypes::kNoBool:
            RENSA_CHECK(common != Dtype::kBool, DtypeError, op_name(op), ": Expect: a non-bool input, Actual: bool (",
                        bool_hint(op), ")");
            return common;
        case Dtypes::kFloat:
            return float_dtype_for(common);
        case Dtypes::kTrueDivide:
            return is_float(common) ? common : kDefaultFloat;
    }
    return common;
}

Array unary(UnaryOp op, const Array& x) {
    RENSA_CHECK(x.defined(), ValueError, op_name(op), ": Expect: a defined input array, Actual: undefined");
    const Dtype compute = compute_dtype(op, x.dtype());
    const Array in = x.astype(compute, false);
    Array out = Array::empty(x.shape(), is_predicate(op) ? Dtype::kBool : compute, x.device());
    if (out.size() > 0) kernels_of(x).unary(op, in, out);
    return out;
}

void check_operands(std::string_view name, const Array& a, const Array& b) {
    RENSA_CHECK(a.defined() && b.defined(), ValueError, name, ": an input array is undefined");
    RENSA_CHECK(a.device() == b.device(), DeviceError, name, ": operands are on different devices (", a.device(),
                " and ", b.device(), "); move one with to_device");
}

Array binary(BinaryOp op, const Array& a, const Array& b) {
    const char* name = op_name(op);
    check_operands(name, a, b);
    const Shape shape = broadcast_shapes(a.shape(), b.shape(), name);
    const Dtype compute = compute_dtype(op, result_type(a.dtype(), b.dtype()));
    Array out = Array::empty(shape, is_predicate(op) ? Dtype::kBool : compute, a.device());
    if (out.size() == 0) return out;
    kernels_of(a).binary(op, a.astype(compute, false).broadcast_to(shape), b.astype(compute, false).broadcast_to(shape),
                         out);
    return out;
}

Array binary(BinaryOp op, const Array& a, Scalar s, bool reversed) {
    RENSA_CHECK(a.defined(), ValueError, op_name(op), ": Expect: a defined input array, Actual: undefined");
    const Dtype compute = compute_dtype(op, result_type(a.dtype(), s));
    Array out = Array::empty(a.shape(), is_predicate(op) ? Dtype::kBool : compute, a.device());
    if (out.size() > 0) kernels_of(a).binary_scalar(op, a.astype(compute, false), s, reversed, out);
    return out;
}

}  // namespace

Array elementwise(UnaryOp op, const Array& x) { return unary(op, x); }
Array elementwise(BinaryOp op, const Array& a, const Array& b) { return binary(op, a, b); }
Array elementwise(BinaryOp op, const Array& a, Scalar b) { return binary(op, a, b, false); }
Array elementwise(BinaryOp op, Scalar a, const Array& b) { return binary(op, b, a, true); }

Array negative(const Array& x) { return unary(UnaryOp::kNegative, x); }
Array abs(const Array& x) { return unary(UnaryOp::kAbs, x); }
Array sign(const Array& x) { return unary(UnaryOp::kSign, x); }
Array reciprocal(const Array& x) { return unary(UnaryOp::kReciprocal, x); }
Array floor(const Array& x) { return unary(UnaryOp::kFloor, x); }
Array ceil(const Array& x) { return unary(UnaryOp::kCeil, x); }
Array trunc(const Array& x) { return unary(UnaryOp::kTrunc, x); }
Array exp(const Array& x) { return unary(UnaryOp::kExp, x); }
Array expm1(const Array& x) { return unary(UnaryOp::kExpm1, x); }
Array log(const Array& x) { return unary(UnaryOp::kLog, x); }
Array log1p(const Array& x) { return unary(UnaryOp::kLog1p, x); }
Array log2(const Array& x) { return unary(UnaryOp::kLog2, x); }
Array log10(const Array& x) { return unary(UnaryOp::kLog10, x); }
Array sqrt(const Array& x) { return unary(UnaryOp::kSqrt, x); }
Array rsqrt(const Array& x) { return unary(UnaryOp::kRsqrt, x); }
Array square(const Array& x) { return unary(UnaryOp::kSquare, x); }
Array sin(const Array& x) { return unary(UnaryOp::kSin, x); }
Array cos(const Array& x) { return unary(UnaryOp::kCos, x); }
Array tan(const Array& x) { return unary(UnaryOp::kTan, x); }
Array arcsin(const Array& x) { return unary(UnaryOp::kArcsin, x); }
Array arccos(const Array& x) { return unary(UnaryOp::kArccos, x); }
Array arctan(const Array& x) { return unary(UnaryOp::kArctan, x); }
Array sinh(const Array& x) { return unary(UnaryOp::kSinh, x); }
Array cosh(const Array& x) { return unary(UnaryOp::kCosh, x); }
Array tanh(const Array& x) { return unary(UnaryOp::kTanh, x); }
Array sigmoid(const Array& x) { return unary(UnaryOp::kSigmoid, x); }
Array erf(const Array& x) { return unary(UnaryOp::kErf, x); }
Array erfc(const Array& x) { return unary(UnaryOp::kErfc, x); }
Array ndtr(const Array& x) { return unary(UnaryOp::kNdtr, x); }
Array logical_not(const Array& x) { return unary(UnaryOp::kLogicalNot, x); }
Array isnan(const Array& x) { return unary(UnaryOp::kIsnan, x); }
Array isinf(const Array& x) { return unary(UnaryOp::kIsinf, x); }
Array isfinite(const Array& x) { return unary(UnaryOp::kIsfinite, x); }

Array add(const Array& a, const Array& b) { return binary(BinaryOp::kAdd, a, b); }
Array add(const Array& a, Scalar b) { return binary(BinaryOp::kAdd, a, b, false); }
Array add(Scalar a, const Array& b) { return binary(BinaryOp::kAdd, b, a, true); }
Array subtract(const Array& a, const Array& b) { return binary(BinaryOp::kSubtract, a, b); }
Array subtract(const Array& a, Scalar b) { return binary(BinaryOp::kSubtract, a, b, false); }
Array subtract(Scalar a, const Array& b) { return binary(BinaryOp::kSubtract, b, a, true); }
Array multiply(const Array& a, const Array& b) { return binary(BinaryOp::kMultiply, a, b); }
Array multiply(const Array& a, Scalar b) { return binary(BinaryOp::kMultiply, a, b, false); }
Array multiply(Scalar a, const Array& b) { return binary(BinaryOp::kMultiply, b, a, true); }
Array divide(const Array& a, const Array& b) { return binary(BinaryOp::kDivide, a, b); }
Array divide(const Array& a, Scalar b) { return binary(BinaryOp::kDivide, a, b, false); }
Array divide(Scalar a, const Array& b) { return binary(BinaryOp::kDivide, b, a, true); }
Array floor_divide(const Array& a, const Array& b) { return binary(BinaryOp::kFloorDivide, a, b); }
Array floor_divide(const Array& a, Scalar b) { return binary(BinaryOp::kFloorDivide, a, b, false); }
Array floor_divide(Scalar a, const Array& b) { return binary(BinaryOp::kFloorDivide, b, a, true); }
Array mod(const Array& a, const Array& b) { return binary(BinaryOp::kMod, a, b); }
Array mod(const Array& a, Scalar b) { return binary(BinaryOp::kMod, a, b, false); }
Array mod(Scalar a, const Array& b) { return binary(BinaryOp::kMod, b, a, true); }
Array fmod(const Array& a, const Array& b) { return binary(BinaryOp::kFmod, a, b); }
Array fmod(const Array& a, Scalar b) { return binary(BinaryOp::kFmod, a, b, false); }
Array fmod(Scalar a, const Array& b) { return binary(BinaryOp::kFmod, b, a, true); }
Array power(const Array& a, const Array& b) { return binary(BinaryOp::kPower, a, b); }
Array power(const Array& a, Scalar b) { return binary(BinaryOp::kPower, a, b, false); }
Array power(Scalar a, const Array& b) { return binary(BinaryOp::kPower, b, a, true); }
Array maximum(const Array& a, const Array& b) { return binary(BinaryOp::kMaximum, a, b); }
Array maximum(const Array& a, Scalar b) { return binary(BinaryOp::kMaximum, a, b, false); }
Array maximum(Scalar a, const Array& b) { return binary(BinaryOp::kMaximum, b, a, true); }
Array minimum(const Array& a, const Array& b) { return binary(BinaryOp::kMinimum, a, b); }
Array minimum(const Array& a, Scalar b) { return binary(BinaryOp::kMinimum, a, b, false); }
Array minimum(Scalar a, const Array& b) { return binary(BinaryOp::kMinimum, b, a, true); }
Array arctan2(const Array& a, const Array& b) { return binary(BinaryOp::kArctan2, a, b); }
Array arctan2(const Array& a, Scalar b) { return binary(BinaryOp::kArctan2, a, b, false); }
Array arctan2(Scalar a, const Array& b) { return binary(BinaryOp::kArctan2, b, a, true); }
Array keep_where_positive(const Array& a, const Array& b) { return binary(BinaryOp::kKeepWherePositive, a, b); }
Array keep_where_positive(const Array& a, Scalar b) { return binary(BinaryOp::kKeepWherePositive, a, b, false); }
Array keep_where_positive(Scalar a, const Array& b) { return binary(BinaryOp::kKeepWherePositive, b, a, true); }
Array equal(const Array& a, const Array& b) { return binary(BinaryOp::kEqual, a, b); }
Array equal(const Array& a, Scalar b) { return binary(BinaryOp::kEqual, a, b, false); }
Array equal(Scalar a, const Array& b) { return binary(BinaryOp::kEqual, b, a, true); }
Array not_equal(const Array& a, const Array& b) { return binary(BinaryOp::kNotEqual, a, b); }
Array not_equal(const Array& a, Scalar b) { return binary(BinaryOp::kNotEqual, a, b, false); }
Array not_equal(Scalar a, const Array& b) { return binary(BinaryOp::kNotEqual, b, a, true); }
Array less(const Array& a, const Array& b) { return binary(BinaryOp::kLess, a, b); }
Array less(const Array& a, Scalar b) { return binary(BinaryOp::kLess, a, b, false); }
Array less(Scalar a, const Array& b) { return binary(BinaryOp::kLess, b, a, true); }
Array less_equal(const Array& a, const Array& b) { return binary(BinaryOp::kLessEqual, a, b); }
Array less_equal(const Array& a, Scalar b) { return binary(BinaryOp::kLessEqual, a, b, false); }
Array less_equal(Scalar a, const Array& b) { return binary(BinaryOp::kLessEqual, b, a, true); }
Array greater(const Array& a, const Array& b) { return binary(BinaryOp::kGreater, a, b); }
Array greater(const Array& a, Scalar b) { return binary(BinaryOp::kGreater, a, b, false); }
Array greater(Scalar a, const Array& b) { return binary(BinaryOp::kGreater, b, a, true); }
Array greater_equal(const Array& a, const Array& b) { return binary(BinaryOp::kGreaterEqual, a, b); }
Array greater_equal(const Array& a, Scalar b) { return binary(BinaryOp::kGreaterEqual, a, b, false); }
Array greater_equal(Scalar a, const Array& b) { return binary(BinaryOp::kGreaterEqual, b, a, true); }
Array logical_and(const Array& a, const Array& b) { return binary(BinaryOp::kLogicalAnd, a, b); }
Array logical_and(const Array& a, Scalar b) { return binary(BinaryOp::kLogicalAnd, a, b, false); }
Array logical_and(Scalar a, const Array& b) { return binary(BinaryOp::kLogicalAnd, b, a, true); }
Array logical_or(const Array& a, const Array& b) { return binary(BinaryOp::kLogicalOr, a, b); }
Array logical_or(const Array& a, Scalar b) { return binary(BinaryOp::kLogicalOr, a, b, false); }
Array logical_or(Scalar a, const Array& b) { return binary(BinaryOp::kLogicalOr, b, a, true); }
Array logical_xor(const Array& a, const Array& b) { return binary(BinaryOp::kLogicalXor, a, b); }
Array logical_xor(const Array& a, Scalar b) { return binary(BinaryOp::kLogicalXor, a, b, false); }
Array logical_xor(Scalar a, const Array& b) { return binary(BinaryOp::kLogicalXor, b, a, true); }

Array where(const Array& cond, const Array& a, const Array& b) {
    check_operands("where", a, b);
    check_operands("where", cond, a);
    const Shape shape = broadcast_shapes(cond.shape(), broadcast_shapes(a.shape(), b.shape(), "where"), "where");
    const Dtype dtype = result_type(a.dtype(), b.dtype());
    Array out = Array::empty(shape, dtype, a.device());
    if (out.size() == 0) return out;
    kernels_of(a).where(cond.astype(Dtype::kBool, false).broadcast_to(shape),
                        a.astype(dtype, false).broadcast_to(shape), b.astype(dtype, false).broadcast_to(shape), out);
    return out;
}

namespace {
// A 0-d array holding `s` in the dtype it promotes to alongside `other`.
Array scalar_array(Scalar s, const Array& other) {
    Array a = Array::empty({}, result_type(other.dtype(), s), other.device());
    a.fill(s);
    return a;
}
}  // namespace

Array where(const Array& cond, const Array& a, Scalar b) { return where(cond, a, scalar_array(b, a)); }
Array where(const Array& cond, Scalar a, const Array& b) { return where(cond, scalar_array(a, b), b); }

Array clip(const Array& x, Scalar lo, Scalar hi) {
    RENSA_CHECK(x.defined(), ValueError, "clip: the input array is undefined");
    Array out = Array::empty(x.shape(), x.dtype(), x.device());
    if (out.size() == 0) return out;
    Kernels& k = kernels_of(x);
    k.binary_scalar(BinaryOp::kMaximum, x, lo, false, out);
    k.binary_scalar(BinaryOp::kMinimum, out, hi, false, out);
    return out;
}

void add_inplace(const Array& out, const Array& b) {
    check_operands("add_inplace", out, b);
    check_writeable(out, "add_inplace");
    if (out.size() == 0) return;
    Array rhs = b.astype(out.dtype(), false).broadcast_to(out.shape());
    if (rhs.storage() == out.storage() && !(rhs.strides() == out.strides() && rhs.offset() == out.offset())) {
        rhs = rhs.copy();  // a partially overlapping view would be read after being written
    }
    kernels_of(out).binary(BinaryOp::kAdd, out, rhs, out);
}

void multiply_inplace(const Array& out, Scalar b) {
    RENSA_CHECK(out.defined(), ValueError, "multiply_inplace: the array is undefined");
    check_writeable(out, "multiply_inplace");
    if (out.size() > 0) kernels_of(out).binary_scalar(BinaryOp::kMultiply, out, b, false, out);
}

}  // namespace rensa::ops
