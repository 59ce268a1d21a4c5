// rensa.functions: max / average pooling (1-d to 3-d), unpooling_2d, upsampling_2d and
// spatial_pyramid_pooling_2d. stride=None means ksize, as in Chainer; return_indices=True
// also returns the argmax indexes (a numpy array) that upsampling_2d takes.
#include <string>
#include <utility>

#include "core/error.h"
#include "python/src/functions/functions.h"

namespace rensa::python::functions_bind {
namespace {

using Release = py::call_guard<py::gil_scoped_release>;

F::MaxPoolingOptions max_options(const std::optional<Ints>& stride, const Ints& pad, bool cover_all) {
    return {.stride = to_pooling_size(stride), .pad = to_pooling_size(pad), .cover_all = cover_all};
}

// The indexes exist for 2-d pooling only (the C++ library keeps none for other ranks).
py::object max_pooling(const char* name, int spatial, const Variable& x, const Ints& ksize,
                       const std::optional<Ints>& stride, const Ints& pad, bool cover_all, bool return_indices) {
    const F::MaxPoolingOptions options = max_options(stride, pad, cover_all);
    if (spatial > 0) {
        RENSA_CHECK(x.ndim() == spatial + 2, DimensionError, name, ": x.ndim=", x.ndim(), " but ", spatial + 2,
                    " is expected (n, c, ", spatial, " spatial dims)");
    }
    if (return_indices) {
        RENSA_CHECK(x.ndim() == 4, NotImplementedError, name,
                    ": return_indices=True is supported for 2 spatial dims only, x.ndim=", x.ndim());
        std::pair<Variable, Array> result;
        {
            py::gil_scoped_release release;
            result = F::max_pooling_2d_with_indexes(x, to_pooling_size(ksize), options);
        }
        return py::make_tuple(result.first, to_numpy(result.second));
    }
    Variable y;
    {
        py::gil_scoped_release release;
        y = spatial == 2 ? F::max_pooling_2d(x, to_pooling_size(ksize), options)
                         : F::max_pooling_nd(x, to_pooling_size(ksize), options);
    }
    return py::cast(std::move(y));
}

template <int kSpatial>
Variable average_pooling(const Variable& x, const Ints& ksize, const std::optional<Ints>& stride, const Ints& pad,
                         std::optional<double> pad_value) {
    const F::AveragePoolingOptions options{
        .stride = to_pooling_size(stride), .pad = to_pooling_size(pad), .pad_value = pad_value};
    if (kSpatial == 2) return F::average_pooling_2d(x, to_pooling_size(ksize), options);
    if (kSpatial > 0) {
        RENSA_CHECK(x.ndim() == kSpatial + 2, DimensionError, "average_pooling_", kSpatial, "d: x.ndim=", x.ndim(),
                    " but ", kSpatial + 2, " is expected (n, c, ", kSpatial, " spatial dims)");
    }
    return F::average_pooling_nd(x, to_pooling_size(ksize), options);
}

// The docstrings of the max pooling functions, which one loop binds.
// The arguments after x, the same for every max_pooling_* (appended to each docstring below).
constexpr const char* kMaxPoolingArgsDoc = R"doc(
:param ksize: Size of the pooling window, an int or a tuple of ints (one per spatial dimension).
:param stride: Stride of the window; None takes ``ksize``.
:param pad: Spatial padding width.
:param cover_all: Compute one more output where the last window is partial (Chainer's default).
:param return_indices: Also return the argmax of each window (only with two spatial dimensions,
    ``NotImplementedError`` otherwise): an int64 numpy array of y's shape holding the flat position
    ``ky * kw + kx`` of each maximum in its window, the ``indexes`` of :func:`upsampling_2d`.
:returns: The pooled variable, or ``(y, indexes)`` with ``return_indices=True``.)doc";

constexpr const char* kMaxPooling2dDoc = R"doc(Spatial max pooling function.

The gradient routes to the first maximum of each window; differentiable twice.

:param x: Input ``(n, c, h, w)`` of a floating-point dtype.)doc";

constexpr const char* kMaxPoolingNdDoc = R"doc(N-dimensionally spatial max pooling function (1 to 3 spatial dimensions).

:param x: Input ``(n, c, d_1, ..., d_N)`` of a floating-point dtype.)doc";

constexpr const char* kMaxPooling1dDoc =
    R"doc(1-dimensional spatial max pooling function: :func:`max_pooling_nd` with x of three dimensions.

