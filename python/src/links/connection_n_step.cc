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

template <class Link>
auto bind_n_step_class(py::module_& m, const char* name) {
    return link_class<Link, L::NStepRNNBase>(m, name).def(
        link_init<Link>([](int n_layers, py::handle in_size, int64_t out_size, double dropout, py::handle initialW,
                           py::handle initial_bias) {
            return make_n_step<Link>(n_layers, in_size, out_size, dropout, initialW, initial_bias);
        }),
        py::arg("n_layers"), py::arg("in_size"), py::arg("out_size"), py::arg("dropout"), py::kw_only(),
        py::arg("initialW") = py::none(), py::arg("initial_bias") = py::none());
}

template <class Link>
void bind_without_cell(py::module_& m, const char* name) {
    bind_n_step_class<Link>(m, name)
        .def("forward", &forward_without_cell<Link>, py::arg("hx"), py::arg("xs"))
        .def("__call__", &forward_without_cell<Link>, py::arg("hx"), py::arg("xs"));
}

template <class Link>
void bind_with_cell(py::module_& m, const char* name) {
    bind_n_step_class<Link>(m, name)
        .def("forward", &forward_lstm<Link>, py::arg("hx"), py::arg("cx"), py::arg("xs"))
        .def("__call__", &forward_lstm<Link>, py::arg("hx"), py::arg("cx"), py::arg("xs"));
}

}  // namespace

void bind_n_step_links(py::module_& m) {
    py::classh<L::NStepRNNBase, L::ChainList>(m, "NStepRNNBase", py::dynamic_attr())
        .def_property_readonly("n_layers", &L::NStepRNNBase::n_layers)
        .def_property_readonly("out_size", &L::NStepRNNBase::out_size)
        .def_property_readonly("dropout", &L::NStepRNNBase::dropout)
        .def_property_readonly("direction", &L::NStepRNNBase::direction)
        .def_property_readonly("n_weights", &L::NStepRNNBase::n_weights)
        .def_property_readonly("use_bi_direction", [](const L::NStepRNNBase& self) { return self.direction() == 2; })
        .def_property_readonly("n_cells", [](const L::NStepRNNBase& self) { return self.n_weights() == 8 ? 2 : 1; })
        // Chainer's ws / bs: [layer][j] the Parameters wj / bj of each child.
        .def_property_readonly("ws", [](L::NStepRNNBase& self) { return self.ws(); })
        .def_property_readonly("bs", [](L::NStepRNNBase& self) { return self.bs(); })
        .def(
            "init_hx", [](const L::NStepRNNBase& self, py::handle xs) { return self.init_hx(to_variables(xs)); },
            py::arg("xs"));
    bind_with_cell<L::NStepLSTM>(m, "NStepLSTM");
    bind_with_cell<L::NStepBiLSTM>(m, "NStepBiLSTM");
    bind_without_cell<L::NStepGRU>(m, "NStepGRU");
    bind_without_cell<L::NStepBiGRU>(m, "NStepBiGRU");
    bind_without_cell<L::NStepRNNTanh>(m, "NStepRNNTanh");
    bind_without_cell<L::NStepRNNReLU>(m, "NStepRNNReLU");
    bind_without_cell<L::NStepBiRNNTanh>(m, "NStepBiRNNTanh");
    bind_without_cell<L::NStepBiRNNReLU>(m, "NStepBiRNNReLU");
}

}  // namespace rensa::python::links_detail
