#pragma once
// Helpers shared by the normalization functions of functions/normalization/ (internal).

#include <cstdint>

#include "core/array.h"

namespace rensa::functions::detail {

// Eigen decomposition of a batch of symmetric matrices a (g, C, C): a[i] = V diag(w) V^T
// with w (g, C) (in no particular order) and orthonormal columns in V (g, C, C), both
// float64, on a's device. See Note [Jacobi eigensolver through ops].
struct SymmetricEigen {
    Array values, vectors;
};
[[nodiscard]] SymmetricEigen symmetric_eigen(const Array& a);

}  // namespace rensa::functions::detail
