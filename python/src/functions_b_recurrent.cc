// rensa.functions: Chainer's n-step RNNs (n_step_lstm, n_step_bilstm, n_step_gru,
// n_step_bigru, n_step_rnn, n_step_birnn). ws / bs are lists of lists of Variables (or
// arrays), xs a list of sequences; ys comes back as a list.
#include <string>
#include <tuple>
#include <utility>

#include "python/src/functions_b.h"

namespace rensa::python::functions_b {
namespace {

using Release = py::call_guard<py::gil_scoped_release>;
using Weights = std::vector<std::vector<Variable>>;
using LSTMOut = std::tuple<Variable, Variable, std::vector<Variable>>;

template <auto kFunction>
LSTMOut lstm(int n_layers, double dropout_ratio, const Variable& hx, const Variable& cx, const Weights& ws,
             const Weights& bs, const std::vector<Variable>& xs) {
    F::NStepLSTMResult r = kFunction(n_layers, dropout_ratio, hx, cx, ws, bs, xs);
    return {std::move(r.hy), std::move(r.cy), std::move(r.ys)};
}

}  // namespace

void bind_recurrent(py::module_& f) {
    f.def("n_step_lstm", &lstm<&F::n_step_lstm>, py::arg("n_layers"), py::arg("dropout_ratio"), py::arg("hx"),
          py::arg("cx"), py::arg("ws"), py::arg("bs"), py::arg("xs"), Release());
    f.def("n_step_bilstm", &lstm<&F::n_step_bilstm>, py::arg("n_layers"), py::arg("dropout_ratio"), py::arg("hx"),
          py::arg("cx"), py::arg("ws"), py::arg("bs"), py::arg("xs"), Release());
    f.def("n_step_gru", &F::n_step_gru, py::arg("n_layers"), py::arg("dropout_ratio"), py::arg("hx"), py::arg("ws"),
          py::arg("bs"), py::arg("xs"), Release());
    f.def("n_step_bigru", &F::n_step_bigru, py::arg("n_layers"), py::arg("dropout_ratio"), py::arg("hx"), py::arg("ws"),
          py::arg("bs"), py::arg("xs"), Release());
    f.def("n_step_rnn", &F::n_step_rnn, py::arg("n_layers"), py::arg("dropout_ratio"), py::arg("hx"), py::arg("ws"),
          py::arg("bs"), py::arg("xs"), py::arg("activation") = "tanh", Release());
    f.def("n_step_birnn", &F::n_step_birnn, py::arg("n_layers"), py::arg("dropout_ratio"), py::arg("hx"), py::arg("ws"),
          py::arg("bs"), py::arg("xs"), py::arg("activation") = "tanh", Release());
}

}  // namespace rensa::python::functions_b
