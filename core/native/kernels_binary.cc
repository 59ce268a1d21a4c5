// Binary elementwise kernels: arithmetic keeps the operands' dtype; comparisons and
// logical ops write bool. A scalar operand is a 0-d broadcast, which map_binary's
// stride-0 path handles without a temporary array.

#include <cmath>

#include "core/backend.h"
#include "core/error.h"
#include "core/native/binary_ops.h"
#include "core/native/elementwise_loop.h"
#include "core/native/native_kernels.h"

namespace rensa::native {
namespace {

template <class T>
void arithmetic(BinaryOp op, const LoopPlan<3>& plan) {
    using C = ComputeT<T>;
    namespace b = binary_ops;
    switch (op) {
        case BinaryOp::kAdd:
            return map_binary<T, T>(plan, [](C x, C y) { return b::add(x, y); });
        case BinaryOp::kSubtract:
            return map_binary<T, T>(plan, [](C x, C y) { return b::subtract(x, y); });
        case BinaryOp::kMultiply:
            return map_binary<T, T>(plan, [](C x, C y) { return b::multiply(x, y); });
        case BinaryOp::kDivide:
            return map_binary<T, T>(plan, [](C x, C y) { return b::divide(x, y); });
        case BinaryOp::kFloorDivide:
            return map_binary<T, T>(plan, [](C x, C y) { return b::floor_divide(x, y); });
        case BinaryOp::kMod:
            return map_binary<T, T>(plan, [](C x, C y) { return b::mod(x, y); });
        case BinaryOp::kPower:
            return map_binary<T, T>(plan, [](C x, C y) { return b::power(x, y); });
        case BinaryOp::kMaximum:
            return map_binary<T, T>(plan, [](C x, C y) { return b::maximum(x, y); });
        case BinaryOp::kMinimum:
            return map_binary<T, T>(plan, [](C x, C y) { return b::minimum(x, y); });
        case BinaryOp::kKeepWherePositive:
            return map_binary<T, T>(plan, [](C x, C y) { return y > C{0} ? x : C{0}; });
        case BinaryOp::kArctan2:
            if constexpr (kIsFloating<T>) return map_binary<T, T>(plan, [](C x, C y) { return std::atan2(x, y); });
            RENSA_THROW(DtypeError, "arctan2 kernel: needs a float dtype");
        default:
            RENSA_ASSERT(false);
    }
}

template <class T>
void predicate(BinaryOp op, const LoopPlan<3>& plan) {
    using C = ComputeT<T>;
    switch (op) {
        case BinaryOp::kEqual:
            return map_binary<bool, T>(plan, [](C x, C y) { return x == y; });
        case BinaryOp::kNotEqual:
            return map_binary<bool, T>(plan, [](C x, C y) { return x != y; });
        case BinaryOp::kLess:
            return map_binary<bool, T>(plan, [](C x, C y) { return x < y; });
        case BinaryOp::kLessEqual:
            return map_binary<bool, T>(plan, [](C x, C y) { return x <= y; });
        case BinaryOp::kGreater:
            return map_binary<bool, T>(plan, [](C x, C y) { return x > y; });
        case BinaryOp::kGreaterEqual:
            return map_binary<bool, T>(plan, [](C x, C y) { return x >= y; });
        case BinaryOp::kLogicalAnd:
            return map_binary<bool, T>(plan, [](C x, C y) { return x != C{0} && y != C{0}; });
        case BinaryOp::kLogicalOr:
            return map_binary<bool, T>(plan, [](C x, C y) { return x != C{0} || y != C{0}; });
        case BinaryOp::kLogicalXor:
            return map_binary<bool, T>(plan, [](C x, C y) { return (x != C{0}) != (y != C{0}); });
        default:
            RENSA_ASSERT(false);
    }
}

void run_binary(BinaryOp op, Dtype dtype, const LoopPlan<3>& plan) {
    visit_dtype(dtype, [&]<typename T>() {
        if (is_predicate(op))
            predicate<T>(op, plan);
        else
            arithmetic<T>(op, plan);
    });
}

}  // namespace

void NativeKernels::binary(BinaryOp op, const Array& a, const Array& b, const Array& out) {
    run_binary(op, a.dtype(), plan_loop<3>({&out, &a, &b}));
}

void NativeKernels::binary_scalar(BinaryOp op, const Array& a, Scalar s, bool reversed, const Array& out) {
    // The scalar lives in a 0-d host array of a's dtype, broadcast with stride 0.
    Array scalar = Array::empty({}, a.dtype(), Device::native());
    fill(scalar, s);
    const Array b = scalar.broadcast_to(a.shape());
    run_binary(op, a.dtype(), reversed ? plan_loop<3>({&out, &b, &a}) : plan_loop<3>({&out, &a, &b}));
}

}  // namespace rensa::native