:param x: Input ``(n, c, l)`` of a floating-point dtype.)doc";

constexpr const char* kMaxPooling3dDoc =
    R"doc(3-dimensional spatial max pooling function: :func:`max_pooling_nd` with x of five dimensions.

:param x: Input ``(n, c, d, h, w)`` of a floating-point dtype.)doc";

void bind_max_pooling(py::module_& f) {
    struct Entry {
        const char* name;
        int spatial;  // 0: any (the _nd function)
        const char* doc;
    };
    for (const Entry entry :
         {Entry{"max_pooling_2d", 2, kMaxPooling2dDoc}, Entry{"max_pooling_nd", 0, kMaxPoolingNdDoc},
          Entry{"max_pooling_1d", 1, kMaxPooling1dDoc}, Entry{"max_pooling_3d", 3, kMaxPooling3dDoc}}) {
        f.def(
            entry.name,
            [entry](const Variable& x, const Ints& ksize, const std::optional<Ints>& stride, const Ints& pad,
                    bool cover_all, bool return_indices) {
                return max_pooling(entry.name, entry.spatial, x, ksize, stride, pad, cover_all, return_indices);
            },
            py::arg("x"), py::arg("ksize"), py::arg("stride") = py::none(), py::arg("pad") = 0,
            py::arg("cover_all") = true, py::arg("return_indices") = false,
            (std::string(entry.doc) + kMaxPoolingArgsDoc).c_str());
    }
}

}  // namespace

F::UnpoolingOptions unpooling_options(const std::optional<Ints>& stride, const Ints& pad,
                                      const std::optional<Ints>& outsize, bool cover_all) {
    return {.stride = to_pooling_size(stride),
            .pad = to_pooling_size(pad),
            .outsize = to_pooling_size(outsize),
            .cover_all = cover_all};
}

