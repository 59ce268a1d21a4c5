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
        py::arg("cover_all") = false, py::kw_only(), py::arg("dilate") = 1, py::arg("groups") = 1, Release());
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
        py::arg("outsize") = py::none(), py::kw_only(), py::arg("dilate") = 1, py::arg("groups") = 1, Release());

    f.def("convolution_nd", &convolution_nd, py::arg("x"), py::arg("W"), py::arg("b") = py::none(),
          py::arg("stride") = 1, py::arg("pad") = 0, py::arg("cover_all") = false, py::arg("dilate") = 1,
          py::arg("groups") = 1, Release());
    f.def("convolution_1d", &convolution_fixed<1>, py::arg("x"), py::arg("W"), py::arg("b") = py::none(),
          py::arg("stride") = 1, py::arg("pad") = 0, py::arg("cover_all") = false, py::arg("dilate") = 1,
          py::arg("groups") = 1, Release());
    f.def("convolution_3d", &convolution_fixed<3>, py::arg("x"), py::arg("W"), py::arg("b") = py::none(),
          py::arg("stride") = 1, py::arg("pad") = 0, py::arg("cover_all") = false, py::arg("dilate") = 1,
          py::arg("groups") = 1, Release());
    f.def("deconvolution_nd", &deconvolution_nd, py::arg("x"), py::arg("W"), py::arg("b") = py::none(),
          py::arg("stride") = 1, py::arg("pad") = 0, py::arg("outsize") = py::none(), py::arg("dilate") = 1,
          py::arg("groups") = 1, Release());
    f.def("deconvolution_1d", &deconvolution_fixed<1>, py::arg("x"), py::arg("W"), py::arg("b") = py::none(),
          py::arg("stride") = 1, py::arg("pad") = 0, py::arg("outsize") = py::none(), py::arg("dilate") = 1,
          py::arg("groups") = 1, Release());
    f.def("deconvolution_3d", &deconvolution_fixed<3>, py::arg("x"), py::arg("W"), py::arg("b") = py::none(),
          py::arg("stride") = 1, py::arg("pad") = 0, py::arg("outsize") = py::none(), py::arg("dilate") = 1,
          py::arg("groups") = 1, Release());
    f.def(
        "depthwise_convolution_2d",
        [](const Variable& x, const Variable& W, const std::optional<Variable>& b, const Ints& stride,
           const Ints& pad) {
            return F::depthwise_convolution_2d(x, W, to_variable_or_undefined(b),
                                               {.stride = to_int_or_tuple(stride), .pad = to_int_or_tuple(pad)});
        },
        py::arg("x"), py::arg("W"), py::arg("b") = py::none(), py::arg("stride") = 1, py::arg("pad") = 0, Release());
}

}  // namespace

void bind_connection(py::module_& f) {
    f.def(
        "linear",
        [](const Variable& x, const Variable& W, const std::optional<Variable>& b, int n_batch_axes) {
            return F::linear(x, W, to_variable_or_undefined(b), n_batch_axes);
        },
        py::arg("x"), py::arg("W"), py::arg("b") = py::none(), py::arg("n_batch_axes") = 1, Release());
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
        "Chainer's dilated_convolution_2d: convolution_2d with a dilation.");
    f.def("embed_id", &F::embed_id, py::arg("x"), py::arg("W"), py::arg("ignore_label") = py::none(), Release());
    f.def(
        "bilinear",
        [](const Variable& e1, const Variable& e2, const Variable& W, const std::optional<Variable>& V1,
           const std::optional<Variable>& V2, const std::optional<Variable>& b) {
            return F::bilinear(e1, e2, W, to_variable_or_undefined(V1), to_variable_or_undefined(V2),
                               to_variable_or_undefined(b));
        },
        py::arg("e1"), py::arg("e2"), py::arg("W"), py::arg("V1") = py::none(), py::arg("V2") = py::none(),
        py::arg("b") = py::none(), Release());
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
          py::arg("cx"), py::arg("ws"), py::arg("bs"), py::arg("xs"));
    f.def("n_step_bilstm", &lstm<&F::n_step_bilstm>, py::arg("n_layers"), py::arg("dropout_ratio"), py::arg("hx"),
          py::arg("cx"), py::arg("ws"), py::arg("bs"), py::arg("xs"));
    f.def("n_step_gru", &gru<&F::n_step_gru>, py::arg("n_layers"), py::arg("dropout_ratio"), py::arg("hx"),
          py::arg("ws"), py::arg("bs"), py::arg("xs"));
    f.def("n_step_bigru", &gru<&F::n_step_bigru>, py::arg("n_layers"), py::arg("dropout_ratio"), py::arg("hx"),
          py::arg("ws"), py::arg("bs"), py::arg("xs"));
    f.def("n_step_rnn", &rnn<&F::n_step_rnn>, py::arg("n_layers"), py::arg("dropout_ratio"), py::arg("hx"),
          py::arg("ws"), py::arg("bs"), py::arg("xs"), py::arg("activation") = "tanh");
    f.def("n_step_birnn", &rnn<&F::n_step_birnn>, py::arg("n_layers"), py::arg("dropout_ratio"), py::arg("hx"),
          py::arg("ws"), py::arg("bs"), py::arg("xs"), py::arg("activation") = "tanh");
}

}  // namespace rensa::python::functions_bind
