#pragma once
// Chainer's math functions (F::sum, F::matmul, F::exp, ...). Inputs are floating-point
// Variables (DtypeError otherwise); two-operand functions need one dtype. An `axis`
// is Chainer's None (std::nullopt), an int or a tuple (Axes{0, 2}); negative axes count
// from the end; bad axes throw DimensionError. All are double-differentiable except
// argmax/argmin.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "autograd/basic_math.h"
#include "autograd/shape_ops.h"
#include "autograd/variable.h"

namespace rensa::functions {

// --- Arithmetic with numpy broadcasting (autograd/basic_math.h): also the operators
// + - * / and unary - on Variables and Scalars.
using rensa::add;
using rensa::div;
using rensa::exp;
using rensa::log;
using rensa::mul;
using rensa::neg;
using rensa::pow;
using rensa::sub;

// --- Reductions. The result keeps x's dtype; `keepdims` keeps reduced axes as length 1.
// sum(x, axis=None, keepdims=False).
using rensa::sum;
[[nodiscard]] Variable sum(const Variable& x, int axis, bool keepdims = false);
// Arithmetic mean over the axes (NaN over an empty reduction, as numpy).
[[nodiscard]] Variable mean(const Variable& x, const std::optional<Axes>& axis = std::nullopt, bool keepdims = false);
[[nodiscard]] Variable mean(const Variable& x, int axis, bool keepdims = false);
// Maximum / minimum; the gradient flows to every element equal to the result (Chainer).
// An empty reduction throws ValueError.
[[nodiscard]] Variable max(const Variable& x, const std::optional<Axes>& axis = std::nullopt, bool keepdims = false);
[[nodiscard]] Variable max(const Variable& x, int axis, bool keepdims = false);
[[nodiscard]] Variable min(const Variable& x, const std::optional<Axes>& axis = std::nullopt, bool keepdims = false);
[[nodiscard]] Variable min(const Variable& x, int axis, bool keepdims = false);
// Index (int32) of the first maximum / minimum along axis (over the flattened x without
// one). Not differentiable: the result does not require grad.
[[nodiscard]] Variable argmax(const Variable& x, std::optional<int> axis = std::nullopt);
[[nodiscard]] Variable argmin(const Variable& x, std::optional<int> axis = std::nullopt);
// Product over the axes. Exact gradients with zeros too; double backprop only without zeros.
[[nodiscard]] Variable prod(const Variable& x, const std::optional<Axes>& axis = std::nullopt, bool keepdims = false);
[[nodiscard]] Variable prod(const Variable& x, int axis, bool keepdims = false);
// log(sum(exp(x))) over the axes, computed stably (no keepdims, as Chainer).
[[nodiscard]] Variable logsumexp(const Variable& x, const std::optional<Axes>& axis = std::nullopt);
[[nodiscard]] Variable logsumexp(const Variable& x, int axis);
// Inclusive prefix sum along axis; without one, of the flattened x (result 1-D).
[[nodiscard]] Variable cumsum(const Variable& x, std::optional<int> axis = std::nullopt);
// Inclusive prefix product, likewise. Gradient exact also where x has zeros (Chainer's).
[[nodiscard]] Variable cumprod(const Variable& x, std::optional<int> axis = std::nullopt);

// --- Elementwise (same shape and dtype as x).
[[nodiscard]] Variable expm1(const Variable& x);  // exp(x) - 1, accurate near 0
[[nodiscard]] Variable log1p(const Variable& x);
[[nodiscard]] Variable log2(const Variable& x);
[[nodiscard]] Variable log10(const Variable& x);
[[nodiscard]] Variable sqrt(const Variable& x);
[[nodiscard]] Variable rsqrt(const Variable& x);  // 1 / sqrt(x)
[[nodiscard]] Variable square(const Variable& x);
[[nodiscard]] Variable absolute(const Variable& x);  // gradient sign(x), 0 at 0
[[nodiscard]] Variable sin(const Variable& x);
[[nodiscard]] Variable cos(const Variable& x);
[[nodiscard]] Variable tan(const Variable& x);
[[nodiscard]] Variable arcsin(const Variable& x);
[[nodiscard]] Variable arccos(const Variable& x);
[[nodiscard]] Variable arctan(const Variable& x);
[[nodiscard]] Variable sinh(const Variable& x);
[[nodiscard]] Variable cosh(const Variable& x);
[[nodiscard]] Variable arctanh(const Variable& x);  // NaN outside [-1, 1], +-inf at the ends
[[nodiscard]] Variable erf(const Variable& x);
[[nodiscard]] Variable erfc(const Variable& x);  // 1 - erf(x), accurate for large x
[[nodiscard]] Variable ndtr(const Variable& x);  // the standard normal CDF
// exp(x^2) * erfc(x), the scaled complementary error function.
[[nodiscard]] Variable erfcx(const Variable& x);
// The special functions of scipy.special that Chainer wraps (Note [Special functions] in
// core/special_math.h): log |Gamma(x)|, its derivative psi(x), log ndtr(x), ndtr's inverse on
// [0, 1] and erf's on [-1, 1] (NaN outside, +-inf at the ends).
[[nodiscard]] Variable lgamma(const Variable& x);
[[nodiscard]] Variable digamma(const Variable& x);
[[nodiscard]] Variable log_ndtr(const Variable& x);
[[nodiscard]] Variable ndtri(const Variable& x);
[[nodiscard]] Variable erfinv(const Variable& x);
// erfc's inverse on [0, 2] (NaN outside, +inf at 0, -inf at 2).
[[nodiscard]] Variable erfcinv(const Variable& x);
// The Hurwitz zeta function sum_k (q + k)^-x (scipy.special.zeta): x (any numeric dtype but
// bool) is a constant, as in Chainer, q a float Variable; they broadcast and the result has
// q's dtype. NaN for x < 1. DtypeError for a bool x or a non-float q.
[[nodiscard]] Variable zeta(const Variable& x, const Variable& q);
// The n-th derivative of digamma at x: n an integer array (not differentiated), x a float
// one, broadcast; the result has x's dtype. DtypeError for a float n or an integer x.
[[nodiscard]] Variable polygamma(const Variable& n, const Variable& x);
// arctan(x1 / x2) in the quadrant of (x2, x1), and the remainder with x's sign (numpy.fmod);
// both broadcast, one float dtype.
[[nodiscard]] Variable arctan2(const Variable& x1, const Variable& x2);
[[nodiscard]] Variable fmod(const Variable& x, const Variable& divisor);
// Chainer's rounding functions: not differentiable; a Variable that does not require grad, in
// x's dtype (fix rounds toward zero).
[[nodiscard]] Variable floor(const Variable& x);
[[nodiscard]] Variable ceil(const Variable& x);
[[nodiscard]] Variable fix(const Variable& x);
[[nodiscard]] Variable sign(const Variable& x);
// min(max(x, x_min), x_max); at least one bound must be given and x_min < x_max
// (ValueError). The gradient passes where x_min <= x <= x_max.
[[nodiscard]] Variable clip(const Variable& x, std::optional<double> x_min, std::optional<double> x_max);
// Elementwise maximum / minimum with broadcasting; ties send the gradient to x1.
[[nodiscard]] Variable maximum(const Variable& x1, const Variable& x2);
[[nodiscard]] Variable minimum(const Variable& x1, const Variable& x2);
// (x1 - x2)^2; x1 and x2 must have one shape (DimensionError).
[[nodiscard]] Variable squared_difference(const Variable& x1, const Variable& x2);
// The squared L2 norm of each sample: sum(x.reshape(len(x), -1) ** 2, axis=1).
[[nodiscard]] Variable batch_l2_norm_squared(const Variable& x);
// p * x + (1 - p) * y; all three of one shape and dtype.
[[nodiscard]] Variable linear_interpolate(const Variable& p, const Variable& x, const Variable& y);
// New Variables over the same arrays (aliased); gradients pass through unchanged.
[[nodiscard]] Variable identity(const Variable& x);
[[nodiscard]] std::vector<Variable> identity(const std::vector<Variable>& xs);
// x + y / x * y with y broadcast along x's axes [axis, axis + y.ndim): y.shape must equal
// x.shape[axis:axis + y.ndim] (DimensionError).
[[nodiscard]] Variable bias(const Variable& x, const Variable& y, int axis = 1);
[[nodiscard]] Variable scale(const Variable& x, const Variable& y, int axis = 1);

// --- Products (through the device's GEMM).
// numpy.matmul of op(a) and op(b), op transposing the last two axes when trans* is set
// (ignored for 1-D operands); batch axes broadcast. Mismatched shapes: DimensionError.
[[nodiscard]] Variable matmul(const Variable& a, const Variable& b, bool transa = false, bool transb = false);
// Chainer's batch_matmul: a and b are viewed as (batch, rows, prod(rest)) and multiplied
// per batch; result (batch, m, n).
[[nodiscard]] Variable batch_matmul(const Variable& a, const Variable& b, bool transa = false, bool transb = false);
// numpy.tensordot: sums over a's last `axes` axes and b's first `axes` axes ...
[[nodiscard]] Variable tensordot(const Variable& a, const Variable& b, int axes = 2);
// ... or over the listed axis pairs (a_axes[i] with b_axes[i]).
[[nodiscard]] Variable tensordot(const Variable& a, const Variable& b, const Axes& a_axes, const Axes& b_axes);
// numpy.einsum with one or two operands: "ij,jk->ik", "bij,bjk->bik", "ij->ji", "ii->",
// "ij,ij->i", "ij,jk,kl->il", implicit output ("ij,jk": alphabetical non-repeated labels)
// and "..." for broadcasting axes. Bad subscripts throw ValueError, sizes DimensionError.
[[nodiscard]] Variable einsum(const std::string& subscripts, const std::vector<Variable>& operands);

// --- Chainer's average (issue 21).
// Weighted average of x over `axis` (all axes when unset): without weights, mean(x, axis,
// keepdims). With weights (x's dtype): the same shape as x when axis is unset, else 1-D of
// length x.shape[axis] with exactly one axis (ValueError for more); the result is
// sum(x * weights, axis, keepdims) / sum(weights). DimensionError for a bad axis or weights
// shape. Double-differentiable in x and weights.
[[nodiscard]] Variable average(const Variable& x, const std::optional<Axes>& axis = std::nullopt,
                               const Variable& weights = {}, bool keepdims = false);
[[nodiscard]] Variable average(const Variable& x, int axis, const Variable& weights = {}, bool keepdims = false);

// --- Linear algebra (issue 23). Square float matrices (DtypeError / DimensionError
// otherwise); float16 is computed in float32. See Note [Factorisations from array ops].
// The determinant of an (n, n) matrix (0-d) / of each matrix of (B, n, n) ((B,)); exactly 0
// for a singular one. Gradient gy * det * inv(a)^T (ValueError when a is singular there).
[[nodiscard]] Variable det(const Variable& a);
[[nodiscard]] Variable batch_det(const Variable& a);
// The inverse of an (n, n) matrix / of each matrix of (B, n, n); ValueError "inv: Input has
// singular matrices." when one is singular. Gradient -inv^T gy inv^T.
[[nodiscard]] Variable inv(const Variable& a);
[[nodiscard]] Variable batch_inv(const Variable& a);
// The lower-triangular L with a = L L^T of a symmetric positive definite (n, n) a, read from
// its lower triangle (numpy); ValueError when a is not positive definite.
[[nodiscard]] Variable cholesky(const Variable& a);

// Chainer's chainer.utils.CooMatrix: a sparse (m, n) matrix, or a batch of them, by its
// nonzeros data[i] at (row[i], col[i]). data is (nnz,) or (B, ldnz); row and col integer
// arrays of data's shape, entries with row or col < 0 are padding (to_coo's). The
// constructor checks shapes and index ranges (ValueError) and derives Chainer's `order`
// ('C', 'F' or 'other') when not given; it reads row and col back to the host for that.
class CooMatrix {
public:
    CooMatrix(Variable data, Array row, Array col, std::pair<int64_t, int64_t> shape,
              std::optional<std::string> order = std::nullopt);
    const Variable& data() const { return data_; }
    const Array& row() const { return row_; }
    const Array& col() const { return col_; }
    std::pair<int64_t, int64_t> shape() const { return shape_; }
    const std::string& order() const { return order_; }
    // The dense (m, n) / (B, m, n) array (repeated positions add up).
    [[nodiscard]] Array to_dense() const;

private:
    Variable data_;
    Array row_, col_;
    std::pair<int64_t, int64_t> shape_;
    std::string order_;
};
// Chainer's to_coo: the nonzeros of a 2-D x (or of each matrix of a 3-D x) in row-major
// order, padded to ldnz entries (the largest count when smaller or unset) with row = col = -1
// and data 0. data requires grad when requires_grad. ValueError for other ranks.
[[nodiscard]] CooMatrix to_coo(const Array& x, std::optional<int64_t> ldnz = std::nullopt, bool requires_grad = false);
// Chainer's get_order(row, col): 'C' when the valid (row, col) pairs are sorted row-major,
// 'F' when column-major, else 'other'. ValueError for a pair with one index < 0.
[[nodiscard]] std::string get_order(const Array& row, const Array& col);
// op(a) @ op(b) with one operand sparse (Chainer's F.sparse_matmul): a (m, k) / (B, m, k)
// CooMatrix with a dense b (k, n) / (B, k, n), or a dense a with a sparse b; op transposes
// when trans* is set. One float dtype; DimensionError for mismatched shapes. Differentiable
// in the sparse data and the dense operand, to any order.
[[nodiscard]] Variable sparse_matmul(const CooMatrix& a, const Variable& b, bool transa = false, bool transb = false);
[[nodiscard]] Variable sparse_matmul(const Variable& a, const CooMatrix& b, bool transa = false, bool transb = false);

// --- Chainer's fft / ifft (issue 23): the discrete Fourier transform (inverse: divided by
// n) along the last axis of the complex signal real + i imag, returned as (real, imag).
// real and imag share a float dtype and a shape with ndim > 0 (DtypeError /
// DimensionError); an empty last axis is a ValueError. See Note [DFT by matrix products].
[[nodiscard]] std::pair<Variable, Variable> fft(const std::pair<Variable, Variable>& x);
[[nodiscard]] std::pair<Variable, Variable> ifft(const std::pair<Variable, Variable>& x);

}  // namespace rensa::functions

namespace F = rensa::functions;  // NOLINT(misc-unused-alias-decls)
