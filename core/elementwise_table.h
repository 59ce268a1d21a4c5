#pragma once
// The elementwise op tables: one row per UnaryOp and BinaryOp, holding the op's name, its
// dtype rule and its scalar formula. The native loops (core/native/kernels_unary.cc,
// kernels_binary.cc), the CUDA kernels (cuda/kernels_unary.cu, kernels_binary.cu) and the
// dtype choice of core/ops/elementwise.cc all read these rows, so the CPU tests exercise
// the formulas the GPU runs. See Note [Elementwise tables].
//
// Note [Elementwise tables]: a row is an empty struct in core/elementwise_unary.h or
// core/elementwise_binary.h: `op` (its enum value), `name` (numpy's), `dtypes` (the rule by
// which ops pick the dtype it computes in, core/elementwise_base.h) and a static `apply` on
// the compute type C (float for float16/bfloat16, the dtype's own type otherwise), marked
// RENSA_HOST_DEVICE. Rows sit in UnaryTable / BinaryTable in the enum's order (checked at
// compile time), and visit_row(op, f) calls f(Row{}) for op's row: a binary search over the
// row index, so backends choose a loop per op outside their element loops (native) or
// branch on a uniform op inside one kernel per dtype (CUDA, Note [Shared op bodies]).
//
// The formulas carry numpy's integer semantics without undefined behaviour: signed
// integers wrap, division and modulo by zero give 0, floor division and modulo follow
// Python's signs, integer powers are exact by squaring. Float-only rows (Dtypes::kFloat)
// are applied to float compute types only: ops promote integer inputs first, and
// kComputes<Row, C> tells a backend which (row, type) pairs exist.
//
// Adding an elementwise op: its enumerator, its row and its table entry in
// core/elementwise_unary.h (or _binary.h); its gradient and F:: name in
// functions/math/elementwise.cc (declared in functions/math.h); its test row in
// tests/testing/elementwise_rows.h; a binding line. The CUDA kernels need nothing.

#include "core/elementwise_binary.h"
#include "core/elementwise_unary.h"

namespace rensa {

// The row's name and dtype rule at run time.
template <class Op>
const char* op_name(Op op) {
    return visit_row(op, [](auto row) { return decltype(row)::name; });
}
template <class Op>
Dtypes op_dtypes(Op op) {
    return visit_row(op, [](auto row) { return decltype(row)::dtypes; });
}
// True for comparisons, logical ops and isnan-like tests, whose output dtype is bool.
template <class Op>
bool is_predicate(Op op) {
    return op_dtypes(op) == Dtypes::kPredicate;
}

}  // namespace rensa
