// CooMatrix, to_coo and sparse_matmul (Chainer's chainer.utils.sparse and
// F.sparse_matmul). The product is a composite: gather the rows of the dense operand at the
// nonzeros' columns, scale them by the nonzeros and scatter-add them to the result rows, so
// it runs on every device and both operands get gradients of every order.

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/indexing.h"
#include "core/ops/operators.h"
#include "functions/array.h"
#include "functions/math.h"

namespace rensa::functions {
namespace {

// Chainer's _is_c_order on host copies: the valid (row, col) pairs are sorted row-major.
bool is_c_order(const std::vector<int64_t>& row, const std::vector<int64_t>& col, int64_t batches, int64_t ldnz) {
    for (int64_t b = 0; b < batches; ++b) {
        int64_t last_row = -1, last_col = -1;
        for (int64_t i = b * ldnz; i < (b + 1) * ldnz; ++i) {
            const auto u = static_cast<size_t>(i);
            if (row[u] < 0) continue;
            if (row[u] < last_row || (row[u] == last_row && col[u] < last_col)) return false;
            last_row = row[u], last_col = col[u];
        }
    }
    return true;
}

// Checks every (row, col) pair of the host copies (both < 0 for padding, else within
// `shape` when given) and returns the order Chainer's get_order derives.
std::string checked_order(const Array& row, const Array& col, std::optional<std::pair<int64_t, int64_t>> shape,
                          const char* op) {
    RENSA_CHECK(row.defined() && col.defined() && row.shape() == col.shape() && (row.ndim() == 1 || row.ndim() == 2),
                ValueError, op, ": Expect: row and col of one shape with ndim 1 or 2, Actual: row ",
                row.defined() ? row.shape() : Shape{}, ", col ", col.defined() ? col.shape() : Shape{});
    RENSA_CHECK(is_integral(row.dtype()) && is_integral(col.dtype()), DtypeError, op,
                ": Expect: integer row and col, Actual: ", dtype_name(row.dtype()), ", ", dtype_name(col.dtype()));
    const std::vector<int64_t> r = row.to_vector<int64_t>(), c = col.to_vector<int64_t>();
    for (size_t i = 0; i < r.size(); ++i) {
        RENSA_CHECK((r[i] < 0) == (c[i] < 0), ValueError, op, ": invalid index combination of row and col (", r[i],
                    ", ", c[i], ") at entry ", i);
        RENSA_CHECK(!shape || (r[i] < shape->first && c[i] < shape->second), ValueError, op, ": index (", r[i], ", ",
                    c[i], ") at entry ", i, " is out of bounds for shape (", shape->first, ", ", shape->second, ")");
    }
    const int64_t ldnz = row.shape()[row.ndim() - 1];
    const int64_t batches = row.ndim() == 2 ? row.shape()[0] : 1;
    if (is_c_order(r, c, batches, ldnz)) return "C";
    return is_c_order(c, r, batches, ldnz) ? "F" : "other";
}

// Note [Sparse matmul indices]: the product passes the nonzeros' positions to get_item and
// scatter_add, that is to core's take and scatter_add, which check indices on the host
// (core/ops/indexing.cc): one copy of row/col per call that Chainer's GPU kernel does not
// make. The constructor has already checked the ranges, so a device-side check in core
// would remove it without changing a result; until then it is the price of running the
// product on every backend without a kernel of its own.

// op(sp) @ b' with b' = op(b), before any transpose of the result.
Variable coo_matmul(const CooMatrix& sp, const Variable& dense, bool transa, bool transb) {
    const Variable& data = sp.data();
    expect_float(dense, "sparse_matmul", "dense operand");
    expect_same_dtype(data, dense, "sparse_matmul", "sparse data", "dense operand");
    const bool batched = data.ndim() == 2;
    RENSA_CHECK(dense.ndim() == data.ndim() + 1, DimensionError,
                "sparse_matmul: Expect: dense operand.ndim == ", data.ndim() + 1,
                " (sparse data.ndim + 1), Actual: dense shape ", dense.shape());
    const Variable b = transb ? swapaxes(dense, -1, -2) : dense;
    auto [m, k] = sp.shape();
    if (transa) std::swap(m, k);
    RENSA_CHECK(b.shape()[b.ndim() - 2] == k, DimensionError, "sparse_matmul: Expect: the dense operand's ",
                transb ? "last" : "second-to-last", " axis to have length ", k, " (the sparse operand's shape (",
                sp.shape().first, ", ", sp.shape().second, ")", transa ? " transposed" : "", "), Actual: shape ",
                dense.shape());
    const int64_t nb = batched ? data.shape()[0] : 1, nnz = data.shape()[data.ndim() - 1], n = b.shape()[b.ndim() - 1];
    RENSA_CHECK(!batched || b.shape()[0] == nb, DimensionError, "sparse_matmul: Expect: dense operand.shape[0] == ", nb,
                " (the sparse batch), Actual: shape ", dense.shape());
    const Array& row = transa ? sp.col() : sp.row();
    const Array& col = transa ? sp.row() : sp.col();
    const Array valid = ops::logical_and(row >= 0, col >= 0);
    Array r = ops::where(valid, row, 0).astype(Dtype::kInt64), c = ops::where(valid, col, 0).astype(Dtype::kInt64);
    if (batched) {
        const Array batch = ops::arange(nb, Dtype::kInt64, row.device()).expand_dims(1);
        r = r + batch * m, c = c + batch * k;
    }
    const Variable weights = reshape(data * Variable(valid.astype(data.dtype()), false), {nb * nnz, 1});
    const Variable gathered = get_item(reshape(b, {nb * k, n}), c.reshape({nb * nnz}));
    const Variable zeros(ops::zeros({nb * m, n}, data.dtype(), data.device()), false);
    const Variable product = scatter_add(zeros, {r.reshape({nb * nnz})}, gathered * weights);
    return batched ? reshape(product, {nb, m, n}) : reshape(product, {m, n});
}

}  // namespace

CooMatrix::CooMatrix(Variable data, Array row, Array col, std::pair<int64_t, int64_t> shape,
                     std::optional<std::string> order)
    : data_{std::move(data)}, row_{std::move(row)}, col_{std::move(col)}, shape_{shape} {
    expect_float(data_, "CooMatrix", "data");
    RENSA_CHECK(data_.ndim() == 1 || data_.ndim() == 2, ValueError,
                "CooMatrix: ndim of data must be 1 or 2, Actual: ", data_.ndim());
    RENSA_CHECK(row_.defined() && col_.defined() && row_.shape() == data_.shape() && col_.shape() == data_.shape(),
                ValueError, "CooMatrix: Expect: row and col of data's shape ", data_.shape(), ", Actual: row ",
                row_.defined() ? row_.shape() : Shape{}, ", col ", col_.defined() ? col_.shape() : Shape{});
    RENSA_CHECK(shape.first > 0 && shape.second > 0, ValueError,
                "CooMatrix: numbers in shape must be greater than 0, Actual: (", shape.first, ", ", shape.second, ")");
    RENSA_CHECK(!order || *order == "C" || *order == "F" || *order == "other", ValueError,
                "CooMatrix: order must be 'C', 'F', 'other' or None, Actual: '", order.value_or(""), "'");
    const std::string derived = checked_order(row_, col_, shape_, "CooMatrix");
    order_ = order.value_or(derived);
}

Array CooMatrix::to_dense() const {
    const Array& data = data_.array();
    const bool batched = data.ndim() == 2;
    const auto [m, n] = shape_;
    const int64_t nb = batched ? data.shape()[0] : 1;
    const Array valid = ops::logical_and(row_ >= 0, col_ >= 0);
    Array flat = ops::where(valid, row_.astype(Dtype::kInt64) * n + col_.astype(Dtype::kInt64), 0);
    if (batched) flat = flat + ops::arange(nb, Dtype::kInt64, data.device()).expand_dims(1) * (m * n);
    const Array out = ops::zeros({nb * m * n}, data.dtype(), data.device());
    ops::scatter_add(out, flat.reshape({data.size()}), (data * valid.astype(data.dtype())).reshape({data.size()}));
    return batched ? out.reshape({nb, m, n}) : out.reshape({m, n});
}

CooMatrix to_coo(const Array& x, std::optional<int64_t> ldnz, bool requires_grad) {
    RENSA_CHECK(x.defined() && (x.ndim() == 2 || x.ndim() == 3), ValueError,
                "to_coo: ndim of x must be 2 or 3, Actual: ", x.defined() ? x.ndim() : 0);
    const bool batched = x.ndim() == 3;
    const int64_t nb = batched ? x.shape()[0] : 1, m = x.shape()[x.ndim() - 2], n = x.shape()[x.ndim() - 1];
    // The nonzero positions decide the output's size: a host read, as Chainer's xp.where.
    const std::vector<uint8_t> nonzero = (x != 0).to_vector<uint8_t>();
    std::vector<std::vector<int64_t>> positions(static_cast<size_t>(nb));
    int64_t width = ldnz.value_or(0);
    for (int64_t b = 0; b < nb; ++b) {
        for (int64_t i = 0; i < m * n; ++i) {
            if (nonzero[static_cast<size_t>(b * m * n + i)]) positions[static_cast<size_t>(b)].push_back(i);
        }
        width = std::max<int64_t>(width, static_cast<int64_t>(positions[static_cast<size_t>(b)].size()));
    }
    std::vector<int64_t> take_at(static_cast<size_t>(nb * width), 0), row(take_at.size(), -1), col(take_at.size(), -1);
    std::vector<uint8_t> keep(take_at.size(), 0);
    for (int64_t b = 0; b < nb; ++b) {
        const std::vector<int64_t>& p = positions[static_cast<size_t>(b)];
        for (size_t i = 0; i < p.size(); ++i) {
            const auto u = static_cast<size_t>(b * width) + i;
            take_at[u] = b * m * n + p[i], row[u] = p[i] / n, col[u] = p[i] % n, keep[u] = 1;
        }
    }
    const Shape shape = batched ? Shape{nb, width} : Shape{width};
    const Device device = x.device();
    const Array data = ops::take(x.reshape({x.size()}), Array::from_vector(take_at, shape, device)) *
                       Array::from_vector(keep, shape, device).astype(x.dtype());
    return CooMatrix(Variable(data, requires_grad), Array::from_vector(row, shape, device).astype(Dtype::kInt32),
                     Array::from_vector(col, shape, device).astype(Dtype::kInt32), {m, n});
}

std::string get_order(const Array& row, const Array& col) { return checked_order(row, col, std::nullopt, "get_order"); }

Variable sparse_matmul(const CooMatrix& a, const Variable& b, bool transa, bool transb) {
    return coo_matmul(a, b, transa, transb);
}

Variable sparse_matmul(const Variable& a, const CooMatrix& b, bool transa, bool transb) {
    // op(a) op(b) = (op(b)^T op(a)^T)^T.
    return swapaxes(coo_matmul(b, a, !transb, !transa), -1, -2);
}

}  // namespace rensa::functions
