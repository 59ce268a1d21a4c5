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

enum class UnaryKind { kFloat, kNumeric, kNumericNoBool, kPredicate };

Array unary(UnaryOp op, std::string_view name, UnaryKind kind, const Array& x) {
    RENSA_CHECK(x.defined(), ValueError, name, ": the input array is undefined");
    Dtype compute = x.dtype();
    switch (kind) {
        case UnaryKind::kFloat:
            compute = float_dtype_for(x.dtype());
            break;
        case UnaryKind::kNumericNoBool:
            RENSA_CHECK(x.dtype() != Dtype::kBool, DtypeError, name,
                        ": not supported for bool input (use logical_not for negation)");
            break;
        case UnaryKind::kNumeric:
            if (x.dtype() == Dtype::kBool) compute = Dtype::kInt8;
            break;
        case UnaryKind::kPredicate:
            break;
    }
    const Array in = x.astype(compute, false);
    Array out = Array::empty(x.shape(), kind == UnaryKind::kPredicate ? Dtype::kBool : compute, x.device());
    if (out.size() > 0) kernels_of(x).unary(op, in, out);
    return out;
}

// The dtype op computes in for operands promoting to `common`.
Dtype compute_dtype(BinaryOp op, std::string_view name, Dtype common) {
    switch (op) {
        case BinaryOp::kDivide:
            return is_float(common) ? common : kDefaultFloat;
        case BinaryOp::kArctan2:
            return float_dtype_for(common);
        case BinaryOp::kSubtract:
            RENSA_CHECK(common != Dtype::kBool, DtypeError, name,
                        ": boolean subtract is not supported, use logical_xor instead");
            return common;
        case BinaryOp::kFloorDivide:
        case BinaryOp::kMod:
        case BinaryOp::kPower:
            return common == Dtype::kBool ? Dtype::kInt8 : common;
        case BinaryOp::kAdd:
        case BinaryOp::kMultiply:
        case BinaryOp::kMaximum:
        case BinaryOp::kMinimum:
        case BinaryOp::kKeepWherePositive:
        case BinaryOp::kEqual:
        case BinaryOp::kNotEqual:
        case BinaryOp::kLess:
        case BinaryOp::kLessEqual:
        case BinaryOp::kGreater:
        case BinaryOp::kGreaterEqual:
        case BinaryOp::kLogicalAnd:
        case BinaryOp::kLogicalOr:
        case BinaryOp::kLogicalXor:
            return common;
    }
    return common;
}

void check_operands(std::string_view name, const Array& a, const Array& b) {
    RENSA_CHECK(a.defined() && b.defined(), ValueError, name, ": an input array is undefined");
    RENSA_CHECK(a.device() == b.device(), DeviceError, name, ": operands are on different devices (", a.device(),
                " and ", b.device(), "); move one with to_device");
}

Array binary(BinaryOp op, std::string_view name, const Array& a, const Array& b) {
    check_operands(name, a, b);
    const Shape shape = broadcast_shapes(a.shape(), b.shape(), name);
    const Dtype compute = compute_dtype(op, name, result_type(a.dtype(), b.dtype()));
    Array out = Array::empty(shape, is_predicate(op) ? Dtype::kBool : compute, a.device());
    if (out.size() == 0) return out;
    kernels_of(a).binary(op, a.astype(compute, false).broadcast_to(shape), b.astype(compute, false).broadcast_to(shape),
                         out);
    return out;
}

Array binary(BinaryOp op, std::string_view name, const Array& a, Scalar s, bool reversed) {
    RENSA_CHECK(a.defined(), ValueError, name, ": the input array is undefined");
    const Dtype compute = compute_dtype(op, name, result_type(a.dtype(), s));
    Array out = Array::empty(a.shape(), is_predicate(op) ? Dtype::kBool : compute, a.device());
    if (out.size() > 0) kernels_of(a).binary_scalar(op, a.astype(compute, false), s, reversed, out);
    return out;
}

}  // namespace

