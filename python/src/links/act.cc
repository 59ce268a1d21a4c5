// rensa._core.links, issue 23's links: Swish, SimplifiedDropconnect, StatelessMGU,
// StatefulMGU, StatefulPeepholeLSTM, StatefulZoneoutLSTM, ChildSumTreeLSTM, NaryTreeLSTM,
// with Chainer's constructor signatures. States read None until set, as in Chainer.
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "links/activation/simplified_dropconnect.h"
#include "links/activation/swish.h"
#include "links/connection/mgu.h"
#include "links/connection/peephole.h"
#include "links/connection/tree_lstm.h"
#include "links/connection/zoneout_lstm.h"
#include "python/src/convert/variables.h"
#include "python/src/links/links.h"

namespace rensa::python::links_detail {
namespace L = rensa::links;

namespace {

// Chainer's tree LSTM call forward(*cs, *hs, x): None entries are undefined.
template <class T>
py::tuple call_tree_lstm(T& self, const py::args& cshsx, size_t n_children) {
    std::vector<Variable> all;
    for (const py::handle v : cshsx) all.push_back(to_variable_or_undefined(v));
    const std::vector<Variable> cs(all.begin(), all.begin() + long(n_children));
    const std::vector<Variable> hs(all.begin() + long(n_children), all.end() - 1);
    auto [c, h] = self.forward(cs, hs, all.back());
    return py::make_tuple(std::move(c), std::move(h));
}

void bind_tree_lstm_links(py::module_& m) {
    link_class<L::ChildSumTreeLSTM, L::Chain>(m, "ChildSumTreeLSTM",
                                              R"doc(Child-sum tree LSTM layer (``functions.tree_lstm``).

``c, h = link(*cs, *hs, x)`` takes the cell states and outputs of any number of children (as many of each; None
entries are zeros) and the input ``x`` (None: zeros). The children's ``h`` are summed for the a, i and o gates;
each child has its own forget gate.

Args:
    in_size (int): Input size.
    out_size (int): Output (state) size.
)doc")
        .def(link_init<L::ChildSumTreeLSTM>([](int64_t in_size, int64_t out_size) {
                 return std::make_shared<L::ChildSumTreeLSTM>(in_size, out_size);
             }),
             py::arg("in_size"), py::arg("out_size"))
        .def("__call__",
             [](L::ChildSumTreeLSTM& self, const py::args& cshsx) {
                 RENSA_CHECK(cshsx.size() % 2 == 1, ValueError,
                             "ChildSumTreeLSTM: Expect: cs, hs (as many) and x, Actual: ", cshsx.size(), " inputs");
                 return call_tree_lstm(self, cshsx, cshsx.size() / 2);
             })
        .def_property_readonly("in_size", &L::ChildSumTreeLSTM::in_size, "The input size.")
        .def_property_readonly("state_size", &L::ChildSumTreeLSTM::state_size, "The size of ``c`` and ``h``.");
    link_class<L::NaryTreeLSTM, L::Chain>(m, "NaryTreeLSTM", R"doc(N-ary tree LSTM layer with ordered children.

``c, h = link(*cs, *hs, x)`` takes exactly ``n_ary`` cell states and ``n_ary`` outputs (None entries are zeros) and
the input ``x``; each child's ``h`` has its own weight ``W_h1 .. W_hn``.

Args:
    in_size (int): Input size.
    out_size (int): Output (state) size.
    n_ary (int): The number of children.
)doc")
        .def(link_init<L::NaryTreeLSTM>([](int64_t in_size, int64_t out_size, int64_t n_ary) {
                 return std::make_shared<L::NaryTreeLSTM>(in_size, out_size, n_ary);
             }),
             py::arg("in_size"), py::arg("out_size"), py::arg("n_ary") = 2)
        .def("__call__",
             [](L::NaryTreeLSTM& self, const py::args& cshsx) {
                 const auto n = static_cast<size_t>(self.n_ary());
                 RENSA_CHECK(cshsx.size() == 2 * n + 1, ValueError, "NaryTreeLSTM: Expect: ", 2 * n + 1,
                             " inputs (cs, hs, x), Actual: ", cshsx.size());
                 return call_tree_lstm(self, cshsx, n);
             })
        .def_property_readonly("in_size", &L::NaryTreeLSTM::in_size, "The input size.")
        .def_property_readonly("state_size", &L::NaryTreeLSTM::state_size, "The size of ``c`` and ``h``.")
        .def_property_readonly("n_ary", &L::NaryTreeLSTM::n_ary, "The number of children.");
}

void bind_stateful_lstm_links(py::module_& m) {
    link_class<L::StatefulPeepholeLSTM, L::Chain>(
        m, "StatefulPeepholeLSTM", R"doc(Fully-connected LSTM layer with peephole connections, keeping its state.

The input, forget and output gates also see the cell state (through ``peep_i``, ``peep_f`` and ``peep_o``). Each
call ``link(x)`` updates ``c`` and ``h`` and returns ``h``.

Args:
    in_size (int or None): Input size (``None``: inferred).
    out_size (int): Output (state) size.
)doc")
        .def(link_init<L::StatefulPeepholeLSTM>([](py::handle in_size, int64_t out_size) {
                 return std::make_shared<L::StatefulPeepholeLSTM>(optional_int(in_size), out_size);
             }),
             py::arg("in_size"), py::arg("out_size"))
        .def_property_readonly(
            "h", [](const L::StatefulPeepholeLSTM& self) { return variable_or_none(self.h); },
            "The output of the last step, or None.")
        .def_property_readonly(
            "c", [](const L::StatefulPeepholeLSTM& self) { return variable_or_none(self.c); },
            "The cell state, or None.")
        .def_property_readonly("state_size", &L::StatefulPeepholeLSTM::state_size, "The size of ``c`` and ``h``.")
        .def("reset_state", &L::StatefulPeepholeLSTM::reset_state, "Sets ``c`` and ``h`` to None (a new sequence).");
    link_class<L::StatefulZoneoutLSTM, L::Chain>(m, "StatefulZoneoutLSTM",
                                                 R"doc(Fully-connected LSTM layer with zoneout, keeping its state.

In training each element of the new ``c`` and ``h`` keeps its previous value with probability ``c_ratio`` and
``h_ratio`` (``functions.zoneout``); outside training the update is a plain LSTM step. Each call ``link(x)``
returns ``h``.

Args:
    in_size (int or None): Input size (``None``: inferred).
    out_size (int): Output (state) size.
    c_ratio (float): Zoneout ratio of the cell state, in [0, 1].
    h_ratio (float): Zoneout ratio of the output, in [0, 1].
)doc")
        .def(
            link_init<L::StatefulZoneoutLSTM>([](py::handle in_size, int64_t out_size, double c_ratio, double h_ratio) {
                return std::make_shared<L::StatefulZoneoutLSTM>(optional_int(in_size), out_size, c_ratio, h_ratio);
            }),
            py::arg("in_size"), py::arg("out_size"), py::arg("c_ratio") = 0.5, py::arg("h_ratio") = 0.5)
        .def_property_readonly(
            "h", [](const L::StatefulZoneoutLSTM& self) { return variable_or_none(self.h); },
            "The output of the last step, or None.")
        .def_property_readonly(
            "c", [](const L::StatefulZoneoutLSTM& self) { return variable_or_none(self.c); },
            "The cell state, or None.")
        .def_property_readonly("state_size", &L::StatefulZoneoutLSTM::state_size, "The size of ``c`` and ``h``.")
        .def_property_readonly("c_ratio", &L::StatefulZoneoutLSTM::c_ratio, "The zoneout ratio of ``c``.")
        .def_property_readonly("h_ratio", &L::StatefulZoneoutLSTM::h_ratio, "The zoneout ratio of ``h``.")
        .def("reset_state", &L::StatefulZoneoutLSTM::reset_state, "Sets ``c`` and ``h`` to None (a new sequence).")
        .def(
            "set_state",
            [](L::StatefulZoneoutLSTM& self, const Variable& c, const Variable& h) { self.set_state(c, h); },
            py::arg("c"), py::arg("h"), "Sets the cell state ``c`` and the output ``h`` (moved to the link's device).");
}

}  // namespace

void bind_act_links(py::module_& m) {
    link_class<L::Swish, L::Link>(
        m, "Swish", R"doc(Swish activation with a learned ``beta``: ``x * sigmoid(beta * x)`` (``functions.swish``).

Args:
    beta_shape (tuple of ints or None): The shape of ``beta``, broadcast against the input's axes from axis 1;
        ``None`` takes ``x.shape[1:]`` at the first forward.
    beta_init (float): The initial value of ``beta``.
)doc")
        .def(link_init<L::Swish>([](py::handle beta_shape, double beta_init) {
                 std::optional<Shape> shape;
                 if (!beta_shape.is_none()) shape = to_shape(beta_shape, "Swish");
                 return std::make_shared<L::Swish>(shape, beta_init);
             }),
             py::arg("beta_shape"), py::arg("beta_init") = 1.0);
    const auto dropconnect_forward = [](L::SimplifiedDropconnect& self, const Variable& x, bool train, py::handle mask,
                                        bool use_batchwise_mask) {
        return self.forward(x, train, to_array_or_undefined(mask), use_batchwise_mask);
    };
    const auto mgu_forward = [](L::StatelessMGU& self, const Variable& h, const Variable& x) {
        return self.forward(h, x);
    };
    link_class<L::SimplifiedDropconnect, L::Link>(
        m, "SimplifiedDropconnect",
        R"doc(Fully-connected layer with simplified DropConnect: the weights are dropped at random.

Holds ``W`` of shape ``(out_size, in_size)`` and ``b`` (``functions.simplified_dropconnect``).

Args:
    in_size (int or None): Input size (``None``: inferred).
    out_size (int): Output size.
    ratio (float): The dropping ratio.
    nobias (bool): No bias when ``True``.
    initialW: Initializer of ``W`` (``HeNormal(1 / sqrt(2))`` by default).
    initial_bias: Initializer of ``b`` (zeros by default).
)doc")
        .def(link_init<L::SimplifiedDropconnect>([](py::handle in_size, int64_t out_size, double ratio, bool nobias,
                                                    py::handle initialW, py::handle initial_bias) {
                 return std::make_shared<L::SimplifiedDropconnect>(optional_int(in_size), out_size, ratio, nobias,
                                                                   to_initializer(initialW),
                                                                   to_initializer(initial_bias));
             }),
             py::arg("in_size"), py::arg("out_size"), py::arg("ratio") = 0.5, py::arg("nobias") = false,
             py::arg("initialW") = py::none(), py::arg("initial_bias") = py::none())
        .def("__call__", dropconnect_forward, py::arg("x"), py::arg("train") = true, py::arg("mask") = py::none(),
             py::arg("use_batchwise_mask") = true)
        .def("forward", dropconnect_forward, py::arg("x"), py::arg("train") = true, py::arg("mask") = py::none(),
             py::arg("use_batchwise_mask") = true,
             "Applies the layer to ``x``, dropping weights when ``train``. ``mask`` (None: drawn) fixes the kept "
             "weights; the first mask given is kept as the link's ``mask``. ``use_batchwise_mask`` draws one mask per "
             "sample.")
        .def_property_readonly("out_size", &L::SimplifiedDropconnect::out_size, "The output size.")
        .def_property_readonly("ratio", &L::SimplifiedDropconnect::ratio, "The dropping ratio.");
    link_class<L::StatelessMGU, L::Chain>(m, "StatelessMGU", R"doc(Minimal gated unit whose state is passed explicitly.

``h_new = link(h, x)`` with ``f = sigmoid(W_f [h, x])``, ``h_bar = tanh(W_h [f * h, x])`` and
``h_new = f * h_bar + (1 - f) * h``.

Args:
    n_inputs (int): Input size.
    n_units (int): State size.
)doc")
        .def(link_init<L::StatelessMGU>([](int64_t n_inputs, int64_t n_units) {
                 return std::make_shared<L::StatelessMGU>(n_inputs, n_units);
             }),
             py::arg("n_inputs"), py::arg("n_units"))
        .def("__call__", mgu_forward, py::arg("h"), py::arg("x"))
        .def("forward", mgu_forward, py::arg("h"), py::arg("x"),
             "One step: returns the new state from ``h`` (batch, n_units) and ``x`` (batch, n_inputs).");
    link_class<L::StatefulMGU, L::Chain>(m, "StatefulMGU", R"doc(Minimal gated unit that keeps its state ``h``.

Each call ``link(x)`` advances ``h`` by one step as in StatelessMGU and returns it; before the first call (or after
``reset_state``) ``h`` is zeros.

Args:
    in_size (int): Input size.
    out_size (int): State size.
)doc")
        .def(link_init<L::StatefulMGU>(
                 [](int64_t in_size, int64_t out_size) { return std::make_shared<L::StatefulMGU>(in_size, out_size); }),
             py::arg("in_size"), py::arg("out_size"))
        .def_property_readonly(
            "h", [](const L::StatefulMGU& self) { return variable_or_none(self.h); }, "The state, or None.")
        .def("reset_state", &L::StatefulMGU::reset_state, "Sets ``h`` to None (zeros at the next call).")
        .def(
            "set_state", [](L::StatefulMGU& self, const Variable& h) { self.set_state(h); }, py::arg("h"),
            "Sets the state ``h``.");
    bind_stateful_lstm_links(m);
    bind_tree_lstm_links(m);
}

}  // namespace rensa::python::links_detail
