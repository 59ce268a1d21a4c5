// rensa._core.links, the n-step RNN links of links/connection/n_step_rnn.h: NStepLSTM,
// NStepBiLSTM, NStepGRU, NStepBiGRU, NStepRNNTanh, NStepRNNReLU, NStepBiRNNTanh and
// NStepBiRNNReLU with Chainer's signatures (n_layers, in_size, out_size, dropout, *,
// initialW=None, initial_bias=None) and attributes (n_layers, out_size, dropout, direction,
// n_weights, n_cells, ws, bs, init_hx). forward(hx, [cx,] xs) takes a list of sequences in any
// order, hx / cx None for zeros, and returns (hy, [cy,] ys) with ys a list, as Chainer does.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "links/connection/n_step_rnn.h"
#include "python/src/links/links.h"

namespace rensa::python::links_detail {
namespace L = rensa::links;

namespace {

template <class Link>
std::shared_ptr<Link> make_n_step(int n_layers, py::handle in_size, int64_t out_size, double dropout,
                                  py::handle initialW, py::handle initial_bias) {
    return std::make_shared<Link>(n_layers, optional_int(in_size), out_size, dropout,
                                  L::NStepRNNOptions{to_initializer(initialW), to_initializer(initial_bias)});
}

// hy, ys of the links without a cell state; the sequences convert with the GIL held.
template <class Link>
py::tuple forward_without_cell(Link& self, py::handle hx, py::handle xs) {
    const Variable h = to_variable_or_undefined(hx);
    const std::vector<Variable> sequences = to_variables(xs);
    std::pair<Variable, std::vector<Variable>> r;
    {
        py::gil_scoped_release release;
        r = self.forward(h, sequences);
    }
    return py::make_tuple(r.first, py::cast(std::move(r.second)));
}

template <class Link>
py::tuple forward_lstm(Link& self, py::handle hx, py::handle cx, py::handle xs) {
    const Variable h = to_variable_or_undefined(hx), c = to_variable_or_undefined(cx);
    const std::vector<Variable> sequences = to_variables(xs);
    F::NStepLSTMResult r;
    {
        py::gil_scoped_release release;
        r = self.forward(h, c, sequences);
    }
    return py::make_tuple(r.hy, r.cy, py::cast(std::move(r.ys)));
}

// The arguments every n-step link's docstring ends with (its constructor's).
constexpr const char* kNStepArgsDoc = R"doc(
Args:
    n_layers (int): Number of layers.
    in_size (int or None): Input size (``None``: inferred).
    out_size (int): Hidden size of each direction.
    dropout (float): Dropout ratio applied to the input of each layer but the first, in [0, 1).
    initialW: Initializer of the weights (keyword only).
    initial_bias: Initializer of the biases (keyword only).
)doc";

// `summary`: the docstring's text before kNStepArgsDoc (pybind11 copies the docstring).
template <class Link>
auto bind_n_step_class(py::module_& m, const char* name, const char* summary) {
    const std::string doc = std::string(summary) + kNStepArgsDoc;
    return link_class<Link, L::NStepRNNBase>(m, name, doc.c_str())
        .def(link_init<Link>([](int n_layers, py::handle in_size, int64_t out_size, double dropout, py::handle initialW,
                                py::handle initial_bias) {
                 return make_n_step<Link>(n_layers, in_size, out_size, dropout, initialW, initial_bias);
             }),
             py::arg("n_layers"), py::arg("in_size"), py::arg("out_size"), py::arg("dropout"), py::kw_only(),
             py::arg("initialW") = py::none(), py::arg("initial_bias") = py::none());
}

template <class Link>
void bind_without_cell(py::module_& m, const char* name, const char* doc) {
    bind_n_step_class<Link>(m, name, doc)
        .def("forward", &forward_without_cell<Link>, py::arg("hx"), py::arg("xs"),
             "Runs the stack over a list of sequences ``xs`` (each of shape (length, in_size), in any order) from the "
             "initial hidden state ``hx`` (n_layers * directions, batch, out_size), None for zeros. Returns ``(hy, "
             "ys)``: the last hidden states and the list of output sequences.")
        .def("__call__", &forward_without_cell<Link>, py::arg("hx"), py::arg("xs"));
}

template <class Link>
void bind_with_cell(py::module_& m, const char* name, const char* doc) {
    bind_n_step_class<Link>(m, name, doc)
        .def("forward", &forward_lstm<Link>, py::arg("hx"), py::arg("cx"), py::arg("xs"),
             "Runs the stack over a list of sequences ``xs`` (each of shape (length, in_size), in any order) from the "
             "initial hidden and cell states ``hx`` and ``cx`` (n_layers * directions, batch, out_size), None for "
             "zeros. Returns ``(hy, cy, ys)``: the last states and the list of output sequences.")
        .def("__call__", &forward_lstm<Link>, py::arg("hx"), py::arg("cx"), py::arg("xs"));
}

}  // namespace

