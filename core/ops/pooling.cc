// Pooling ops: validate, compute output sizes (Chainer's cover_all), allocate and call the
// device's pool / pool_backward kernels.

#include "core/ops/pooling.h"

#include "core/backend.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "core/ops/indexing.h"
#include "core/ops/manipulation.h"

namespace rensa::ops {
namespace {

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

void check_params(const PoolParams& p, std::string_view op) {
    const int nd = p.ksize.size();
    RENSA_CHECK(nd >= 1 && nd <= 3, DimensionError, op, ": pooling over ", nd,
                " spatial dims is not supported (1 to 3), ksize=", p.ksize);
    RENSA_CHECK(p.stride.size() == nd && p.pad.size() == nd, ValueError, op, ": ksize ", p.ksize, ", stride ", p.stride,
                " and pad ", p.pad, " must have one entry per spatial dim");
    for (int i = 0; i < nd; ++i) {
        RENSA_CHECK(p.ksize[i] >= 1, ValueError, op, ": ksize must be positive, got ", p.ksize);
        RENSA_CHECK(p.stride[i] >= 1, ValueError, op, ": stride must be positive, got ", p.stride);
        RENSA_CHECK(p.pad[i] >= 0, ValueError, op, ": pad must be non-negative, got ", p.pad);
    }
}

void check_float(const Array& a, std::string_view op, std::string_view name) {
    RENSA_CHECK(is_float(a.dtype()), DtypeError, op, ": Expect: ", name,
                ".dtype.kind == 'f', Actual: ", dtype_name(a.dtype()));
}

void check_indices(const Array& indices, const Shape& shape, std::string_view op) {
    RENSA_CHECK(indices.dtype() == Dtype::kInt64, DtypeError, op, ": indices must be int64, got ",
                dtype_name(indices.dtype()));
    RENSA_CHECK(indices.shape() == shape, DimensionError, op, ": indices shape ", indices.shape(),
                " does not match the pooled shape ", shape);
}

Kernels& kernels_of(const Array& a) { return global_context().kernels(a.device()); }

void run_backward(PoolMode mode, const Array& gy, const Array& indices, const Array& gx, const PoolParams& p) {
    if (gx.size() == 0) return;
    kernels_of(gy).pool_backward(
        {.mode = mode, .gy = gy, .indices = indices, .gx = gx, .ksize = p.ksize, .stride = p.stride, .pad = p.pad});
}

}  // namespace

int64_t pooling_outsize(int64_t size, int64_t k, int64_t s, int64_t p, bool cover_all) {
    return floor_div(size + p * 2 - k + (cover_all ? s - 1 : 0), s) + 1;
}

int64_t unpooling_outsize(int64_t size, int64_t k, int64_t s, int64_t p, bool cover_all) {
    return s * (size - 1) + k - 2 * p + (cover_all ? 1 - s : 0);
}

Shape pooling_output_shape(const Shape& x_shape, const PoolParams& params, std::string_view op) {
    check_params(params, op);
    const int nd = params.ksize.size();
    RENSA_CHECK(static_cast<int>(x_shape.size()) == nd + 2, DimensionError, op, ": Expect: x.ndim == ", nd + 2,
                ", Actual: ", x_shape.size(), " (x.shape ", x_shape, ", ksize ", params.ksize, ")");
    Shape out{x_shape[0], x_shape[1]};
    for (int i = 0; i < nd; ++i) {
        const int64_t o =
            pooling_outsize(x_shape[2 + i], params.ksize[i], params.stride[i], params.pad[i], params.cover_all);
        RENSA_CHECK(o >= 1, DimensionError, op, ": the output size is not positive: input ", x_shape, ", ksize ",
                    params.ksize, ", stride ", params.stride, ", pad ", params.pad);
        out.push_back(o);
    }
    return out;
}

MaxPoolResult max_pool(const Array& x, const PoolParams& params, bool with_indices, std::string_view op) {
    check_float(x, op, "x");
    const Shape out = pooling_output_shape(x.shape(), params, op);
    MaxPoolResult r{Array::empty(out, x.dtype(), x.device()),
                    with_indices ? Array::empty(out, Dtype::kInt64, x.device()) : Array{}};
    if (r.y.size() == 0) return r;
    kernels_of(x).pool({.mode = PoolMode::kMax,
                        .x = x,
                        .y = r.y,
                        .indices = r.indices,
                        .ksize = params.ksize,
                        .stride = params.stride,
                        .pad = params.pad});
    return r;
}

Array average_pool(const Array& x, const PoolParams& params, bool exclude_pad, std::string_view op) {
    check_float(x, op, "x");
    Array y = Array::empty(pooling_output_shape(x.shape(), params, op), x.dtype(), x.device());
    if (y.size() == 0) return y;
    kernels_of(x).pool({.mode = exclude_pad ? PoolMode::kAverageExcludePad : PoolMode::kAverage,
                        .x = x,
                        .y = y,
                        .indices = Array{},
                        .ksize = params.ksize,
                        .stride = params.stride,
                        .pad = params.pad});
    return y;
}

Array max_pool_backward(const Array& gy, const Array& indices, const Shape& x_shape, const PoolParams& params,
                        std::string_view op) {
    check_float(gy, op, "gy");
    const Shape out = pooling_output_shape(x_shape, params, op);
    RENSA_CHECK(gy.shape() == out, DimensionError, op, ": gy shape ", gy.shape(), " does not match the pooled shape ",
                out);
    check_indices(indices, out, op);
    RENSA_CHECK(indices.device() == gy.device(), DeviceError, op, ": indices on ", indices.device(), ", gy on ",
                gy.device());
    Array gx = Array::empty(x_shape, gy.dtype(), gy.device());
    run_backward(PoolMode::kMax, gy, indices, gx, params);
    return gx;
}

Array average_pool_backward(const Array& gy, const Shape& x_shape, const PoolParams& params, bool exclude_pad,
                            std::string_view op) {
    check_float(gy, op, "gy");
    const Shape out = pooling_output_shape(x_shape, params, op);
    RENSA_CHECK(gy.shape() == out, DimensionError, op, ": gy shape ", gy.shape(), " does not match the pooled shape ",
                out);
    Array gx = Array::empty(x_shape, gy.dtype(), gy.device());
    run_backward(exclude_pad ? PoolMode::kAverageExcludePad : PoolMode::kAverage, gy, Array{}, gx, params);
    return gx;
}

Array max_pool_gather(const Array& gx, const Array& indices, std::string_view op) {
    check_float(gx, op, "gx");
    RENSA_CHECK(gx.ndim() >= 3 && indices.ndim() == gx.ndim() && indices.shape()[0] == gx.shape()[0] &&
                    indices.shape()[1] == gx.shape()[1],
                DimensionError, op, ": gx shape ", gx.shape(), " and indices shape ", indices.shape(),
                " must be (n, c, *in) and (n, c, *out)");
    check_indices(indices, indices.shape(), op);
    const int64_t planes = gx.shape()[0] * gx.shape()[1];
    const int64_t plane = planes == 0 ? 0 : gx.size() / planes;
    // Flat positions into gx followed by one zero, where out-of-plane indices point.
    const Array flat_gx = concatenate({gx.reshape({gx.size()}), zeros({1}, gx.dtype(), gx.device())});
    Shape base_shape{gx.shape()[0], gx.shape()[1]};
    while (base_shape.size() < indices.shape().size()) base_shape.push_back(1);
    const Array base = multiply(arange(planes, Dtype::kInt64, gx.device()).reshape(base_shape), plane);
    const Array valid = logical_and(greater_equal(indices, 0), less(indices, plane));
    return take(flat_gx, where(valid, add(indices, base), Scalar(gx.size())));
}

}  // namespace rensa::ops
