// rensa._core.links, the recurrent links of links/connection: LSTM, StatelessLSTM,
// StatefulGRU, GRU, StatelessGRU. Their state reads None until set, as in Chainer.
#include <memory>
#include <optional>
#include <utility>

#include "links/connection/gru.h"
#include "links/connection/lstm.h"
#include "python/src/convert/variables.h"
#include "python/src/links/links.h"

namespace rensa::python::links_detail {
namespace L = rensa::links;

namespace {

std::pair<Variable, Variable> stateless_lstm_forward(L::StatelessLSTM& self, py::handle c, py::handle h,
                                                     const Variable& x) {
    return self.forward(to_variable_or_undefined(c), to_variable_or_undefined(h), x);
}

Variable stateless_gru_forward(L::StatelessGRU& self, py::handle h, const Variable& x) {
    return self.forward(to_variable_or_undefined(h), x);
}

}  // namespace

void bind_recurrent_links(py::module_& m) {
    auto lstm_options = [](py::handle lateral_init, py::handle upward_init, py::handle bias_init,
                           py::handle forget_bias_init) {
        return L::LSTMOptions{to_initializer(lateral_init), to_initializer(upward_init), to_initializer(bias_init),
                              to_initializer(forget_bias_init)};
    };
    link_class<L::LSTM, L::Chain>(m, "LSTM", R"doc(Fully-connected LSTM layer that keeps its state.

Each call ``lstm(x)`` advances the cell state ``c`` and the output ``h`` by one step (``functions.lstm``) and returns
the new ``h``; ``reset_state()`` starts a new sequence. ``LSTM(out_size)`` is the short form with a lazy
``in_size``. A batch smaller than the state's continues the first rows.

Args:
    in_size (int or None): Input size (``None``: inferred).
    out_size (int): Output (state) size.
    lateral_init: Initializer of the lateral (hidden-to-hidden) weight.
    upward_init: Initializer of the upward (input-to-hidden) weight.
    bias_init: Initializer of the biases of the cell input, input gate and output gate.
    forget_bias_init: Initializer of the forget gate's bias.
)doc")
        .def(link_init<L::LSTM>([lstm_options](py::handle in_size, py::handle out_size, py::handle lateral_init,
                                               py::handle upward_init, py::handle bias_init,
                                               py::handle forget_bias_init) {
                 return std::make_shared<L::LSTM>(optional_int(in_size), optional_int(out_size),
                                                  lstm_options(lateral_init, upward_init, bias_init, forget_bias_init));
             }),
             py::arg("in_size"), py::arg("out_size") = py::none(), py::arg("lateral_init") = py::none(),
             py::arg("upward_init") = py::none(), py::arg("bias_init") = py::none(),
             py::arg("forget_bias_init") = py::none())
        .def_property_readonly(
            "h", [](const L::LSTM& self) { return variable_or_none(self.h); }, "The output of the last step, or None.")
        .def_property_readonly(
            "c", [](const L::LSTM& self) { return variable_or_none(self.c); }, "The cell state, or None.")
        .def_property_readonly("state_size", &L::LSTM::state_size, "The size of ``h`` and ``c`` (``out_size``).")
        .def("reset_state", &L::LSTM::reset_state, "Sets ``h`` and ``c`` to None (a new sequence).")
        .def(
            "set_state",
            [](L::LSTM& self, py::handle c, py::handle h) {
                self.set_state(to_variable_or_undefined(c), to_variable_or_undefined(h));
            },
            py::arg("c"), py::arg("h"), "Sets the cell state ``c`` and the output ``h`` (either may be None).");

    link_class<L::StatelessLSTM, L::Chain>(m, "StatelessLSTM",
                                           R"doc(Fully-connected LSTM layer whose state is passed explicitly.

``c, h = lstm(c, h, x)``: one step from the given state (``None`` for the first step) to the new one.

Args:
    in_size (int or None): Input size (``None``: inferred).
    out_size (int): Output (state) size.
    lateral_init: Initializer of the lateral (hidden-to-hidden) weight.
    upward_init: Initializer of the upward (input-to-hidden) weight.
    bias_init: Initializer of the biases of the cell input, input gate and output gate.
    forget_bias_init: Initializer of the forget gate's bias.
)doc")
        .def(link_init<L::StatelessLSTM>([lstm_options](py::handle in_size, py::handle out_size,
                                                        py::handle lateral_init, py::handle upward_init,
                                                        py::handle bias_init, py::handle forget_bias_init) {
                 return std::make_shared<L::StatelessLSTM>(
                     optional_int(in_size), optional_int(out_size),
                     lstm_options(lateral_init, upward_init, bias_init, forget_bias_init));
             }),
             py::arg("in_size"), py::arg("out_size") = py::none(), py::arg("lateral_init") = py::none(),
             py::arg("upward_init") = py::none(), py::arg("bias_init") = py::none(),
             py::arg("forget_bias_init") = py::none())
        // Chainer's forward(c, h, x); c and h may be None (the first step).
        .def("__call__", stateless_lstm_forward, py::arg("c"), py::arg("h"), py::arg("x"))
        .def("forward", stateless_lstm_forward, py::arg("c"), py::arg("h"), py::arg("x"),
             "One step: returns the new ``(c, h)`` from the previous cell state ``c``, output ``h`` (None for zeros) "
             "and the input ``x``.")
        .def_property_readonly("state_size", &L::StatelessLSTM::state_size, "The size of ``h`` and ``c``.");

    link_class<L::StatefulGRU, L::Chain>(m, "StatefulGRU", R"doc(Gated recurrent unit that keeps its state ``h``.

Each call ``gru(x)`` advances ``h`` by one step and returns it; ``reset_state()`` starts a new sequence.

Args:
    in_size (int or None): Input size (``None``: inferred).
    out_size (int): Output (state) size.
    init: Initializer of the input-to-hidden weights.
    inner_init: Initializer of the hidden-to-hidden weights.
    bias_init: Initializer of the biases.
)doc")
        .def(link_init<L::StatefulGRU>([](py::handle in_size, int64_t out_size, py::handle init, py::handle inner_init,
                                          py::handle bias_init) {
                 return std::make_shared<L::StatefulGRU>(
                     optional_int(in_size), out_size,
                     L::GRUOptions{to_initializer(init), to_initializer(inner_init), to_initializer(bias_init)});
             }),
             py::arg("in_size"), py::arg("out_size"), py::arg("init") = py::none(), py::arg("inner_init") = py::none(),
             py::arg("bias_init") = 0)  // Chainer's StatefulGRU: 0 (StatelessGRU: None, the same zeros)
        .def_property_readonly(
            "h", [](const L::StatefulGRU& self) { return variable_or_none(self.h); },
            "The output of the last step, or None.")
        .def("reset_state", &L::StatefulGRU::reset_state, "Sets ``h`` to None (a new sequence).")
        .def(
            "set_state", [](L::StatefulGRU& self, py::handle h) { self.set_state(to_variable_or_undefined(h)); },
            py::arg("h"), "Sets the state ``h``.");
    link_class<L::GRU, L::StatefulGRU>(m, "GRU",
                                       R"doc(Stateful gated recurrent unit (Chainer's ``links.GRU``, a StatefulGRU).

``GRU(in_size, out_size)``; ``in_size=None`` infers the input size. Initializers as in StatefulGRU.
)doc")
        .def(link_init<L::GRU>([](py::handle in_size, py::handle out_size, py::handle init, py::handle inner_init,
                                  py::handle bias_init) {
                 return std::make_shared<L::GRU>(
                     optional_int(in_size), optional_int(out_size),
                     L::GRUOptions{to_initializer(init), to_initializer(inner_init), to_initializer(bias_init)});
             }),
             py::arg("in_size"), py::arg("out_size"), py::arg("init") = py::none(), py::arg("inner_init") = py::none(),
             py::arg("bias_init") = 0);
    link_class<L::StatelessGRU, L::Chain>(m, "StatelessGRU",
                                          R"doc(Gated recurrent unit whose state is passed explicitly.

``h = gru(h, x)``: one step from the given state (``None`` for the first step).

Args:
    in_size (int or None): Input size (``None``: inferred).
    out_size (int): Output (state) size.
    init: Initializer of the input-to-hidden weights.
    inner_init: Initializer of the hidden-to-hidden weights.
    bias_init: Initializer of the biases.
)doc")
        .def(link_init<L::StatelessGRU>([](py::handle in_size, int64_t out_size, py::handle init, py::handle inner_init,
                                           py::handle bias_init) {
                 return std::make_shared<L::StatelessGRU>(
                     optional_int(in_size), out_size,
                     L::GRUOptions{to_initializer(init), to_initializer(inner_init), to_initializer(bias_init)});
             }),
             py::arg("in_size"), py::arg("out_size"), py::arg("init") = py::none(), py::arg("inner_init") = py::none(),
             py::arg("bias_init") = py::none())
        // Chainer's forward(h, x); h may be None (the first step).
        .def("__call__", stateless_gru_forward, py::arg("h"), py::arg("x"))
        .def("forward", stateless_gru_forward, py::arg("h"), py::arg("x"),
             "One step: returns the new state from the previous ``h`` (None for zeros) and the input ``x``.");
}

}  // namespace rensa::python::links_detail
