// Batch normalization routines: validate, view x as the kernels' (n, c, s) layout
// (a transposed copy when the kept axes are not adjacent), and call the device kernels.

#include "core/ops/normalization.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "core/backend.h"
#include "core/error.h"
#include "core/ops/elementwise.h"

namespace rensa::ops {
namespace {

// How x maps to the kernels' (n, c, s): `perm` (when set) moves the reduced axes first.
struct KernelView {
    Shape shape;  // (n, c, s)
    std::optional<Axes> perm;
    Shape channel_shape;  // x's shape without the reduced axes
};

int64_t product(const Shape& shape, int begin, int end) {
    int64_t p = 1;
    for (int i = begin; i < end; ++i) p *= shape[i];
    return p;
}

KernelView kernel_view(const Shape& shape, const Axes& axes) {
    const int ndim = shape.size();
    Axes kept;
    for (int i = 0; i < ndim; ++i) {
        if (std::find(axes.begin(), axes.end(), i) == axes.end()) kept.push_back(i);
    }
    KernelView view;
    for (int k : kept) view.channel_shape.push_back(shape[k]);
    if (kept.empty()) {
        view.shape = {1, 1, shape_size(shape)};
    } else if (kept.back() - kept[0] + 1 == kept.size()) {
        view.shape = {product(shape, 0, kept[0]), product(shape, kept[0], kept.back() + 1),
                      product(shape, kept.back() + 1, ndim)};
    } else {
        Axes perm = axes;
        std::sort(perm.begin(), perm.end());
        int64_t n = 1;
        for (int a : perm) n *= shape[a];
        for (int k : kept) perm.push_back(k);
        view.shape = {n, shape_size(view.channel_shape), 1};
        view.perm = perm;
    }
    return view;
}

Array to_kernel(const Array& x, const KernelView& view) {
    const Array moved = view.perm ? x.transpose(*view.perm) : x;
    return moved.as_contiguous().reshape(view.shape);
}

// Undoes to_kernel on a kernel-layout result of x's shape.
Array from_kernel(const Array& y3, const Shape& x_shape, const KernelView& view) {
    if (!view.perm) return y3.reshape(x_shape);
    Shape moved;
    Axes inverse(view.perm->size(), 0);
    for (int i = 0; i < view.perm->size(); ++i) {
        moved.push_back(x_shape[(*view.perm)[i]]);
        inverse[(*view.perm)[i]] = i;
    }
    return y3.reshape(moved).transpose(inverse);
}

// A per-channel parameter as a contiguous (c) array of the compute dtype.
Array channel_param(const Array& p, Dtype dtype) { return p.astype(dtype, false).as_contiguous().reshape({p.size()}); }

void check_float(const Array& a, std::string_view op, std::string_view name) {
    RENSA_CHECK(is_float(a.dtype()), DtypeError, op, ": ", name, " must be floating point, got ",
                dtype_name(a.dtype()));
}

void check_param(const Array& p, const KernelView& view, const Device& device, std::string_view op,
                 std::string_view name) {
    check_float(p, op, name);
    RENSA_CHECK(p.shape() == view.channel_shape, DimensionError, op, ": ", name, ".shape=", p.shape(),
                " must be x's shape without the reduced axes, ", view.channel_shape);
    RENSA_CHECK(p.device() == device, DeviceError, op, ": ", name, " is on ", p.device(), " but x is on ", device);
}

KernelView validated_view(const Array& x, const Axes& axes, std::string_view op) {
    check_float(x, op, "x");
    const Axes normalized = normalize_axes(axes, x.ndim(), op);
    return kernel_view(x.shape(), normalized);
}

}  // namespace

Axes batch_norm_default_axes(int x_ndim, int gamma_ndim) {
    Axes axes{0};
    for (int i = gamma_ndim + 1; i < x_ndim; ++i) axes.push_back(i);
    return axes;
}

Dtype batch_norm_stat_dtype(Dtype x_dtype) {
    return x_dtype == Dtype::kFloat16 || x_dtype == Dtype::kBFloat16 ? Dtype::kFloat32 : x_dtype;
}

BatchNormResult batch_norm(const Array& x, const Array& gamma, const Array& beta, const Axes& axes, double eps) {
    const KernelView view = validated_view(x, axes, "batch_norm");
    check_param(gamma, view, x.device(), "batch_norm", "gamma");
    check_param(beta, view, x.device(), "batch_norm", "beta");
    const Dtype sd = batch_norm_stat_dtype(x.dtype());
    const int64_t c = view.shape[1];
    BatchNormArgs args{.x = to_kernel(x, view),
                       .gamma = channel_param(gamma, sd),
                       .beta = channel_param(beta, sd),
                       .mean = Array::empty({c}, sd, x.device()),
                       .inv_std = Array::empty({c}, sd, x.device()),
                       .compute_stats = true,
                       .eps = eps,
                       .y = Array::empty(view.shape, x.dtype(), x.device())};
    global_context().kernels(x.device()).batch_norm(args);
    return {from_kernel(args.y, x.shape(), view), args.mean.reshape(view.channel_shape),
            args.inv_std.reshape(view.channel_shape)};
}

Array fixed_batch_norm(const Array& x, const Array& gamma, const Array& beta, const Array& mean, const Array& var,
                       const Axes& axes, double eps) {
    const KernelView view = validated_view(x, axes, "fixed_batch_norm");
    check_param(gamma, view, x.device(), "fixed_batch_norm", "gamma");
    check_param(beta, view, x.device(), "fixed_batch_norm", "beta");
    check_param(mean, view, x.device(), "fixed_batch_norm", "mean");
    check_param(var, view, x.device(), "fixed_batch_norm", "var");
    const Dtype sd = batch_norm_stat_dtype(x.dtype());
    const Array var_s = channel_param(var, sd);
    BatchNormArgs args{.x = to_kernel(x, view),
                       .gamma = channel_param(gamma, sd),
                       .beta = channel_param(beta, sd),
                       .mean = channel_param(mean, sd),
                       .inv_std = rsqrt(add(var_s, eps)).as_contiguous(),
                       .compute_stats = false,
                       .eps = eps,
                       .y = Array::empty(view.shape, x.dtype(), x.device())};
    global_context().kernels(x.device()).batch_norm(args);
    return from_kernel(args.y, x.shape(), view);
}

BatchNormGrads batch_norm_backward(const Array& x, const Array& gamma, const Array& mean, const Array& inv_std,
                                   const Array& gy, const Axes& axes) {
    const KernelView view = validated_view(x, axes, "batch_norm_backward");
    check_param(gamma, view, x.device(), "batch_norm_backward", "gamma");
    check_param(mean, view, x.device(), "batch_norm_backward", "mean");
    check_param(inv_std, view, x.device(), "batch_norm_backward", "inv_std");
    RENSA_CHECK(gy.shape() == x.shape(), DimensionError, "batch_norm_backward: gy.shape=", gy.shape(),
                " must equal x.shape=", x.shape());
    const Dtype sd = batch_norm_stat_dtype(x.dtype());
    const int64_t c = view.shape[1];
    BatchNormBackwardArgs args{.x = to_kernel(x, view),
                               .gamma = channel_param(gamma, sd),
                               .mean = channel_param(mean, sd),
                               .inv_std = channel_param(inv_std, sd),
                               .gy = to_kernel(gy.astype(x.dtype(), false), view),
                               .gx = Array::empty(view.shape, x.dtype(), x.device()),
                               .ggamma = Array::empty({c}, sd, x.device()),
                               .gbeta = Array::empty({c}, sd, x.device())};
    global_context().kernels(x.device()).batch_norm_backward(args);
    return {from_kernel(args.gx, x.shape(), view), args.ggamma.reshape(view.channel_shape).astype(gamma.dtype(), false),
            args.gbeta.reshape(view.channel_shape).astype(gamma.dtype(), false)};
}

}  // namespace rensa::ops