#define RENSA_DEFINE_UNARY(fn, op, kind) \
    Array fn(const Array& x) { return unary(UnaryOp::op, #fn, UnaryKind::kind, x); }
RENSA_DEFINE_UNARY(negative, kNegative, kNumericNoBool)
RENSA_DEFINE_UNARY(abs, kAbs, kNumeric)
RENSA_DEFINE_UNARY(sign, kSign, kNumericNoBool)
RENSA_DEFINE_UNARY(reciprocal, kReciprocal, kFloat)
RENSA_DEFINE_UNARY(floor, kFloor, kNumeric)
RENSA_DEFINE_UNARY(ceil, kCeil, kNumeric)
RENSA_DEFINE_UNARY(exp, kExp, kFloat)
RENSA_DEFINE_UNARY(expm1, kExpm1, kFloat)
RENSA_DEFINE_UNARY(log, kLog, kFloat)
RENSA_DEFINE_UNARY(log1p, kLog1p, kFloat)
RENSA_DEFINE_UNARY(log2, kLog2, kFloat)
RENSA_DEFINE_UNARY(log10, kLog10, kFloat)
RENSA_DEFINE_UNARY(sqrt, kSqrt, kFloat)
RENSA_DEFINE_UNARY(rsqrt, kRsqrt, kFloat)
RENSA_DEFINE_UNARY(square, kSquare, kNumeric)
RENSA_DEFINE_UNARY(sin, kSin, kFloat)
RENSA_DEFINE_UNARY(cos, kCos, kFloat)
RENSA_DEFINE_UNARY(tan, kTan, kFloat)
RENSA_DEFINE_UNARY(arcsin, kArcsin, kFloat)
RENSA_DEFINE_UNARY(arccos, kArccos, kFloat)
RENSA_DEFINE_UNARY(arctan, kArctan, kFloat)
RENSA_DEFINE_UNARY(sinh, kSinh, kFloat)
RENSA_DEFINE_UNARY(cosh, kCosh, kFloat)
RENSA_DEFINE_UNARY(tanh, kTanh, kFloat)
RENSA_DEFINE_UNARY(sigmoid, kSigmoid, kFloat)
RENSA_DEFINE_UNARY(erf, kErf, kFloat)
RENSA_DEFINE_UNARY(logical_not, kLogicalNot, kPredicate)
RENSA_DEFINE_UNARY(isnan, kIsnan, kPredicate)
RENSA_DEFINE_UNARY(isinf, kIsinf, kPredicate)
RENSA_DEFINE_UNARY(isfinite, kIsfinite, kPredicate)
#undef RENSA_DEFINE_UNARY

#define RENSA_DEFINE_BINARY(fn, op)                                                       \
    Array fn(const Array& a, const Array& b) { return binary(BinaryOp::op, #fn, a, b); }  \
    Array fn(const Array& a, Scalar b) { return binary(BinaryOp::op, #fn, a, b, false); } \
    Array fn(Scalar a, const Array& b) { return binary(BinaryOp::op, #fn, b, a, true); }
RENSA_DEFINE_BINARY(add, kAdd)
RENSA_DEFINE_BINARY(subtract, kSubtract)
RENSA_DEFINE_BINARY(multiply, kMultiply)
RENSA_DEFINE_BINARY(divide, kDivide)
RENSA_DEFINE_BINARY(floor_divide, kFloorDivide)
RENSA_DEFINE_BINARY(mod, kMod)
RENSA_DEFINE_BINARY(power, kPower)
RENSA_DEFINE_BINARY(maximum, kMaximum)
RENSA_DEFINE_BINARY(minimum, kMinimum)
RENSA_DEFINE_BINARY(arctan2, kArctan2)
RENSA_DEFINE_BINARY(keep_where_positive, kKeepWherePositive)
RENSA_DEFINE_BINARY(equal, kEqual)
RENSA_DEFINE_BINARY(not_equal, kNotEqual)
RENSA_DEFINE_BINARY(less, kLess)
RENSA_DEFINE_BINARY(less_equal, kLessEqual)
RENSA_DEFINE_BINARY(greater, kGreater)
RENSA_DEFINE_BINARY(greater_equal, kGreaterEqual)
RENSA_DEFINE_BINARY(logical_and, kLogicalAnd)
RENSA_DEFINE_BINARY(logical_or, kLogicalOr)
RENSA_DEFINE_BINARY(logical_xor, kLogicalXor)
#undef RENSA_DEFINE_BINARY

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
