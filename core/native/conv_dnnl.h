#pragma once
// The oneDNN path of the native convolution (float32): oneDNN picks its blocked layouts
// and the operands are reordered from and to Chainer's plain layout. Each returns false
// (having written nothing) where oneDNN is not built in or refuses the problem; the caller
// then takes the im2col path. Primitives are cached by problem.

#include "core/window_geometry.h"

namespace rensa::native {

// kAny lets oneDNN pick blocked layouts (with reorders); kPlain computes on Chainer's layouts.
enum class DnnlLayout { kAny, kPlain };

bool dnnl_convolution(const WindowGeometry& g, const float* x, const float* w, const float* b, float* y,
                      DnnlLayout layout = DnnlLayout::kAny);
bool dnnl_convolution_backward_data(const WindowGeometry& g, const float* gy, const float* w, float* gx,
                                    DnnlLayout layout = DnnlLayout::kAny);
bool dnnl_convolution_backward_filter(const WindowGeometry& g, const float* x, const float* gy, float* gw,
                                      DnnlLayout layout = DnnlLayout::kAny);

}  // namespace rensa::native
