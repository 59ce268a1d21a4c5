#pragma once
// Pooling over the trailing 1 to 3 spatial dims of x (n, c, *in) in Chainer's layout, and
// the backward passes differentiable pooling functions need. See the pooling contract in
// core/kernels.h (window placement, empty windows, max indices). Inputs must be floating
// (DtypeError); bad ranks or sizes throw DimensionError, bad ksize/stride/pad ValueError.
// Every message starts with `op`, the caller's name.

#include <cstdint>
#include <string_view>

#include "core/array.h"

namespace rensa::ops {

// One entry of ksize, stride and pad per spatial dimension.
struct PoolParams {
    Shape ksize, stride, pad;
    bool cover_all = false;  // Chainer's cover_all: one more output where the last window is partial
};

// Chainer's get_conv_outsize: output length of pooling one spatial dimension.
int64_t pooling_outsize(int64_t size, int64_t k, int64_t s, int64_t p, bool cover_all = false);
// Chainer's get_deconv_outsize: the input length that pools to `size` (unpooling's output).
int64_t unpooling_outsize(int64_t size, int64_t k, int64_t s, int64_t p, bool cover_all = false);
// The output shape (n, c, *out) of pooling an array of `x_shape`; validates everything.
Shape pooling_output_shape(const Shape& x_shape, const PoolParams& params, std::string_view op);

struct MaxPoolResult {
    Array y;        // x's dtype, (n, c, *out)
    Array indices;  // int64 of y's shape: flat index of each max in x's spatial plane (-1: empty window)
};
// Max pooling; indices are skipped (left undefined) when `with_indices` is false.
[[nodiscard]] MaxPoolResult max_pool(const Array& x, const PoolParams& params, bool with_indices = true,
                                     std::string_view op = "max_pool");
// Average pooling: divides by the window size (padding counts as 0) or, with exclude_pad,
// by the number of positions inside x.
[[nodiscard]] Array average_pool(const Array& x, const PoolParams& params, bool exclude_pad = false,
                                 std::string_view op = "average_pool");

// gx (x_shape, gy's dtype) = gy scatter-added through `indices` (from max_pool of an
// x_shape array with `params`; entries outside the plane are skipped). gy and indices
// must have the pooled shape.
[[nodiscard]] Array max_pool_backward(const Array& gy, const Array& indices, const Shape& x_shape,
                                      const PoolParams& params, std::string_view op = "max_pool_backward");
// gx (x_shape) of average pooling: each gy spread evenly over its window.
[[nodiscard]] Array average_pool_backward(const Array& gy, const Shape& x_shape, const PoolParams& params,
                                          bool exclude_pad = false, std::string_view op = "average_pool_backward");
// The transpose of max_pool_backward: out (indices' shape, gx's dtype) = gx[n, c, indices]
// per plane, 0 where an index is outside the plane. gx is (n, c, *in).
[[nodiscard]] Array max_pool_gather(const Array& gx, const Array& indices, std::string_view op = "max_pool_gather");

}  // namespace rensa::ops
