// unpooling_2d / unpooling_nd (with unpooling_1d and unpooling_3d) and upsampling_2d, the
// inverses of average and max pooling. Both are the
// backward of a pooling run on an output-sized array: unpooling_2d is kh * kw times
// average pooling's backward (every position of a window gets the value), upsampling_2d
// is max pooling's scatter through the given indexes. Both are linear, so the building
// blocks' own backward passes give every order of differentiation.

#include "autograd/basic_math.h"
#include "autograd/check.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/pooling.h"
#include "core/ops/reduction.h"
#include "functions/pooling.h"
#include "functions/pooling/detail.h"

namespace rensa::functions {
namespace {

// The output shape (n, c, *out): `outsize`, or get_deconv_outsize; outsize must pool back
// to x's size.
Shape unpooled_shape(const Variable& x, const ops::PoolParams& p, const PoolingSize& outsize, std::string_view op) {
    Shape out{x.shape()[0], x.shape()[1]};
    const int nd = static_cast<int>(p.ksize.size());
    const Shape given = outsize.is_set() ? outsize.expand(nd, op, "outsize") : Shape{};
    for (int i = 0; i < nd; ++i) {
        const int64_t h = x.shape()[2 + i];
        out.push_back(outsize.is_set() ? given[i]
                                       : ops::unpooling_outsize(h, p.ksize[i], p.stride[i], p.pad[i], p.cover_all));
        RENSA_CHECK(
            out.back() >= 1 && ops::pooling_outsize(out.back(), p.ksize[i], p.stride[i], p.pad[i], p.cover_all) == h,
            DimensionError, op, ": invalid outsize: an output of size ", out.back(), " in dim ", i + 2,
            " does not pool back to x.shape[", i + 2, "] = ", h, " (x.shape ", x.shape(), ")");
    }
    return out;
}

// Expands ksize/stride/pad for an x with `nd` spatial dims; the pooled-size check is on the
// output side.
ops::PoolParams unpool_params(const Variable& x, int nd, const PoolingSize& ksize, const UnpoolingOptions& o,
                              std::string_view op) {
    expect_float(x, op, "x");
    expect_ndim(x, nd + 2, op, "x");
    RENSA_CHECK(ksize.is_set(), ValueError, op, ": ksize must be given");
    ops::PoolParams p{.ksize = ksize.expand(nd, op, "ksize"),
                      .stride = {},
                      .pad = o.pad.expand(nd, op, "pad"),
                      .cover_all = o.cover_all};
    p.stride = o.stride.is_set() ? o.stride.expand(nd, op, "stride") : p.ksize;
    Shape window{1, 1};
    for (const int64_t k : p.ksize) window.push_back(k);
    (void)ops::pooling_output_shape(window, {p.ksize, p.stride, p.pad}, op);
    return p;
}

// y = window size x average pooling's backward: every position of a window gets the value.
Variable unpool(const Variable& x, int nd, const PoolingSize& ksize, const UnpoolingOptions& options,
                std::string_view op) {
    const ops::PoolParams p = unpool_params(x, nd, ksize, options, op);
    const Shape out = unpooled_shape(x, p, options.outsize, op);
    double window = 1.0;
    for (const int64_t k : p.ksize) window *= static_cast<double>(k);
    return detail::average_pool_grad(x, out, p, false) * window;
}

// Checks Chainer's window-relative indexes (ky * kw + kx) and turns them into flat
// positions in the (out_h, out_w) plane, -1 where the position is in the padding.
Array to_plane_indices(const Array& indexes, const Shape& out, const ops::PoolParams& p, std::string_view op) {
    const Array idx = indexes.astype(Dtype::kInt64, false);
    const int64_t window = p.ksize[0] * p.ksize[1];
    const Array bad = ops::logical_or(ops::less(idx, 0), ops::greater_equal(idx, window));
    if (idx.size() > 0 && ops::any(bad).item<bool>()) {
        const int64_t at = ops::argmax(bad).item<int64_t>();
        RENSA_THROW(IndexError, op, ": indexes[", at, "] (flat position) = ", idx.ravel()[at].item<int64_t>(),
                    " is out of range [0, ", window, ")");
    }
    const Device dev = idx.device();
    const int64_t h = idx.shape()[2], w = idx.shape()[3];
    const Array y0 = ops::subtract(ops::multiply(ops::arange(h, Dtype::kInt64, dev), p.stride[0]), p.pad[0]);
    const Array x0 = ops::subtract(ops::multiply(ops::arange(w, Dtype::kInt64, dev), p.stride[1]), p.pad[1]);
    const Array iy = ops::add(ops::floor_divide(idx, p.ksize[1]), y0.reshape({h, 1}));
    const Array ix = ops::add(ops::mod(idx, p.ksize[1]), x0);
    const Array inside = ops::logical_and(ops::logical_and(ops::greater_equal(iy, 0), ops::less(iy, out[2])),
                                          ops::logical_and(ops::greater_equal(ix, 0), ops::less(ix, out[3])));
    return ops::where(inside, ops::add(ops::multiply(iy, out[3]), ix), Scalar(int64_t{-1}));
}

}  // namespace

Variable unpooling_2d(const Variable& x, PoolingSize ksize, const UnpoolingOptions& options) {
    return unpool(x, 2, ksize, options, "unpooling_2d");
}

Variable unpooling_nd(const Variable& x, PoolingSize ksize, const UnpoolingOptions& options) {
    expect_defined(x, "unpooling_nd", "x");
    RENSA_CHECK(x.ndim() >= 3 && x.ndim() <= 5, DimensionError,
                "unpooling_nd: Expect: 3 <= x.ndim <= 5, Actual: ", x.ndim(), " (x.shape ", x.shape(), ")");
    return unpool(x, x.ndim() - 2, ksize, options, "unpooling_nd");
}

Variable unpooling_1d(const Variable& x, PoolingSize ksize, const UnpoolingOptions& options) {
    return unpool(x, 1, ksize, options, "unpooling_1d");
}

Variable unpooling_3d(const Variable& x, PoolingSize ksize, const UnpoolingOptions& options) {
    return unpool(x, 3, ksize, options, "unpooling_3d");
}

Variable upsampling_2d(const Variable& x, const Array& indexes, PoolingSize ksize, const UnpoolingOptions& options) {
    const ops::PoolParams p = unpool_params(x, 2, ksize, options, "upsampling_2d");
    // indexes is an Array, not a Variable: autograd/check.h's messages, written in place.
    RENSA_CHECK(indexes.defined(), ValueError, "upsampling_2d: Expect: indexes to be defined, Actual: undefined Array");
    RENSA_CHECK(is_integral(indexes.dtype()), DtypeError,
                "upsampling_2d: Expect: indexes.dtype.kind in 'iu', Actual: ", dtype_name(indexes.dtype()));
    RENSA_CHECK(indexes.shape() == x.shape(), DimensionError,
                "upsampling_2d: Expect: indexes.shape == x.shape, Actual: ", indexes.shape(), " != ", x.shape());
    const Shape out = unpooled_shape(x, p, options.outsize, "upsampling_2d");
    return detail::max_pool_scatter(x, to_plane_indices(indexes, out, p, "upsampling_2d"), out, p);
}

}  // namespace rensa::functions
