// Orthogonal and Identity: matrices built on the host in float64, then cast into the array.
#include <cmath>
#include <vector>

#include "core/error.h"
#include "core/ops/random.h"
#include "links/initializers.h"
#include "links/initializers/check.h"

namespace rensa::initializers {
namespace {

// Orthonormalises the `count` contiguous rows of length `len` in `v` by modified
// Gram-Schmidt, run twice for float64 accuracy. Equivalent to QR with a positive
// diagonal of R, which gives Haar-distributed results from normal input.
void orthonormalize_rows(std::vector<double>& v, int64_t count, int64_t len) {
    for (int64_t i = 0; i < count; ++i) {
        double* row = v.data() + i * len;
        for (int pass = 0; pass < 2; ++pass) {
            for (int64_t j = 0; j < i; ++j) {
                const double* other = v.data() + j * len;
                double dot = 0.0;
                for (int64_t k = 0; k < len; ++k) dot += row[k] * other[k];
                for (int64_t k = 0; k < len; ++k) row[k] -= dot * other[k];
            }
        }
        double norm = 0.0;
        for (int64_t k = 0; k < len; ++k) norm += row[k] * row[k];
        norm = std::sqrt(norm);
        RENSA_ASSERT(norm > 0.0);
        for (int64_t k = 0; k < len; ++k) row[k] /= norm;
    }
}

// The (cols, rows) transpose of a row-major (rows, cols) matrix.
std::vector<double> transposed(const std::vector<double>& m, int64_t rows, int64_t cols) {
    std::vector<double> t(m.size());
    for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) t[j * rows + i] = m[i * cols + j];
    }
    return t;
}

}  // namespace

Orthogonal::Orthogonal(double scale, std::optional<Dtype> dtype) : Initializer(dtype), scale_{scale} {}

void Orthogonal::operator()(const Array& array) const {
    detail::check_dtype(*this, array, "Orthogonal");
    RENSA_CHECK(array.ndim() >= 2, DimensionError, "Orthogonal: the array must have at least 2 dims, got shape ",
                array.shape());
    RENSA_CHECK(array.size() > 0, ValueError, "Orthogonal: the array to initialise must be non-empty, got shape ",
                array.shape());
    const int64_t rows = array.shape()[0];
    const int64_t cols = array.size() / rows;
    std::vector<double> a = ops::normal({rows, cols}, 0.0, 1.0, Dtype::kFloat64, Device::native()).to_vector<double>();
    if (rows <= cols) {
        orthonormalize_rows(a, rows, cols);
    } else {  // orthonormal columns: rows of the transpose
        a = transposed(a, rows, cols);
        orthonormalize_rows(a, cols, rows);
        a = transposed(a, cols, rows);
    }
    for (double& x : a) x *= scale_;
    array.assign(Array::from_vector(a, array.shape(), Device::native()).to_device(array.device()));
}

Identity::Identity(double scale, std::optional<Dtype> dtype) : Initializer(dtype), scale_{scale} {}

void Identity::operator()(const Array& array) const {
    detail::check_dtype(*this, array, "Identity");
    RENSA_CHECK(array.ndim() == 2 && array.shape()[0] == array.shape()[1], DimensionError,
                "Identity: the array must be a 2-d square matrix, got shape ", array.shape());
    const int64_t n = array.shape()[0];
    std::vector<double> eye(static_cast<size_t>(n * n), 0.0);
    for (int64_t i = 0; i < n; ++i) eye[static_cast<size_t>(i * n + i)] = scale_;
    array.assign(Array::from_vector(eye, array.shape(), Device::native()).to_device(array.device()));
}

}  // namespace rensa::initializers
