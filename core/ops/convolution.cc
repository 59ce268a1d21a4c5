// convolution, convolution_backward_data and convolution_backward_filter: validate,
// compute the output sizes (cover_all lives here), allocate, and call the device's kernels.

#include "core/ops/convolution.h"

#include "core/backend.h"
#include "core/error.h"
#include "core/ops/elementwise.h"

namespace rensa::ops {
namespace {

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }

Shape spatial(const Shape& shape) { return Shape(shape.begin() + 2, shape.end()); }

Shape concat(std::initializer_list<int64_t> head, const Shape& tail) {
    Shape shape(head);
    for (int64_t d : tail) shape.push_back(d);
    return shape;
}

void check_float_operand(const Array& a, Dtype dtype, std::string_view op, const char* name) {
    RENSA_CHECK(is_float(a.dtype()), DtypeError, op, ": Expect: ", name,
                ".dtype.kind == 'f', Actual: ", dtype_name(a.dtype()));
    RENSA_CHECK(a.dtype() == dtype, DtypeError, op, ": Expect: ", name, ".dtype == ", dtype_name(dtype),
                ", Actual: ", dtype_name(a.dtype()));
}

void check_device(const Array& a, const Array& b, std::string_view op) {
    RENSA_CHECK(a.device() == b.device(), DeviceError, op, ": operands are on different devices, ", a.device(), " and ",
                b.device());
}

// Ranks, dtypes, devices and the parameters shared by the three routines; `a` holds
// the batch and `w` the filter (x and w, gy and w, or x and gy for the filter gradient).
void check_common(const Array& a, const Array& w, const ConvolutionParams& p, std::string_view op, const char* a_name,
                  const char* w_name) {
    RENSA_CHECK(a.ndim() >= 3 && a.ndim() <= 5, DimensionError, op, ": Expect: ", a_name,
                ".ndim in (3, 4, 5) (1 to 3 spatial dims), Actual: ", a.ndim(), " (shape ", a.shape(), ")");
    RENSA_CHECK(w.ndim() == a.ndim(), DimensionError, op, ": Expect: ", w_name, ".ndim == ", a_name,
                ".ndim, Actual: ", w.ndim(), " != ", a.ndim(), " (shapes ", w.shape(), " and ", a.shape(), ")");
    check_float_operand(a, a.dtype(), op, a_name);
    check_float_operand(w, a.dtype(), op, w_name);
    check_device(a, w, op);
    const int nd = a.ndim() - 2;
    RENSA_CHECK(p.stride.size() == nd && p.pad.size() == nd && p.dilate.size() == nd, ValueError, op,
                ": stride, pad and dilate need ", nd, " entries each, got ", p.stride, ", ", p.pad, " and ", p.dilate);
    for (int i = 0; i < nd; ++i) {
        RENSA_CHECK(p.stride[i] >= 1, ValueError, op, ": stride must be positive, got ", p.stride);
        RENSA_CHECK(p.dilate[i] >= 1, ValueError, op, ": dilate must be positive, got ", p.dilate);
        RENSA_CHECK(p.pad[i] >= 0, ValueError, op, ": pad must be non-negative, got ", p.pad);
    }
    RENSA_CHECK(p.groups >= 1, ValueError, op, ": groups must be positive, got ", p.groups);
}

// The output spatial size a convolution of `in` with kernel `k` gives; each must be positive.
Shape out_size(const Shape& in, const Shape& k, const ConvolutionParams& p, std::string_view op) {
    Shape out;
    for (int i = 0; i < in.size(); ++i) {
        out.push_back(conv_outsize(in[i], k[i], p.stride[i], p.pad[i], p.cover_all, p.dilate[i]));
        RENSA_CHECK(out[i] > 0, DimensionError, op, ": the output size would be ", out[i], " in spatial dim ", i,
                    " (input ", in, ", kernel ", k, ", stride ", p.stride, ", pad ", p.pad, ", dilate ", p.dilate, ")");
    }
    return out;
}

void check_groups(int64_t channels, const char* what, int64_t groups, std::string_view op) {
    RENSA_CHECK(channels % groups == 0, DimensionError, op, ": the number of ", what, " channels ", channels,
                " must be a multiple of groups=", groups);
}

}  // namespace

int64_t conv_outsize(int64_t size, int64_t k, int64_t s, int64_t p, bool cover_all, int64_t d) {
    const int64_t dk = k + (k - 1) * (d - 1);
    return cover_all ? floor_div(size + p * 2 - dk + s - 1, s) + 1 : floor_div(size + p * 2 - dk, s) + 1;
}

int64_t deconv_outsize(int64_t size, int64_t k, int64_t s, int64_t p, bool cover_all, int64_t d) {
    const int64_t dk = (k - 1) * d + 1;
    return cover_all ? s * (size - 1) + dk - s + 1 - 2 * p : s * (size - 1) + dk - 2 * p;
}

