#pragma once
// Matrix factorisations of the math family's linear algebra (det, inv, cholesky), on Arrays
// (not differentiated; the FunctionNodes of functions/math/linalg.cc add the gradients).
// Private to functions/math. See Note [Factorisations from array ops].

#include <string_view>

#include "core/array.h"

namespace rensa::functions::math_detail {

// The dtype the factorisations compute in: float64 for float64, float32 otherwise
// (float16 is widened, as Chainer's mixed-precision helper does).
[[nodiscard]] Dtype linalg_compute_dtype(Dtype dtype);
// Determinants of a (B, n, n) float array: (B,) in a's dtype; exactly 0 for a matrix whose
// elimination meets an all-zero pivot column (numpy.linalg.det's singular case).
[[nodiscard]] Array batch_det_array(const Array& a);
// Inverses of a (B, n, n) float array, in a's dtype. ValueError "<op>: Input has singular
// matrices." (Chainer's message) when one is singular.
[[nodiscard]] Array batch_inv_array(const Array& a, std::string_view op);
// The lower-triangular L with a = L L^T of an (n, n) float array, from a's lower triangle
// (numpy.linalg.cholesky). ValueError when a is not positive definite.
[[nodiscard]] Array cholesky_array(const Array& a);

}  // namespace rensa::functions::math_detail
