// Batched Gauss-Jordan elimination with partial pivoting and the Cholesky-Banachiewicz
// factorisation, written with core/ops so that every backend runs them.

#include <optional>

#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/manipulation.h"
#include "core/ops/operators.h"
#include "core/ops/reduction.h"
#include "functions/math/linalg_detail.h"

namespace rensa::functions::math_detail {
namespace {

// Note [Factorisations from array ops]: det, inv and cholesky factorise with a loop of n
// steps over the columns, each step a handful of batched core/ops calls on the whole
// (B, n, w) stack (pivot search by argmax, the row swap as a rank-1 update, the
// elimination as another). That is O(n) launches of O(B n w) work, the same O(B n^3) as
// LAPACK's getrf, runs on every backend without a kernel of its own, and reads nothing
// back to the host except the one flag that reports a singular (inv) or not positive
// definite (cholesky) input: numpy raises there, and so does rensa on every device
// (Chainer's GPU path checks only in debug mode). Pivots are exact zeros only when a whole
// column below the diagonal is zero, as in getrf; such a step divides by 1 instead, so the
// determinant comes out as exactly 0 and no NaN appears.
struct Elimination {
    Array m;           // (B, n, w), the matrix being reduced (w >= n)
    Array det;         // (B,), the product of the pivots with the swaps' signs
    Array zero_pivot;  // (B,) bool, a zero pivot was met
};

// Step k: pivots on column k, then clears column k in the rows below (LU) or in every other
// row with row k scaled to a unit pivot (Gauss-Jordan).
void eliminate(Elimination& e, int64_t k, bool jordan) {
    const int64_t n = e.m.shape()[1];
    const Dtype dtype = e.m.dtype();
    const Array rows = ops::arange(n, Dtype::kInt64, e.m.device());
    const Array p = ops::argmax(ops::abs(e.m.index({Slice{}, Slice{k, std::nullopt}, k})), 1).astype(Dtype::kInt64) + k;
    const Array onehot_p = (rows.expand_dims(0) == p.expand_dims(1)).astype(dtype);  // (B, n)
    const Array row_k = e.m.index({Slice{}, k});                                     // (B, w)
    const Array row_p = ops::sum(onehot_p.expand_dims(2) * e.m, Axes{1});
    const Array swap_rows = (rows == k).astype(dtype).expand_dims(0) - onehot_p;  // +1 at k, -1 at p
    e.m = e.m + swap_rows.expand_dims(2) * (row_p - row_k).expand_dims(1);
    const Array pivot = e.m.index({Slice{}, k, k}).copy();
    const Array is_zero = pivot == 0;
    e.zero_pivot = ops::logical_or(e.zero_pivot, is_zero);
    e.det = e.det * pivot * (1 - 2 * (p != k).astype(dtype));  // a swap flips the sign
    const Array unit_row = e.m.index({Slice{}, k}) / ops::where(is_zero, 1, pivot).expand_dims(1);
    const Array others = (jordan ? rows != k : rows > k).astype(dtype);
    const Array factors = e.m.index({Slice{}, Slice{}, k}) * others.expand_dims(0);  // (B, n)
    e.m = e.m - factors.expand_dims(2) * unit_row.expand_dims(1);
    if (jordan) e.m.index({Slice{}, k}).assign(unit_row);
}

Elimination run(const Array& m, bool jordan) {
    const int64_t batch = m.shape()[0], n = m.shape()[1];
    Elimination e{m, ops::ones({batch}, m.dtype(), m.device()), ops::zeros({batch}, Dtype::kBool, m.device())};
    for (int64_t k = 0; k < n; ++k) eliminate(e, k, jordan);
    return e;
}

}  // namespace

Dtype linalg_compute_dtype(Dtype dtype) { return dtype == Dtype::kFloat64 ? Dtype::kFloat64 : Dtype::kFloat32; }

Array batch_det_array(const Array& a) {
    const Array m = a.astype(linalg_compute_dtype(a.dtype()));
    return run(m, /*jordan=*/false).det.astype(a.dtype(), false);
}

Array batch_inv_array(const Array& a, std::string_view op) {
    const int64_t batch = a.shape()[0], n = a.shape()[1];
    const Dtype dtype = linalg_compute_dtype(a.dtype());
    const Array identity = ops::eye(n, std::nullopt, 0, dtype, a.device()).broadcast_to({batch, n, n});
    const Elimination e = run(ops::concatenate({a.astype(dtype), identity}, 2), /*jordan=*/true);
    RENSA_CHECK(!ops::any(e.zero_pivot).item<bool>(), ValueError, op, ": Input has singular matrices.");
    return e.m.index({Slice{}, Slice{}, Slice{n, std::nullopt}}).astype(a.dtype());
}

Array cholesky_array(const Array& a) {
    const int64_t n = a.shape()[0];
    const Dtype dtype = linalg_compute_dtype(a.dtype());
    const Array x = a.astype(dtype);
    const Array rows = ops::arange(n, Dtype::kInt64, a.device());
    const Array l = ops::zeros({n, n}, dtype, a.device());
    Array bad = ops::zeros({}, Dtype::kBool, a.device());
    for (int64_t j = 0; j < n; ++j) {
        // v[i] = a[i, j] - sum_k L[i, k] L[j, k]; only the columns < j of L are filled yet.
        const Array v = x.index({Slice{}, j}) - ops::sum(l * l.index({j}).expand_dims(0), Axes{1});
        const Array d = v.index({j});
        const Array positive = d > 0;  // false for NaN too
        bad = ops::logical_or(bad, ops::logical_not(positive));
        const Array column = v / ops::sqrt(ops::where(positive, d, 1));
        l.index({Slice{}, j}).assign(ops::where(rows >= j, column, 0));
    }
    RENSA_CHECK(!bad.item<bool>(), ValueError, "cholesky: Matrix is not positive definite");
    return l.astype(a.dtype());
}

}  // namespace rensa::functions::math_detail
