// rensa.functions, issue 23's spatial functions with Chainer's signatures:
// spatial_transformer_grid(theta, output_shape), spatial_transformer_sampler(x, grid) (both
// refuse Chainer's removed use_cudnn keyword as Chainer does), local_convolution_2d,
// deformable_convolution_2d_sampler, shift, unpooling_1d / unpooling_3d / unpooling_nd.
#include <string>
#include <utility>

#include "core/error.h"
#include "python/src/functions/functions.h"

namespace rensa::python::functions_bind {
namespace {

using Release = py::call_guard<py::gil_scoped_release>;

// Chainer's check_unexpected_kwargs(use_cudnn=...) + assert_kwargs_empty.
void check_no_kwargs(const py::kwargs& kwargs, const char* op) {
    if (kwargs.contains("use_cudnn")) {
        throw py::value_error(
            "The argument \"use_cudnn\" is not supported anymore. Use chainer.using_config('use_cudnn', value) "
            "context where value can be `always`, `never`, or `auto`.");
    }
    if (kwargs.size() > 0) {
        std::string names;
        for (const auto& item : kwargs)
            names += (names.empty() ? "'" : ", '") + py::str(item.first).cast<std::string>() + "'";
        throw py::type_error(std::string(op) + "() got unexpected keyword argument(s) " + names);
    }
}

std::pair<int64_t, int64_t> output_pair(const Ints& output_shape) {
    const Shape s = to_int_or_tuple(output_shape).expand(2, "spatial_transformer_grid", "output_shape");
    return {s[0], s[1]};
}

void bind_unpooling(py::module_& f, const char* name,
                    Variable (*fn)(const Variable&, F::PoolingSize, const F::UnpoolingOptions&), const char* doc) {
    f.def(
        name,
        [fn](const Variable& x, const Ints& ksize, const std::optional<Ints>& stride, const Ints& pad,
             const std::optional<Ints>& outsize, bool cover_all) {
            return fn(x, to_pooling_size(ksize), unpooling_options(stride, pad, outsize, cover_all));
        },
        py::arg("x"), py::arg("ksize"), py::arg("stride") = py::none(), py::arg("pad") = 0,
        py::arg("outsize") = py::none(), py::arg("cover_all") = true, Release(), doc);
}

// The docstrings of the unpooling functions bind_unpooling binds.
constexpr const char* kUnpooling1dDoc =
    R"doc(Inverse operation of 1-dimensional spatial pooling: :func:`unpooling_nd` with x of three dimensions.

:param x: Input ``(n, c, l)``.
:param ksize: Size of the pooling window, an int or a tuple of ints.
:param stride: Stride of the window; None takes ``ksize``.
:param pad: Spatial padding width.
:param outsize: The output's spatial size, a tuple; None computes it as a deconvolution would. It
    must pool back to x's size (``DimensionError``).
:param cover_all: Whether the pooling being inverted used ``cover_all``.
:returns: The unpooled variable. Linear, so differentiable any number of times.)doc";

constexpr const char* kUnpooling3dDoc =
    R"doc(Inverse operation of 3-dimensional spatial pooling: :func:`unpooling_nd` with x of five dimensions.

:param x: Input ``(n, c, d, h, w)``.
:param ksize: Size of the pooling window, an int or a tuple of ints.
:param stride: Stride of the window; None takes ``ksize``.
:param pad: Spatial padding width.
:param outsize: The output's spatial size, a tuple; None computes it as a deconvolution would. It
    must pool back to x's size (``DimensionError``).
:param cover_all: Whether the pooling being inverted used ``cover_all``.
:returns: The unpooled variable. Linear, so differentiable any number of times.)doc";

constexpr const char* kUnpoolingNdDoc =
    R"doc(Inverse operation of N-dimensional spatial pooling: each element of ``x`` fills its window of the
output, overlapping windows adding up.

rensa supports 1 to 3 spatial dimensions (x of 3 to 5 dimensions, ``DimensionError`` otherwise);
Chainer has no limit.

:param x: Input ``(n, c, d_1, ..., d_N)``.
:param ksize: Size of the pooling window, an int or a tuple of ints.
:param stride: Stride of the window; None takes ``ksize``.
:param pad: Spatial padding width.
:param outsize: The output's spatial size, a tuple; None computes it as a deconvolution would. It
    must pool back to x's size (``DimensionError``).
:param cover_all: Whether the pooling being inverted used ``cover_all``.
:returns: The unpooled variable. Linear, so differentiable any number of times.)doc";

}  // namespace

