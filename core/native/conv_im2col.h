#pragma once
// The generic convolution path of the native backend: im2col / col2im plus OpenBLAS GEMM,
// for float and double on contiguous operands. Samples are processed in chunks so each
// GEMM is large enough for OpenBLAS's threads while the column buffer stays bounded.

#include "core/window_geometry.h"

namespace rensa::native {

// y (n, c_out, *out) = x (n, c_in, *in) convolved with w (c_out, c_in / groups, *k) (+ b
// when not null). Every pointer addresses contiguous memory.
template <class T>
void im2col_convolution(const WindowGeometry& g, const T* x, const T* w, const T* b, T* y);
// gx (overwritten) = the transpose of the convolution applied to gy.
template <class T>
void im2col_convolution_backward_data(const WindowGeometry& g, const T* gy, const T* w, T* gx);
// gw (overwritten) = d(sum(y * gy)) / dw.
template <class T>
void im2col_convolution_backward_filter(const WindowGeometry& g, const T* x, const T* gy, T* gw);

}  // namespace rensa::native
