// matmul, dot and batch_matmul: validate, promote, allocate, and hand 3-D (batch, rows,
// cols) views to the device's gemm. Batch dimensions are collapsed into one without
// copying whenever their strides allow; otherwise the outermost one is looped over.

#include "core/ops/linalg.h"

#include <optional>
#include <string_view>

#include "core/backend.h"
#include "core/error.h"

namespace rensa::ops {
namespace {

void check_same_device(const Array& a, const Array& b, std::string_view op) {
    RENSA_CHECK(a.device() == b.device(), DeviceError, op, ": operands are on different devices, ", a.device(), " and ",
                b.device(), "; move one with to_device first");
}

// numpy's message: "shapes (2, 3) and (4, 5) not aligned: 3 (dim 1) != 4 (dim 0)".
void check_aligned(const Array& a, int a_axis, const Array& b, int b_axis, std::string_view op) {
    RENSA_CHECK(a.shape()[a_axis] == b.shape()[b_axis], DimensionError, op, ": shapes ", a.shape(), " and ", b.shape(),
                " not aligned: ", a.shape()[a_axis], " (dim ", a_axis, ") != ", b.shape()[b_axis], " (dim ", b_axis,
                ")");
}

Shape leading(const Shape& shape, int count) { return Shape(shape.begin(), shape.begin() + count); }

Shape concat(Shape shape, std::initializer_list<int64_t> tail) {
    for (int64_t d : tail) shape.push_back(d);
    return shape;
}

// Views x (batch dims..., rows, cols) as (batch, rows, cols) when one stride steps over
// every batch index (length-1 dims do not matter); nothing when that needs a copy.
std::optional<Array> collapse_batch(const Array& x) {
    const int nb = x.ndim() - 2;
    int64_t batch = 1, stride = 0;
    std::optional<int64_t> expected;  // stride the next outer dim must have
    for (int d = nb - 1; d >= 0; --d) {
        batch *= x.shape()[d];
        if (x.shape()[d] == 1) continue;
        if (expected && x.strides()[d] != *expected) return std::nullopt;
        if (!expected) stride = x.strides()[d];
        expected = x.strides()[d] * x.shape()[d];
    }
    const Shape shape{batch, x.shape()[nb], x.shape()[nb + 1]};
    const Strides strides{stride, x.strides()[nb], x.strides()[nb + 1]};
    return Array(x.storage(), shape, strides, x.offset(), x.dtype());
}

// out[...] = a[...] @ b[...] where a, b and out have the same batch dims (already broadcast).
void gemm_batched(Kernels& kernels, const Array& a, const Array& b, const Array& out) {
    if (out.size() == 0) return;
    const auto ca = collapse_batch(a), cb = collapse_batch(b), cout = collapse_batch(out);
    if (ca && cb && cout) {
        kernels.gemm({.a = *ca, .b = *cb, .out = *cout});
        return;
    }
    for (int64_t i = 0; i < out.shape()[0]; ++i) gemm_batched(kernels, a[i], b[i], out[i]);
}

// numpy.matmul on operands of at least one dimension; `op` names the routine in errors.
Array matmul_impl(const Array& a, const Array& b, std::string_view op) {
    RENSA_CHECK(a.ndim() > 0 && b.ndim() > 0, DimensionError, op, ": operands must have at least 1 dimension, ",
                "got shapes ", a.shape(), " and ", b.shape(), " (0-d arrays need multiply, not ", op, ")");
    check_same_device(a, b, op);
    check_aligned(a, a.ndim() - 1, b, b.ndim() == 1 ? 0 : b.ndim() - 2, op);
    const Dtype dtype = result_type(a.dtype(), b.dtype());
    const Array a2 = a.ndim() == 1 ? a.expand_dims(0) : a;  // (k,) -> (1, k)
    const Array b2 = b.ndim() == 1 ? b.expand_dims(1) : b;  // (k,) -> (k, 1)
    const int64_t m = a2.shape()[a2.ndim() - 2], k = a2.shape()[a2.ndim() - 1], n = b2.shape()[b2.ndim() - 1];
    const Shape batch = broadcast_shapes(leading(a2.shape(), a2.ndim() - 2), leading(b2.shape(), b2.ndim() - 2), op);
    const Array out = Array::empty(concat(batch, {m, n}), dtype, a.device());
    gemm_batched(global_context().kernels(a.device()), a2.astype(dtype, false).broadcast_to(concat(batch, {m, k})),
                 b2.astype(dtype, false).broadcast_to(concat(batch, {k, n})), out);
    Shape result = batch;  // the axes added to 1-D operands go again
    if (a.ndim() > 1) result.push_back(m);
    if (b.ndim() > 1) result.push_back(n);
    return out.reshape(result);
}

// dot with a 0-d operand multiplies every element: (size, 1) @ (1, 1) or (1, 1) @ (1, size).
Array dot_scalar(const Array& a, const Array& b) {
    if (a.ndim() == 0) return matmul_impl(a.reshape({1, 1}), b.reshape({1, b.size()}), "dot").reshape(b.shape());
    return matmul_impl(a.reshape({a.size(), 1}), b.reshape({1, 1}), "dot").reshape(a.shape());
}

}  // namespace

Array matmul(const Array& a, const Array& b) { return matmul_impl(a, b, "matmul"); }

Array dot(const Array& a, const Array& b) {
    check_same_device(a, b, "dot");
    if (a.ndim() == 0 || b.ndim() == 0) return dot_scalar(a, b);
    // Sum over a's last axis and b's second-to-last (its only one when 1-D): a becomes
    // (rows, k), b moves that axis first and becomes (k, cols).
    const int b_axis = b.ndim() == 1 ? 0 : b.ndim() - 2;
    check_aligned(a, a.ndim() - 1, b, b_axis, "dot");
    const int64_t k = b.shape()[b_axis];
    Axes perm{b_axis};
    Shape b_rest;  // b's shape without b_axis
    for (int d = 0; d < b.ndim(); ++d) {
        if (d == b_axis) continue;
        perm.push_back(d);
        b_rest.push_back(b.shape()[d]);
    }
    const Shape a_rest = leading(a.shape(), a.ndim() - 1);
    const Array a2 = a.reshape({shape_size(a_rest), k});
    const Array b2 = b.transpose(perm).reshape({k, shape_size(b_rest)});
    Shape result = a_rest;
    for (int64_t d : b_rest) result.push_back(d);
    return matmul_impl(a2, b2, "dot").reshape(result);
}

Array batch_matmul(const Array& a, const Array& b, bool trans_a, bool trans_b) {
    RENSA_CHECK(a.ndim() == 3 && b.ndim() == 3, DimensionError, "batch_matmul: operands must be 3-D (batch, rows, ",
                "cols), got shapes ", a.shape(), " and ", b.shape());
    check_same_device(a, b, "batch_matmul");
    const int a_k = trans_a ? 1 : 2, b_k = trans_b ? 2 : 1;
    check_aligned(a, a_k, b, b_k, "batch_matmul");
    const int64_t batch_a = a.shape()[0], batch_b = b.shape()[0];
    RENSA_CHECK(batch_a == batch_b || batch_a == 1 || batch_b == 1, DimensionError, "batch_matmul: batch sizes ",
                batch_a, " and ", batch_b, " of shapes ", a.shape(), " and ", b.shape(), " differ");
    const int64_t batch = batch_a == 1 ? batch_b : batch_a;  // a batch of 1 broadcasts, to 0 too
    const int64_t m = a.shape()[3 - a_k], n = b.shape()[3 - b_k];
    const Dtype dtype = result_type(a.dtype(), b.dtype());
    Array out = Array::empty({batch, m, n}, dtype, a.device());
    if (out.size() == 0) return out;
    const auto broadcast = [&](const Array& x) {
        return x.astype(dtype, false).broadcast_to({batch, x.shape()[1], x.shape()[2]});
    };
    Kernels& kernels = global_context().kernels(a.device());
    kernels.gemm({.a = broadcast(a), .b = broadcast(b), .out = out, .trans_a = trans_a, .trans_b = trans_b});
    return out;
}

}  // namespace rensa::ops