void bind_pooling(py::module_& f) {
    bind_max_pooling(f);
    f.def(
        "spatial_pyramid_pooling_2d",
        [](const Variable& x, int64_t pyramid_height, const std::optional<std::string>& pooling) {
            // Chainer's default pooling=None is refused as Chainer refuses it: 'max' must be named.
            RENSA_CHECK(pooling.has_value(), ValueError,
                        "spatial_pyramid_pooling_2d: Expect: pooling in ('max', 'average'), Actual: None");
            return F::spatial_pyramid_pooling_2d(x, pyramid_height, *pooling);
        },
        py::arg("x"), py::arg("pyramid_height"), py::arg("pooling") = py::none(), Release(),
        R"doc(Spatial pyramid pooling function: level ``l`` pools x into ``2 ** l`` by ``2 ** l`` bins.

:param x: Input ``(n, c, h, w)`` of a floating-point dtype.
:param pyramid_height: The number of pyramid levels (at least 1).
:param pooling: ``'max'`` or ``'average'`` (must be given, as in Chainer 7; ``'average'`` is a rensa
    extension).
:returns: A variable ``(n, c * sum_l 4 ** l, 1, 1)``, the levels concatenated along axis 1.)doc");
    // Chainer's average_pooling_2d has no pad_value (its padding counts as zeros); the _nd ones do.
    f.def(
        "average_pooling_2d",
        [](const Variable& x, const Ints& ksize, const std::optional<Ints>& stride, const Ints& pad) {
            return average_pooling<2>(x, ksize, stride, pad, 0.0);
        },
        py::arg("x"), py::arg("ksize"), py::arg("stride") = py::none(), py::arg("pad") = 0, Release(),
        R"doc(Spatial average pooling function.

As in Chainer, the padding counts as zeros (the divisor is the window size).

:param x: Input ``(n, c, h, w)`` of a floating-point dtype.
:param ksize: Size of the pooling window, an int or ``(kh, kw)``; ``(h, w)`` without padding is a
    global average.
:param stride: Stride of the window; None takes ``ksize``.
:param pad: Spatial padding width.
:returns: The pooled variable. Linear, so differentiable any number of times.)doc");
    f.def("average_pooling_nd", &average_pooling<0>, py::arg("x"), py::arg("ksize"), py::arg("stride") = py::none(),
          py::arg("pad") = 0, py::arg("pad_value") = 0.0, Release(),
          R"doc(N-dimensionally spatial average pooling function (1 to 3 spatial dimensions).

:param x: Input ``(n, c, d_1, ..., d_N)`` of a floating-point dtype.
:param ksize: Size of the pooling window, an int or a tuple of N ints.
:param stride: Stride of the window; None takes ``ksize``.
:param pad: Spatial padding width.
:param pad_value: 0: the padding counts as zeros (the divisor is the window size); None: the
    padding is left out of the divisor. Other values raise ``ValueError``.
:returns: The pooled variable.)doc");
    f.def("average_pooling_1d", &average_pooling<1>, py::arg("x"), py::arg("ksize"), py::arg("stride") = py::none(),
          py::arg("pad") = 0, py::arg("pad_value") = 0.0, Release(),
          R"doc(1-dimensional spatial average pooling function: :func:`average_pooling_nd` with x of three dimensions.

:param x: Input ``(n, c, l)`` of a floating-point dtype.
:param ksize: Size of the pooling window.
:param stride: Stride of the window; None takes ``ksize``.
:param pad: Padding width.
:param pad_value: 0 or None, as :func:`average_pooling_nd` takes it.
:returns: The pooled variable.)doc");
    f.def("average_pooling_3d", &average_pooling<3>, py::arg("x"), py::arg("ksize"), py::arg("stride") = py::none(),
          py::arg("pad") = 0, py::arg("pad_value") = 0.0, Release(),
          R"doc(3-dimensional spatial average pooling function: :func:`average_pooling_nd` with x of five dimensions.

:param x: Input ``(n, c, d, h, w)`` of a floating-point dtype.
:param ksize: Size of the pooling window, an int or a tuple of 3 ints.
:param stride: Stride of the window; None takes ``ksize``.
:param pad: Spatial padding width.
:param pad_value: 0 or None, as :func:`average_pooling_nd` takes it.
:returns: The pooled variable.)doc");
    f.def(
        "unpooling_2d",
        [](const Variable& x, const Ints& ksize, const std::optional<Ints>& stride, const Ints& pad,
           const std::optional<Ints>& outsize, bool cover_all) {
            return F::unpooling_2d(x, to_pooling_size(ksize), unpooling_options(stride, pad, outsize, cover_all));
        },
        py::arg("x"), py::arg("ksize"), py::arg("stride") = py::none(), py::arg("pad") = 0,
        py::arg("outsize") = py::none(), py::arg("cover_all") = true, Release(),
        R"doc(Inverse operation of pooling for 2d array: each element of ``x`` fills its window of the output.

Overlapping windows add up. Linear, so differentiable any number of times.

:param x: Input ``(n, c, h, w)``.
:param ksize: Size of the pooling window, an int or ``(kh, kw)``.
:param stride: Stride of the window; None takes ``ksize``.
:param pad: Spatial padding width.
:param outsize: The output's ``(out_h, out_w)``; None computes it as a deconvolution would. It must
    pool back to x's size (``DimensionError``).
:param cover_all: Whether the pooling being inverted used ``cover_all``.
:returns: A variable of shape ``(n, c, out_h, out_w)``.)doc");
    f.def(
        "upsampling_2d",
        [](const Variable& x, const py::object& indexes, const Ints& ksize, const std::optional<Ints>& stride,
           const Ints& pad, const std::optional<Ints>& outsize, bool cover_all) {
            const Array index_array = to_array_or_undefined(indexes);
            py::gil_scoped_release release;
            return F::upsampling_2d(x, index_array, to_pooling_size(ksize),
                                    unpooling_options(stride, pad, outsize, cover_all));
        },
        py::arg("x"), py::arg("indexes"), py::arg("ksize"), py::arg("stride") = py::none(), py::arg("pad") = 0,
        py::arg("outsize") = py::none(), py::arg("cover_all") = true,
        R"doc(Upsampling using pooling indices: the inverse of max pooling.

Each element of ``x`` goes to the position its index names in its window; other positions are 0
and overlaps add up.

:param x: Input ``(n, c, h, w)``.
:param indexes: The argmax indexes from ``max_pooling_2d(..., return_indices=True)`` with the same
    ``ksize``, ``stride``, ``pad`` and ``cover_all`` (x's shape). Indexes outside ``[0, kh * kw)``
    raise ``IndexError``.
:param ksize: Size of the pooling window.
:param stride: Stride of the window; None takes ``ksize``.
:param pad: Spatial padding width.
:param outsize: The output's ``(out_h, out_w)``, or None.
:param cover_all: Whether the max pooling used ``cover_all``.
:returns: A variable of shape ``(n, c, out_h, out_w)``.)doc");
}

}  // namespace rensa::python::functions_bind
