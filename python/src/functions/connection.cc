// rensa.functions, connection family: linear, convolutions (dilated_convolution_2d too),
// deconvolutions, embed_id, bilinear, and the n-step RNNs (n_step_lstm, n_step_bilstm,
// n_step_gru, n_step_bigru, n_step_rnn, n_step_birnn with Chainer's signature: ws / bs are
// lists of lists of Variables (or arrays), xs a list of time steps (B_t, in); ys comes back as
// a tuple of time steps, as in Chainer).
#include <string>
#include <tuple>
#include <utility>

#include "core/error.h"
#include "python/src/functions/functions.h"

namespace rensa::python::functions_bind {
namespace {

using Release = py::call_guard<py::gil_scoped_release>;

Variable convolution_nd(const Variable& x, const Variable& W, const std::optional<Variable>& b, const Ints& stride,
                        const Ints& pad, bool cover_all, const Ints& dilate, int64_t groups) {
    return F::convolution_nd(x, W, to_variable_or_undefined(b),
                             {.stride = to_int_or_tuple(stride),
                              .pad = to_int_or_tuple(pad),
                              .cover_all = cover_all,
                              .dilate = to_int_or_tuple(dilate),
                              .groups = groups});
}

Variable deconvolution_nd(const Variable& x, const Variable& W, const std::optional<Variable>& b, const Ints& stride,
                          const Ints& pad, const std::optional<std::vector<int64_t>>& outsize, const Ints& dilate,
                          int64_t groups) {
    return F::deconvolution_nd(x, W, to_variable_or_undefined(b),
                               {.stride = to_int_or_tuple(stride),
                                .pad = to_int_or_tuple(pad),
                                .outsize = outsize ? std::optional<Shape>{to_shape(*outsize)} : std::nullopt,
                                .dilate = to_int_or_tuple(dilate),
                                .groups = groups});
}

// Chainer's convolution_1d/_3d and deconvolution_1d/_3d: the N-d functions with the rank checked.
template <int kSpatial>
Variable convolution_fixed(const Variable& x, const Variable& W, const std::optional<Variable>& b, const Ints& stride,
                           const Ints& pad, bool cover_all, const Ints& dilate, int64_t groups) {
    RENSA_CHECK(x.ndim() == kSpatial + 2, DimensionError, "convolution_", kSpatial, "d: x.ndim=", x.ndim(), " but ",
                kSpatial + 2, " is expected (n, c, ", kSpatial, " spatial dims)");
    return convolution_nd(x, W, b, stride, pad, cover_all, dilate, groups);
}

template <int kSpatial>
Variable deconvolution_fixed(const Variable& x, const Variable& W, const std::optional<Variable>& b, const Ints& stride,
                             const Ints& pad, const std::optional<std::vector<int64_t>>& outsize, const Ints& dilate,
                             int64_t groups) {
    RENSA_CHECK(x.ndim() == kSpatial + 2, DimensionError, "deconvolution_", kSpatial, "d: x.ndim=", x.ndim(), " but ",
                kSpatial + 2, " is expected (n, c, ", kSpatial, " spatial dims)");
    return deconvolution_nd(x, W, b, stride, pad, outsize, dilate, groups);
}

void bind_convolutions(py::module_& f) {
    f.def(
        "convolution_2d",
        [](const Variable& x, const Variable& W, const std::optional<Variable>& b, const Ints& stride, const Ints& pad,
           bool cover_all, const Ints& dilate, int64_t groups) {
            return F::convolution_2d(x, W, to_variable_or_undefined(b),
                                     {.stride = to_int_or_tuple(stride),
                                      .pad = to_int_or_tuple(pad),
                                      .cover_all = cover_all,
                                      .dilate = to_int_or_tuple(dilate),
                                      .groups = groups});
        },
        py::arg("x"), py::arg("W"), py::arg("b") = py::none(), py::arg("stride") = 1, py::arg("pad") = 0,
        py::arg("cover_all") = false, py::kw_only(), py::arg("dilate") = 1, py::arg("groups") = 1, Release(),
        R"doc(Two-dimensional convolution function.

:param x: Input ``(n, c_in, h, w)``.
:param W: Filters ``(c_out, c_in / groups, kh, kw)``, of x's floating-point dtype.
:param b: Bias ``(c_out,)``, or None.
:param stride: Stride of the filter application, an int or ``(sy, sx)``.
:param pad: Spatial padding width, an int or ``(ph, pw)``.
:param cover_all: Compute one more output where the last window is partial.
:param dilate: Keyword only: dilation factor, an int or ``(dy, dx)``.
:param groups: Keyword only: the number of channel groups.
:returns: A variable of shape ``(n, c_out, out_h, out_w)``. Differentiable twice.)doc");
    f.def(
        "deconvolution_2d",
        [](const Variable& x, const Variable& W, const std::optional<Variable>& b, const Ints& stride, const Ints& pad,
           const std::optional<std::vector<int64_t>>& outsize, const Ints& dilate, int64_t groups) {
            return F::deconvolution_2d(x, W, to_variable_or_undefined(b),
                                       {.stride = to_int_or_tuple(stride),
                                        .pad = to_int_or_tuple(pad),
                                        .outsize = outsize ? std::optional<Shape>{to_shape(*outsize)} : std::nullopt,
                                        .dilate = to_int_or_tuple(dilate),
                                        .groups = groups});
        },
        py::arg("x"), py::arg("W"), py::arg("b") = py::none(), py::arg("stride") = 1, py::arg("pad") = 0,
        py::arg("outsize") = py::none(), py::kw_only(), py::arg("dilate") = 1, py::arg("groups") = 1, Release(),
        R"doc(Two-dimensional deconvolution (transposed convolution) function.

:param x: Input ``(n, c_in, h, w)``.
:param W: Filters ``(c_in, c_out / groups, kh, kw)``, of x's floating-point dtype.
:param b: Bias ``(c_out,)``, or None.
:param stride: Stride of the filter application, an int or ``(sy, sx)``.
:param pad: Spatial padding width, an int or ``(ph, pw)``.
:param outsize: The output's ``(out_h, out_w)``; None computes the smallest size.
:param dilate: Keyword only: dilation factor, an int or ``(dy, dx)``.
:param groups: Keyword only: the number of channel groups.
:returns: A variable of shape ``(n, c_out, out_h, out_w)``. Differentiable twice.)doc");

    f.def("convolution_nd", &convolution_nd, py::arg("x"), py::arg("W"), py::arg("b") = py::none(),
          py::arg("stride") = 1, py::arg("pad") = 0, py::arg("cover_all") = false, py::arg("dilate") = 1,
          py::arg("groups") = 1, Release(),
          R"doc(N-dimensional convolution function (1 to 3 spatial dimensions).

:param x: Input ``(n, c_in, d_1, ..., d_N)``.
:param W: Filters ``(c_out, c_in / groups, k_1, ..., k_N)``, of x's floating-point dtype.
:param b: Bias ``(c_out,)``, or None.
:param stride: Stride, an int or a tuple of N ints.
:param pad: Spatial padding width, an int or a tuple of N ints.
:param cover_all: Compute one more output where the last window is partial.
:param dilate: Dilation factor, an int or a tuple of N ints.
:param groups: The number of channel groups.
:returns: A variable of shape ``(n, c_out, out_1, ..., out_N)``.)doc");
    f.def("convolution_1d", &convolution_fixed<1>, py::arg("x"), py::arg("W"), py::arg("b") = py::none(),
          py::arg("stride") = 1, py::arg("pad") = 0, py::arg("cover_all") = false, py::arg("dilate") = 1,
          py::arg("groups") = 1, Release(),
          R"doc(1-dimensional convolution function: :func:`convolution_nd` with x of three dimensions.

:param x: Input ``(n, c_in, l)``.
:param W: Filters ``(c_out, c_in / groups, k)``.
:param b: Bias ``(c_out,)``, or None.
:param stride: Stride.
:param pad: Padding width.
:param cover_all: Compute one more output where the last window is partial.
:param dilate: Dilation factor.
:param groups: The number of channel groups.
:returns: A variable of shape ``(n, c_out, out_l)``.)doc");
    f.def("convolution_3d", &convolution_fixed<3>, py::arg("x"), py::arg("W"), py::arg("b") = py::none(),
          py::arg("stride") = 1, py::arg("pad") = 0, py::arg("cover_all") = false, py::arg("dilate") = 1,
          py::arg("groups") = 1, Release(),
          R"doc(3-dimensional convolution function: :func:`convolution_nd` with x of five dimensions.

:param x: Input ``(n, c_in, d, h, w)``.
:param W: Filters ``(c_out, c_in / groups, kd, kh, kw)``.
:param b: Bias ``(c_out,)``, or None.
:param stride: Stride, an int or a tuple of 3 ints.
:param pad: Padding width, an int or a tuple of 3 ints.
:param cover_all: Compute one more output where the last window is partial.
:param dilate: Dilation factor, an int or a tuple of 3 ints.
:param groups: The number of channel groups.
:returns: A variable of shape ``(n, c_out, out_d, out_h, out_w)``.)doc");
    f.def("deconvolution_nd", &deconvolution_nd, py::arg("x"), py::arg("W"), py::arg("b") = py::none(),
          py::arg("stride") = 1, py::arg("pad") = 0, py::arg("outsize") = py::none(), py::arg("dilate") = 1,
          py::arg("groups") = 1, Release(),
          R"doc(N-dimensional deconvolution (transposed convolution) function (1 to 3 spatial dimensions).

:param x: Input ``(n, c_in, d_1, ..., d_N)``.
:param W: Filters ``(c_in, c_out / groups, k_1, ..., k_N)``, of x's floating-point dtype.
:param b: Bias ``(c_out,)``, or None.
:param stride: Stride, an int or a tuple of N ints.
:param pad: Spatial padding width, an int or a tuple of N ints.
:param outsize: The output's spatial size, a tuple of N ints; None computes the smallest size.
:param dilate: Dilation factor, an int or a tuple of N ints.
:param groups: The number of channel groups.
:returns: A variable of shape ``(n, c_out, out_1, ..., out_N)``.)doc");
    f.def("deconvolution_1d", &deconvolution_fixed<1>, py::arg("x"), py::arg("W"), py::arg("b") = py::none(),
          py::arg("stride") = 1, py::arg("pad") = 0, py::arg("outsize") = py::none(), py::arg("dilate") = 1,
          py::arg("groups") = 1, Release(),
          R"doc(1-dimensional deconvolution function: :func:`deconvolution_nd` with x of three dimensions.

:param x: Input ``(n, c_in, l)``.
:param W: Filters ``(c_in, c_out / groups, k)``.
:param b: Bias ``(c_out,)``, or None.
:param stride: Stride.
:param pad: Padding width.
:param outsize: The output length as a 1-tuple, or None.
:param dilate: Dilation factor.
:param groups: The number of channel groups.
:returns: A variable of shape ``(n, c_out, out_l)``.)doc");
    f.def("deconvolution_3d", &deconvolution_fixed<3>, py::arg("x"), py::arg("W"), py::arg("b") = py::none(),
          py::arg("stride") = 1, py::arg("pad") = 0, py::arg("outsize") = py::none(), py::arg("dilate") = 1,
          py::arg("groups") = 1, Release(),
          R"doc(3-dimensional deconvolution function: :func:`deconvolution_nd` with x of five dimensions.

:param x: Input ``(n, c_in, d, h, w)``.
:param W: Filters ``(c_in, c_out / groups, kd, kh, kw)``.
:param b: Bias ``(c_out,)``, or None.
:param stride: Stride, an int or a tuple of 3 ints.
:param pad: Padding width, an int or a tuple of 3 ints.
:param outsize: The output's ``(out_d, out_h, out_w)``, or None.
:param dilate: Dilation factor, an int or a tuple of 3 ints.
:param groups: The number of channel groups.
:returns: A variable of shape ``(n, c_out, out_d, out_h, out_w)``.)doc");
    f.def(
        "depthwise_convolution_2d",
        [](const Variable& x, const Variable& W, const std::optional<Variable>& b, const Ints& stride,
           const Ints& pad) {
            return F::depthwise_convolution_2d(x, W, to_variable_or_undefined(b),
                                               {.stride = to_int_or_tuple(stride), .pad = to_int_or_tuple(pad)});
        },
        py::arg("x"), py::arg("W"), py::arg("b") = py::none(), py::arg("stride") = 1, py::arg("pad") = 0, Release(),
        R"doc(Two-dimensional depthwise convolution function.

Output channel ``c * multiplier + m`` convolves input channel ``c`` with ``W[m, c]``.

:param x: Input ``(n, c_in, h, w)``.
:param W: Filters ``(multiplier, c_in, kh, kw)``.
:param b: Bias ``(multiplier * c_in,)``, or None.
:param stride: Stride, an int or ``(sy, sx)``.
:param pad: Padding width, an int or ``(ph, pw)``.
:returns: A variable of shape ``(n, multiplier * c_in, out_h, out_w)``.)doc");
}

}  // namespace

void bind_connection(py::module_& f) {
    f.def(
        "linear",
        [](const Variable& x, const Variable& W, const std::optional<Variable>& b, int n_batch_axes) {
            return F::linear(x, W, to_variable_or_undefined(b), n_batch_axes);
        },
        py::arg("x"), py::arg("W"), py::arg("b") = py::none(), py::arg("n_batch_axes") = 1, Release(),
        R"doc(Linear function, or affine transformation: ``y = x W^T + b``.

:param x: Input variable; its first ``n_batch_axes`` axes are batch axes and the rest are flattened
    into the input width.
:param W: Weight ``(out, in)``.
:param b: Bias ``(out,)``, or None.
:param n_batch_axes: The number of batch axes.
:returns: A variable of shape ``x.shape[:n_batch_axes] + (out,)``. Differentiable any number of
    times.)doc");
    bind_convolutions(f);
    f.def(
        "dilated_convolution_2d",
        [](const Variable& x, const Variable& W, const std::optional<Variable>& b, const Ints& stride, const Ints& pad,
           const Ints& dilate, bool cover_all) {
            return F::dilated_convolution_2d(x, W, to_variable_or_undefined(b),
                                             {.stride = to_int_or_tuple(stride),
                                              .pad = to_int_or_tuple(pad),
                                              .dilate = to_int_or_tuple(dilate),
                                              .cover_all = cover_all});
        },
        py::arg("x"), py::arg("W"), py::arg("b") = py::none(), py::arg("stride") = 1, py::arg("pad") = 0,
        py::arg("dilate") = 1, py::arg("cover_all") = false, Release(),
        R"doc(Two-dimensional dilated convolution function: :func:`convolution_2d` with a dilation.

:param x: Input ``(n, c_in, h, w)``.
:param W: Filters ``(c_out, c_in, kh, kw)``, of x's floating-point dtype.
:param b: Bias ``(c_out,)``, or None.
:param stride: Stride, an int or ``(sy, sx)``.
:param pad: Spatial padding width, an int or ``(ph, pw)``.
:param dilate: Dilation factor, an int or ``(dy, dx)``.
:param cover_all: Compute one more output where the last window is partial.
:returns: A variable of shape ``(n, c_out, out_h, out_w)``.)doc");
    f.def("embed_id", &F::embed_id, py::arg("x"), py::arg("W"), py::arg("ignore_label") = py::none(), Release(),
          R"doc(Efficient linear function for one-hot input: the rows of ``W`` at the ids ``x``.

:param x: Integer ids, in ``[0, n_vocab)`` (``ValueError`` otherwise, naming the id and its
    position).
:param W: The embedding matrix ``(n_vocab, n_units)``.
:param ignore_label: Ids equal to it give zero rows and no gradient; None: no such id.
:returns: A variable of shape ``x.shape + (n_units,)``.)doc");
    f.def(
        "bilinear",
        [](const Variable& e1, const Variable& e2, const Variable& W, const std::optional<Variable>& V1,
           const std::optional<Variable>& V2, const std::optional<Variable>& b) {
            return F::bilinear(e1, e2, W, to_variable_or_undefined(V1), to_variable_or_undefined(V2),
                               to_variable_or_undefined(b));
        },
        py::arg("e1"), py::arg("e2"), py::arg("W"), py::arg("V1") = py::none(), py::arg("V2") = py::none(),
        py::arg("b") = py::none(), Release(),
        R"doc(Applies a bilinear function based on given parameters.

``y[n, l] = sum_jk e1[n, j] e2[n, k] W[j, k, l]``, plus ``e1 V1 + e2 V2 + b`` when they are
given.

:param e1: Left input ``(N, J)`` (more axes are flattened).
:param e2: Right input ``(N, K)``.
:param W: Quadratic weight ``(J, K, L)``.
:param V1: Left linear weight ``(J, L)``, or None.
:param V2: Right linear weight ``(K, L)``, or None.
:param b: Bias ``(L,)``, or None. V1, V2 and b are all given or all None (``ValueError``).
:returns: A variable of shape ``(N, L)``.)doc");
}

namespace {

using Weights = std::vector<std::vector<Variable>>;

// The states convert with the GIL held (None: undefined, which the function rejects with
// "<function>: Expect: hx to be defined"), the loop runs without it.
template <auto kFunction>
py::tuple lstm(int n_layers, double dropout_ratio, py::handle hx, py::handle cx, const Weights& ws, const Weights& bs,
               const std::vector<Variable>& xs) {
    const Variable h = to_variable_or_undefined(hx), c = to_variable_or_undefined(cx);
    F::NStepLSTMResult r;
    {
        py::gil_scoped_release release;
        r = kFunction(n_layers, dropout_ratio, h, c, ws, bs, xs);
    }
    return py::make_tuple(r.hy, r.cy, to_tuple(std::move(r.ys)));
}

template <auto kFunction>
py::tuple gru(int n_layers, double dropout_ratio, py::handle hx, const Weights& ws, const Weights& bs,
              const std::vector<Variable>& xs) {
    const Variable h = to_variable_or_undefined(hx);
    std::pair<Variable, std::vector<Variable>> r;
    {
        py::gil_scoped_release release;
        r = kFunction(n_layers, dropout_ratio, h, ws, bs, xs);
    }
    return py::make_tuple(r.first, to_tuple(std::move(r.second)));
}

template <auto kFunction>
py::tuple rnn(int n_layers, double dropout_ratio, py::handle hx, const Weights& ws, const Weights& bs,
              const std::vector<Variable>& xs, const std::string& activation) {
    const Variable h = to_variable_or_undefined(hx);
    std::pair<Variable, std::vector<Variable>> r;
    {
        py::gil_scoped_release release;
        r = kFunction(n_layers, dropout_ratio, h, ws, bs, xs, activation);
    }
    return py::make_tuple(r.first, to_tuple(std::move(r.second)));
}

}  // namespace

void bind_recurrent(py::module_& f) {
    f.def("n_step_lstm", &lstm<&F::n_step_lstm>, py::arg("n_layers"), py::arg("dropout_ratio"), py::arg("hx"),
          py::arg("cx"), py::arg("ws"), py::arg("bs"), py::arg("xs"),
          R"doc(Stacked uni-directional Long Short-Term Memory function over sequences.

The arguments are Chainer's, time-major: ``xs[t]`` ``(B_t, in)`` holds the inputs at time ``t`` of
the sequences still running, ``B_t`` non-increasing (:func:`transpose_sequence` of sequences
sorted by decreasing length). Dropout with ``dropout_ratio`` applies to the inputs of every layer
but the first, in training only.

:param n_layers: The number of layers.
:param dropout_ratio: Dropout ratio.
:param hx: Initial hidden states ``(n_layers, B, units)``, ``B >= B_0``.
:param cx: Initial cell states ``(n_layers, B, units)``.
:param ws: Per layer, eight weight matrices: input, forget, cell and output gates on x
    (``(units, in)``), then on h (``(units, units)``).
:param bs: Per layer, the eight biases ``(units,)`` in the same order.
:param xs: A list of the input time steps.
:returns: A tuple ``(hy, cy, ys)``: the last hidden and cell states of each sequence, and a tuple of
    the outputs ``(B_t, units)`` per time step.)doc");
    f.def("n_step_bilstm", &lstm<&F::n_step_bilstm>, py::arg("n_layers"), py::arg("dropout_ratio"), py::arg("hx"),
          py::arg("cx"), py::arg("ws"), py::arg("bs"), py::arg("xs"),
          R"doc(Stacked bi-directional Long Short-Term Memory function over sequences.

As :func:`n_step_lstm`, with a forward and a backward direction per layer; a layer above the first
takes ``2 * units`` inputs.

:param n_layers: The number of layers.
:param dropout_ratio: Dropout ratio.
:param hx: Initial hidden states ``(2 * n_layers, B, units)``.
:param cx: Initial cell states ``(2 * n_layers, B, units)``.
:param ws: Per layer and direction (layer-major, forward first), the eight weight matrices.
:param bs: Per layer and direction, the eight biases.
:param xs: A list of the input time steps.
:returns: A tuple ``(hy, cy, ys)``, ``ys[t]`` of shape ``(B_t, 2 * units)``.)doc");
    f.def("n_step_gru", &gru<&F::n_step_gru>, py::arg("n_layers"), py::arg("dropout_ratio"), py::arg("hx"),
          py::arg("ws"), py::arg("bs"), py::arg("xs"),
          R"doc(Stacked uni-directional Gated Recurrent Unit function over sequences.

The contract is :func:`n_step_lstm`'s without the cell state.

:param n_layers: The number of layers.
:param dropout_ratio: Dropout ratio.
:param hx: Initial hidden states ``(n_layers, B, units)``.
:param ws: Per layer, six weight matrices: reset gate, update gate and new memory on x, then on h.
:param bs: Per layer, the six biases in the same order.
:param xs: A list of the input time steps.
:returns: A tuple ``(hy, ys)``.)doc");
    f.def("n_step_bigru", &gru<&F::n_step_bigru>, py::arg("n_layers"), py::arg("dropout_ratio"), py::arg("hx"),
          py::arg("ws"), py::arg("bs"), py::arg("xs"),
          R"doc(Stacked bi-directional Gated Recurrent Unit function over sequences.

:param n_layers: The number of layers.
:param dropout_ratio: Dropout ratio.
:param hx: Initial hidden states ``(2 * n_layers, B, units)``.
:param ws: Per layer and direction (layer-major, forward first), the six weight matrices.
:param bs: Per layer and direction, the six biases.
:param xs: A list of the input time steps.
:returns: A tuple ``(hy, ys)``, ``ys[t]`` of shape ``(B_t, 2 * units)``.)doc");
    f.def("n_step_rnn", &rnn<&F::n_step_rnn>, py::arg("n_layers"), py::arg("dropout_ratio"), py::arg("hx"),
          py::arg("ws"), py::arg("bs"), py::arg("xs"), py::arg("activation") = "tanh",
          R"doc(Stacked uni-directional Elman RNN function over sequences:
``h = activation(W0 x + b0 + W1 h + b1)``.

:param n_layers: The number of layers.
:param dropout_ratio: Dropout ratio.
:param hx: Initial hidden states ``(n_layers, B, units)``.
:param ws: Per layer, the two weight matrices ``W0`` (on x) and ``W1`` (on h).
:param bs: Per layer, the two biases.
:param xs: A list of the input time steps.
:param activation: ``'tanh'`` or ``'relu'`` (``ValueError`` otherwise).
:returns: A tuple ``(hy, ys)``.)doc");
    f.def("n_step_birnn", &rnn<&F::n_step_birnn>, py::arg("n_layers"), py::arg("dropout_ratio"), py::arg("hx"),
          py::arg("ws"), py::arg("bs"), py::arg("xs"), py::arg("activation") = "tanh",
          R"doc(Stacked bi-directional Elman RNN function over sequences.

:param n_layers: The number of layers.
:param dropout_ratio: Dropout ratio.
:param hx: Initial hidden states ``(2 * n_layers, B, units)``.
:param ws: Per layer and direction (layer-major, forward first), the two weight matrices.
:param bs: Per layer and direction, the two biases.
:param xs: A list of the input time steps.
:param activation: ``'tanh'`` or ``'relu'``.
:returns: A tuple ``(hy, ys)``, ``ys[t]`` of shape ``(B_t, 2 * units)``.)doc");
}

}  // namespace rensa::python::functions_bind