void bind_n_step_links(py::module_& m) {
    py::classh<L::NStepRNNBase, L::ChainList>(m, "NStepRNNBase", R"doc(Base of the n-step RNN links.

A ChainList of one child per layer and direction holding the weights ``w0, w1, ...`` and biases ``b0, b1, ...``
that ``functions.n_step_lstm`` and its siblings take.
)doc",
                                              py::dynamic_attr())
        .def_property_readonly("n_layers", &L::NStepRNNBase::n_layers, "The number of layers.")
        .def_property_readonly("out_size", &L::NStepRNNBase::out_size, "The hidden size of each direction.")
        .def_property_readonly("dropout", &L::NStepRNNBase::dropout,
                               "The dropout ratio applied to the input of each layer but the first.")
        .def_property_readonly("direction", &L::NStepRNNBase::direction, "1 (unidirectional) or 2 (bidirectional).")
        .def_property_readonly("n_weights", &L::NStepRNNBase::n_weights,
                               "The number of weight matrices per layer and direction (8 for an LSTM, 6 for a GRU, 2 "
                               "for a plain RNN).")
        .def_property_readonly(
            "use_bi_direction", [](const L::NStepRNNBase& self) { return self.direction() == 2; },
            "Whether the link is bidirectional.")
        .def_property_readonly(
            "n_cells", [](const L::NStepRNNBase& self) { return self.n_weights() == 8 ? 2 : 1; },
            "The number of state arrays: 2 (``h`` and ``c``) for an LSTM, else 1.")
        // Chainer's ws / bs: [layer][j] the Parameters wj / bj of each child.
        .def_property_readonly(
            "ws", [](L::NStepRNNBase& self) { return self.ws(); },
            "The weights: ``ws[i][j]`` is the parameter ``wj`` of the i-th child.")
        .def_property_readonly(
            "bs", [](L::NStepRNNBase& self) { return self.bs(); },
            "The biases: ``bs[i][j]`` is the parameter ``bj`` of the i-th child.")
        .def(
            "init_hx", [](const L::NStepRNNBase& self, py::handle xs) { return self.init_hx(to_variables(xs)); },
            py::arg("xs"),
            "A zero initial state of shape (n_layers * direction, len(xs), out_size) for the list of sequences "
            "``xs``.");
    bind_with_cell<L::NStepLSTM>(m, "NStepLSTM", R"doc(Stacked unidirectional LSTM over sequences of variable length.

``hy, cy, ys = lstm(hx, cx, xs)``; see ``functions.n_step_lstm``.
)doc");
    bind_with_cell<L::NStepBiLSTM>(m, "NStepBiLSTM", R"doc(Stacked bidirectional LSTM over sequences of variable length.

``hy, cy, ys = lstm(hx, cx, xs)``; each output has ``2 * out_size`` features (forward and backward concatenated).
See ``functions.n_step_bilstm``.
)doc");
    bind_without_cell<L::NStepGRU>(m, "NStepGRU", R"doc(Stacked unidirectional GRU over sequences of variable length.

``hy, ys = gru(hx, xs)``; see ``functions.n_step_gru``.
)doc");
    bind_without_cell<L::NStepBiGRU>(m, "NStepBiGRU", R"doc(Stacked bidirectional GRU over sequences of variable length.

``hy, ys = gru(hx, xs)``; each output has ``2 * out_size`` features. See ``functions.n_step_bigru``.
)doc");
    bind_without_cell<L::NStepRNNTanh>(
        m, "NStepRNNTanh", R"doc(Stacked unidirectional Elman RNN with tanh over sequences of variable length.

``hy, ys = rnn(hx, xs)``; see ``functions.n_step_rnn``.
)doc");
    bind_without_cell<L::NStepRNNReLU>(
        m, "NStepRNNReLU", R"doc(Stacked unidirectional Elman RNN with ReLU over sequences of variable length.

``hy, ys = rnn(hx, xs)``; see ``functions.n_step_rnn``.
)doc");
    bind_without_cell<L::NStepBiRNNTanh>(
        m, "NStepBiRNNTanh", R"doc(Stacked bidirectional Elman RNN with tanh over sequences of variable length.

``hy, ys = rnn(hx, xs)``; each output has ``2 * out_size`` features. See ``functions.n_step_birnn``.
)doc");
    bind_without_cell<L::NStepBiRNNReLU>(
        m, "NStepBiRNNReLU", R"doc(Stacked bidirectional Elman RNN with ReLU over sequences of variable length.

``hy, ys = rnn(hx, xs)``; each output has ``2 * out_size`` features. See ``functions.n_step_birnn``.
)doc");
}

}  // namespace rensa::python::links_detail
