// fft and ifft of Chainer: the DFT along the last axis of a complex signal given as a
// (real, imag) pair, computed as real matrix products with cos/sin matrices.

#include <cmath>
#include <numbers>
#include <utility>
#include <vector>

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "core/error.h"
#include "functions/array.h"
#include "functions/math.h"

namespace rensa::functions {
namespace {

// Note [DFT by matrix products]: y = x W with W[j, k] = exp(-+2 pi i j k / n) is exact (the
// angles are reduced as (j k mod n) in float64 on the host before rounding), runs on every
// device through GEMM and is differentiable through matmul, whose gradient is the adjoint
// DFT that Chainer's FFT.backward computes. It costs O(n^2) per signal instead of
// O(n log n), which is fine at the signal lengths networks use; float16 runs in float32.
std::pair<Variable, Variable> dft_matrices(int64_t n, Dtype dtype, Device device) {
    std::vector<double> c(static_cast<size_t>(n * n)), s(c.size());
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t k = 0; k < n; ++k) {
            const double angle = 2.0 * std::numbers::pi * static_cast<double>((j * k) % n) / static_cast<double>(n);
            c[static_cast<size_t>(j * n + k)] = std::cos(angle);
            s[static_cast<size_t>(j * n + k)] = std::sin(angle);
        }
    }
    return {Variable(Array::from_vector(c, {n, n}, device).astype(dtype), false),
            Variable(Array::from_vector(s, {n, n}, device).astype(dtype), false)};
}

std::pair<Variable, Variable> dft(const std::pair<Variable, Variable>& x, bool inverse, const char* op) {
    const auto& [real, imag] = x;
    expect_float(real, op, "real");
    expect_same_dtype(real, imag, op, "real", "imag");
    RENSA_CHECK(real.ndim() > 0, DimensionError, op, ": Expect: real.ndim > 0, Actual: 0");
    expect_same_shape(real, imag, op, "real", "imag");
    RENSA_CHECK(real.shape()[real.ndim() - 1] > 0, ValueError, op,
                ": Invalid number of FFT data points (0) (real.shape ", real.shape(), ")");
    const Dtype dtype = real.dtype() == Dtype::kFloat64 ? Dtype::kFloat64 : Dtype::kFloat32;
    const Variable xr = cast(real, dtype), xi = cast(imag, dtype);
    const int64_t n = real.shape()[real.ndim() - 1];
    const auto [c, s] = dft_matrices(n, dtype, real.device());
    // fft: y = x (C - iS); ifft: y = x (C + iS) / n.
    Variable yr = inverse ? matmul(xr, c) - matmul(xi, s) : matmul(xr, c) + matmul(xi, s);
    Variable yi = inverse ? matmul(xi, c) + matmul(xr, s) : matmul(xi, c) - matmul(xr, s);
    if (inverse && n > 0) {
        yr = yr * (1.0 / static_cast<double>(n));
        yi = yi * (1.0 / static_cast<double>(n));
    }
    return {cast(yr, real.dtype()), cast(yi, real.dtype())};
}

}  // namespace

std::pair<Variable, Variable> fft(const std::pair<Variable, Variable>& x) { return dft(x, false, "fft"); }

std::pair<Variable, Variable> ifft(const std::pair<Variable, Variable>& x) { return dft(x, true, "ifft"); }

}  // namespace rensa::functions