void bind_spatial(py::module_& f) {
    f.def(
        "spatial_transformer_grid",
        [](const Variable& theta, const Ints& output_shape, const py::kwargs& kwargs) {
            check_no_kwargs(kwargs, "spatial_transformer_grid");
            const auto shape = output_pair(output_shape);
            py::gil_scoped_release release;
            return F::spatial_transformer_grid(theta, shape);
        },
        py::arg("theta"), py::arg("output_shape"),
        R"doc(2D Affine grid generator for spatial transformer networks.

``grid[b, :, i, j] = theta[b] @ (x_j, y_i, 1)`` with ``x_j`` and ``y_i`` evenly spaced in
``[-1, 1]``. Chainer's removed ``use_cudnn`` keyword raises ``ValueError``, as in Chainer.

:param theta: Affine parameters ``(B, 2, 3)`` of a floating-point dtype.
:param output_shape: The grid's ``(H, W)``, positive.
:returns: A sampling grid ``(B, 2, H, W)``.)doc");
    f.def(
        "spatial_transformer_sampler",
        [](const Variable& x, const Variable& grid, const py::kwargs& kwargs) {
            check_no_kwargs(kwargs, "spatial_transformer_sampler");
            py::gil_scoped_release release;
            return F::spatial_transformer_sampler(x, grid);
        },
        py::arg("x"), py::arg("grid"),
        R"doc(2D spatial transformer sampler: bilinear sampling of ``x`` at the points of ``grid``.

Samples outside the image are zero. Chainer's removed ``use_cudnn`` keyword raises ``ValueError``,
as in Chainer.

:param x: Input images ``(B, C, H, W)`` of a floating-point dtype.
:param grid: Sampling points ``(B, 2, out_h, out_w)`` of x's dtype: ``grid[:, 0]`` horizontal and
    ``grid[:, 1]`` vertical, -1 and 1 being the centres of the first and last pixels.
:returns: A variable ``(B, C, out_h, out_w)``.)doc");
    f.def(
        "local_convolution_2d",
        [](const Variable& x, const Variable& W, const std::optional<Variable>& b, const Ints& stride) {
            return F::local_convolution_2d(x, W, to_variable_or_undefined(b), to_int_or_tuple(stride));
        },
        py::arg("x"), py::arg("W"), py::arg("b") = py::none(), py::arg("stride") = 1, Release(),
        R"doc(Two-dimensional locally connected convolution: one filter per output position, no padding.

:param x: Input ``(n, c_in, h, w)``.
:param W: Filters ``(c_out, out_h, out_w, c_in, kh, kw)`` of x's dtype.
:param b: Bias ``(c_out, out_h, out_w)``, or None.
:param stride: Stride, an int or ``(sy, sx)``.
:returns: A variable ``(n, c_out, out_h, out_w)``.)doc");
    f.def(
        "deformable_convolution_2d_sampler",
        [](const Variable& x, const Variable& offset, const Variable& W, const std::optional<Variable>& b,
           const Ints& stride, const Ints& pad) {
            return F::deformable_convolution_2d_sampler(x, offset, W, to_variable_or_undefined(b),
                                                        to_int_or_tuple(stride), to_int_or_tuple(pad));
        },
        py::arg("x"), py::arg("offset"), py::arg("W"), py::arg("b") = py::none(), py::arg("stride") = 1,
        py::arg("pad") = 0, Release(),
        R"doc(Two-dimensional deformable convolution function using computed offsets.

Tap ``(ky, kx)`` of output ``(i, j)`` samples the zero-padded ``x`` bilinearly at
``(i * sy + ky + offset_y, j * sx + kx + offset_x)``.

:param x: Input ``(n, c_in, h, w)``.
:param offset: Offsets ``(n, 2 * kh * kw, out_h, out_w)``: the horizontal offsets of the
    ``kh * kw`` taps first, then the vertical ones.
:param W: Filters ``(c_out, c_in, kh, kw)``.
:param b: Bias ``(c_out,)``, or None.
:param stride: Stride, an int or ``(sy, sx)``.
:param pad: Padding width, an int or ``(ph, pw)``.
:returns: A variable ``(n, c_out, out_h, out_w)``.)doc");
    f.def(
        "shift",
        [](const Variable& x, const Ints& ksize, const Ints& dilate) {
            return F::shift(x, to_int_or_tuple(ksize), to_int_or_tuple(dilate));
        },
        py::arg("x"), py::arg("ksize") = 3, py::arg("dilate") = 1, Release(),
        R"doc(Shift operation from "Shift: A Zero FLOP, Zero Parameter Alternative to Spatial Convolutions".

The channels are split into ``kh * kw`` groups, each translated by its window offset (zeros fill
in); the last group takes the remainder and the centre offset.

:param x: Input ``(n, c, h, w)`` with ``c >= kh * kw``.
:param ksize: Size of the window, an int or a pair of odd ints.
:param dilate: Dilation of the offsets, an int or a pair (negative shifts the other way).
:returns: A variable of x's shape.)doc");
    bind_unpooling(f, "unpooling_1d", &F::unpooling_1d, kUnpooling1dDoc);
    bind_unpooling(f, "unpooling_3d", &F::unpooling_3d, kUnpooling3dDoc);
    bind_unpooling(f, "unpooling_nd", &F::unpooling_nd, kUnpoolingNdDoc);
}

}  // namespace rensa::python::functions_bind
