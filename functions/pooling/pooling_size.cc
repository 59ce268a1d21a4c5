// PoolingSize (Chainer's "int or tuple") and the argument checks every pooling function shares.

#include "autograd/check.h"
#include "core/error.h"
#include "functions/pooling.h"
#include "functions/pooling/detail.h"

namespace rensa::functions {

Shape PoolingSize::expand(int ndim, std::string_view op, std::string_view name) const {
    if (scalar_) return Shape(ndim, values_[0]);
    RENSA_CHECK(values_.size() == ndim, ValueError, op, ": ", name, " ", values_, " must have ", ndim,
                " entries (one per spatial dim)");
    return values_;
}

namespace detail {

ops::PoolParams pool_params(const Variable& x, int spatial, const PoolingSize& ksize, const PoolingSize& stride,
                            const PoolingSize& pad, bool cover_all, std::string_view op) {
    expect_float(x, op, "x");
    expect_ndim(x, spatial + 2, op, "x");
    RENSA_CHECK(ksize.is_set(), ValueError, op, ": ksize must be given");
    ops::PoolParams p{.ksize = ksize.expand(spatial, op, "ksize"),
                      .stride = {},
                      .pad = pad.expand(spatial, op, "pad"),
                      .cover_all = cover_all};
    p.stride = stride.is_set() ? stride.expand(spatial, op, "stride") : p.ksize;
    (void)ops::pooling_output_shape(x.shape(), p, op);  // validates sizes before any kernel runs
    return p;
}

}  // namespace detail
}  // namespace rensa::functions
