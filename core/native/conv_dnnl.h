#pragma once
// The oneDNN path of the native convolution (float32, or bfloat16 operands with float32
// accumulation): oneDNN picks its blocked layouts and the operands are reordered from and
// to Chainer's plain layout. Each returns false (having written nothing) where oneDNN is
// not built in or refuses the problem; the caller then takes another path. Primitives are
// cached by problem.

#include "core/window_geometry.h"

namespace rensa::native {

// kAny lets oneDNN pick blocked layouts (with reorders); kPlain computes on Chainer's layouts.
enum class DnnlLayout { kAny, kPlain };

// The element type of x, w, y, gx and gy (Note [oneDNN bfloat16]). Biases, bias gradients
// and weight gradients are float32 in both: the caller rounds a bfloat16 gw once.
enum class DnnlPrecision { kFloat32, kBFloat16 };

bool dnnl_convolution(const WindowGeometry& g, DnnlPrecision precision, const void* x, const void* w, const float* b,
                      void* y, DnnlLayout layout = DnnlLayout::kAny);
bool dnnl_convolution_backward_data(const WindowGeometry& g, DnnlPrecision precision, const void* gy, const void* w,
                                    void* gx, DnnlLayout layout = DnnlLayout::kAny);
// gb (float32, c_out), when not null, gets the bias gradient (gy summed over all but axis 1).
bool dnnl_convolution_backward_filter(const WindowGeometry& g, DnnlPrecision precision, const void* x, const void* gy,
                                      float* gw, float* gb = nullptr, DnnlLayout layout = DnnlLayout::kAny);

}  // namespace rensa::native
