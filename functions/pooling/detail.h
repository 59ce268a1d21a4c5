#pragma once
// Private to functions/pooling: argument expansion and the differentiable building
// blocks the pooling functions share (max pooling's scatter/gather pair, which are each
// other's backward, and average pooling with its linear backward).

#include <string_view>

#include "autograd/function_node.h"
#include "autograd/variable.h"
#include "core/ops/pooling.h"
#include "functions/pooling.h"

namespace rensa::functions::detail {

// Checks x (float, ndim == spatial + 2) and expands ksize/stride/pad (stride unset: ksize)
// for `spatial` dims into the ops' parameters.
ops::PoolParams pool_params(const Variable& x, int spatial, const PoolingSize& ksize, const PoolingSize& stride,
                            const PoolingSize& pad, bool cover_all, std::string_view op);

// gx (x_shape) = gy scatter-added through plane indices (max pooling's backward,
// upsampling's forward); its backward is max_pool_gather.
[[nodiscard]] Variable max_pool_scatter(const Variable& gy, const Array& indices, const Shape& x_shape,
                                        const ops::PoolParams& params);
// y = gx gathered at plane indices per (n, c) plane; its backward is max_pool_scatter.
[[nodiscard]] Variable max_pool_gather(const Variable& gx, const Array& indices, const ops::PoolParams& params);

// Average pooling and its backward (each other's backward: both are linear).
[[nodiscard]] Variable average_pool(const Variable& x, const ops::PoolParams& params, bool exclude_pad);
[[nodiscard]] Variable average_pool_grad(const Variable& gy, const Shape& x_shape, const ops::PoolParams& params,
                                         bool exclude_pad);

// The pooling nodes' FunctionNode::attributes(): ksize, stride, pad, cover_all.
inline FunctionNode::Attributes pooling_attributes(const ops::PoolParams& p) {
    using Ints = std::vector<int64_t>;
    return {{"ksize", Ints(p.ksize.begin(), p.ksize.end())},
            {"stride", Ints(p.stride.begin(), p.stride.end())},
            {"pad", Ints(p.pad.begin(), p.pad.end())},
            {"cover_all", p.cover_all}};
}

}  // namespace rensa::functions::detail