Array convolution(const Array& x, const Array& w, const Array& b, const ConvolutionParams& params,
                  std::string_view op) {
    check_common(x, w, params, op, "x", "W");
    const int64_t c_in = x.shape()[1], c_out = w.shape()[0], groups = params.groups;
    check_groups(c_out, "output", groups, op);
    RENSA_CHECK(c_in == w.shape()[1] * groups, DimensionError, op, ": Expect: x.shape[1] == W.shape[1] * groups, ",
                "Actual: ", c_in, " != ", w.shape()[1], " * ", groups, " (x ", x.shape(), ", W ", w.shape(), ")");
    if (b.defined()) {
        check_float_operand(b, x.dtype(), op, "b");
        check_device(x, b, op);
        RENSA_CHECK(b.ndim() == 1 && b.shape()[0] == c_out, DimensionError, op,
                    ": Expect: b.shape == (W.shape[0],), Actual: ", b.shape(), " vs W ", w.shape());
    }
    const Array y =
        Array::empty(concat({x.shape()[0], c_out}, out_size(spatial(x.shape()), spatial(w.shape()), params, op)),
                     x.dtype(), x.device());
    if (y.size() == 0) return y;
    if (x.size() == 0 || w.size() == 0) {  // nothing to sum: only the bias
        y.fill(0);
        if (b.defined()) add_inplace(y, b.reshape(concat({c_out}, Shape(y.ndim() - 2, 1))));
        return y;
    }
    global_context()
        .kernels(x.device())
        .convolution({.x = x,
                      .w = w,
                      .b = b,
                      .y = y,
                      .stride = params.stride,
                      .pad = params.pad,
                      .dilate = params.dilate,
                      .groups = groups});
    return y;
}

Array convolution_backward_data(const Array& gy, const Array& w, const Shape& x_size, const ConvolutionParams& params,
                                std::string_view op) {
    check_common(gy, w, params, op, "x", "W");
    const int64_t groups = params.groups;
    RENSA_CHECK(gy.shape()[1] == w.shape()[0], DimensionError, op,
                ": Expect: x.shape[1] == W.shape[0], Actual: ", gy.shape()[1], " != ", w.shape()[0], " (x ", gy.shape(),
                ", W ", w.shape(), ")");
    check_groups(w.shape()[0], "input", groups, op);
    RENSA_CHECK(x_size.size() == gy.ndim() - 2, ValueError, op, ": outsize needs ", gy.ndim() - 2, " entries, got ",
                x_size);
    const Shape k = spatial(w.shape());
    for (int i = 0; i < x_size.size(); ++i) {
        RENSA_CHECK(x_size[i] > 0 && out_size({x_size[i]}, {k[i]},
                                              {.stride = {params.stride[i]},
                                               .pad = {params.pad[i]},
                                               .dilate = {params.dilate[i]},
                                               .cover_all = params.cover_all},
                                              op)[0] == gy.shape()[i + 2],
                    DimensionError, op, ": outsize ", x_size, " does not map to the input's spatial size ",
                    spatial(gy.shape()), " (kernel ", k, ", stride ", params.stride, ", pad ", params.pad, ")");
    }
    const Array gx = Array::empty(concat({gy.shape()[0], w.shape()[1] * groups}, x_size), gy.dtype(), gy.device());
    if (gx.size() == 0) return gx;
    if (gy.size() == 0 || w.size() == 0) {
        gx.fill(0);
        return gx;
    }
    global_context()
        .kernels(gy.device())
        .convolution_backward_data({.gy = gy,
                                    .w = w,
                                    .gx = gx,
                                    .stride = params.stride,
                                    .pad = params.pad,
                                    .dilate = params.dilate,
                                    .groups = groups});
    return gx;
}

Array convolution_backward_filter(const Array& x, const Array& gy, const Shape& k_size, const ConvolutionParams& params,
                                  std::string_view op) {
    check_common(x, gy, params, op, "x", "gy");
    const int64_t groups = params.groups;
    check_groups(x.shape()[1], "input", groups, op);
    check_groups(gy.shape()[1], "output", groups, op);
    RENSA_CHECK(x.shape()[0] == gy.shape()[0], DimensionError, op, ": x and gy batch sizes differ: ", x.shape(),
                " and ", gy.shape());
    RENSA_CHECK(k_size.size() == x.ndim() - 2, ValueError, op, ": ksize needs ", x.ndim() - 2, " entries, got ",
                k_size);
    RENSA_CHECK(out_size(spatial(x.shape()), k_size, params, op) == spatial(gy.shape()), DimensionError, op,
                ": gy's spatial size ", spatial(gy.shape()), " does not match x ", x.shape(), " and kernel ", k_size);
    const Array gw = Array::empty(concat({gy.shape()[1], x.shape()[1] / groups}, k_size), x.dtype(), x.device());
    if (gw.size() == 0) return gw;
    if (x.size() == 0 || gy.size() == 0) {
        gw.fill(0);
        return gw;
    }
    global_context()
        .kernels(x.device())
        .convolution_backward_filter({.x = x,
                                      .gy = gy,
                                      .gw = gw,
                                      .stride = params.stride,
                                      .pad = params.pad,
                                      .dilate = params.dilate,
                                      .groups = groups});
    return gw;
}

}  // namespace rensa::ops
