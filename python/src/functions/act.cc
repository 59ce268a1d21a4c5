// rensa._core.functions, issue 23's special functions, activations, noise and recurrent
// cells: arctanh, erfcinv, zeta, rrelu, slstm, tree_lstm, simplified_dropconnect and forget,
// with Chainer's positional order, keyword names and defaults.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "functions/util.h"
#include "python/src/functions/functions.h"

namespace rensa::python::functions_bind {
namespace {

// (c, h) as Chainer's cells return them.
py::tuple pair_tuple(std::pair<Variable, Variable> p) {
    return py::make_tuple(std::move(p.first), std::move(p.second));
}

// Chainer's _call_func: a Variable is one output, a tuple must hold only Variables.
std::vector<Variable> forget_outputs(const py::object& outs, bool& single) {
    single = py::isinstance<Variable>(outs);
    if (single) return {outs.cast<Variable>()};
    if (!py::isinstance<py::tuple>(outs)) {
        throw std::runtime_error("forget: A tuple of Variables or a Variable are expected, but " +
                                 py::str(py::type::of(outs)).cast<std::string>() + " is returned.");
    }
    std::vector<Variable> vars;
    for (const py::handle out : outs) {
        if (!py::isinstance<Variable>(out)) {
            throw std::runtime_error("forget: element " + std::to_string(vars.size() + 1) +
                                     " of a returned tuple is not Variable, but is " +
                                     py::str(py::type::of(out)).cast<std::string>());
        }
        vars.push_back(out.cast<Variable>());
    }
    return vars;
}

// F.forget(func, *xs): the graph node keeps func, maybe past the last Python reference and
// released without the GIL, so the reference is dropped under the GIL.
py::object forget(const py::object& func, const py::args& xs) {
    if (!PyCallable_Check(func.ptr())) throw py::type_error("func must be callable");
    const std::shared_ptr<py::object> held(new py::object(func), [](py::object* p) {
        py::gil_scoped_acquire gil;
        delete p;
    });
    const auto single = std::make_shared<bool>(false);
    const F::ForgetFunction call = [held, single](const std::vector<Variable>& inputs) {
        py::gil_scoped_acquire gil;
        py::tuple args(inputs.size());
        for (size_t k = 0; k < inputs.size(); ++k) args[k] = py::cast(inputs[k]);
        return forget_outputs((*held)(*args), *single);
    };
    std::vector<Variable> ys = F::forget(call, to_variables(xs));
    if (*single) return py::cast(std::move(ys[0]));
    return py::cast(ys).cast<py::tuple>();
}

}  // namespace

void bind_act(py::module_& f) {
    f.def("arctanh", &F::arctanh, py::arg("x"),
          R"doc(Elementwise inverse hyperbolic tangent function.

:param x: Input variable of a floating-point dtype. Outside ``[-1, 1]`` the result is NaN, at the
    ends it is infinite.
:returns: A variable of x's shape and dtype.)doc");
    f.def("erfcinv", &F::erfcinv, py::arg("x"),
          R"doc(Elementwise inverse of the complementary error function, defined on ``[0, 2]``.

:param x: Input variable of a floating-point dtype. Outside ``[0, 2]`` the result is NaN; it is
    ``+inf`` at 0 and ``-inf`` at 2.
:returns: A variable of x's shape and dtype.)doc");
    f.def("zeta", &F::zeta, py::arg("x"), py::arg("q"),
          R"doc(Hurwitz zeta function ``sum_k (q + k) ** -x`` (``scipy.special.zeta``).

:param x: The exponent, an array of any numeric dtype but bool; it is a constant (not
    differentiated), as in Chainer. The result is NaN for ``x < 1``.
:param q: Floating-point input variable; x and q broadcast.
:returns: A variable of q's dtype.)doc");
    // Chainer's rrelu(x, l=1/8, u=1/3, *, r=None, return_r=False).
    f.def(
        "rrelu",
        [](const Variable& x, double l, double u, const py::object& r, bool return_r) -> py::object {
            auto [y, used] = F::rrelu_with_r(x, l, u, to_array_or_undefined(r));
            if (!return_r) return py::cast(std::move(y));
            return py::make_tuple(std::move(y), array_or_none(used));
        },
        py::arg("x"), py::arg("l") = 1.0 / 8, py::arg("u") = 1.0 / 3, py::kw_only(), py::arg("r") = py::none(),
        py::arg("return_r") = false,
        R"doc(Randomized Leaky ReLU: ``x`` where ``x >= 0``, ``r * x`` elsewhere.

In training (``chainer.config.train``) ``r`` is drawn from ``U(l, u)`` per element with rensa's
seeded generator, unless given; in test mode ``r`` is ``(l + u) / 2`` everywhere, given or not, as
in Chainer.

:param x: Input variable of a floating-point dtype.
:param l: Lower bound of the uniform distribution of ``r``.
:param u: Upper bound of the uniform distribution of ``r``.
:param r: Keyword only: the slopes to use (x's shape and dtype) instead of random ones.
:param return_r: Keyword only: also return the ``r`` used.
:returns: The output variable, or ``(y, r)`` with ``return_r=True``.)doc");
    f.def(
        "slstm",
        [](const Variable& c_prev1, const Variable& c_prev2, const Variable& x1, const Variable& x2) {
            return pair_tuple(F::slstm(c_prev1, c_prev2, x1, x2));
        },
        py::arg("c_prev1"), py::arg("c_prev2"), py::arg("x1"), py::arg("x2"),
        R"doc(S-LSTM unit of two children (Tai et al., 2015).

``x1`` and ``x2`` of shape ``(batch, 4 * units, ...)`` hold the gates ``a, i, f, o`` interleaved as
in :func:`lstm`. The cell computes ``c = tanh(a1) sigmoid(i1) + tanh(a2) sigmoid(i2) + sigmoid(f1)
c_prev1 + sigmoid(f2) c_prev2`` and ``h = sigmoid(o1 + o2) tanh(c)``.

:param c_prev1: Cell state of the first child, ``(batch, units, ...)``.
:param c_prev2: Cell state of the second child, ``(batch, units, ...)``.
:param x1: Gate pre-activations from the first child.
:param x2: Gate pre-activations from the second child.
:returns: A tuple ``(c, h)``.)doc");
    // Chainer's tree_lstm(*inputs): the children's cell states, then x.
    f.def(
        "tree_lstm",
        [](const py::args& inputs) {
            std::vector<Variable> cs = to_variables(inputs);
            RENSA_CHECK(cs.size() >= 2, ValueError,
                        "tree_lstm: Expect: at least two inputs (cell states and x), Actual: ", cs.size());
            const Variable x = cs.back();
            cs.pop_back();
            return pair_tuple(F::tree_lstm(cs, x));
        },
        R"doc(Tree-LSTM unit of N children, called as ``tree_lstm(c_1, ..., c_N, x)``.

``x`` of shape ``(batch, (3 + N) * units, ...)`` holds the gates ``a, i, o, f_1 ... f_N`` in blocks
(``x.reshape(batch, 3 + N, units, ...)[:, k]``). The cell computes ``c = tanh(a) sigmoid(i) +
sum_k sigmoid(f_k) c_k`` and ``h = sigmoid(o) tanh(c)``.

:param inputs: The children's cell states ``(batch, units, ...)``, then ``x``; at least two inputs.
:returns: A tuple ``(c, h)``.)doc");
    f.def(
        "simplified_dropconnect",
        [](const Variable& x, const Variable& W, const py::object& b, double ratio, bool train, const py::object& mask,
           bool use_batchwise_mask) {
            return F::simplified_dropconnect(x, W, to_variable_or_undefined(b), ratio, train,
                                             to_array_or_undefined(mask), use_batchwise_mask);
        },
        py::arg("x"), py::arg("W"), py::arg("b") = py::none(), py::arg("ratio") = 0.5, py::arg("train") = true,
        py::arg("mask") = py::none(), py::arg("use_batchwise_mask") = true,
        R"doc(Linear unit with DropConnect on its weights: ``linear(x, W * mask, b)``.

Each element of ``W`` is dropped with probability ``ratio`` and the rest are scaled by
``1 / (1 - ratio)``. Unlike :func:`dropout`, this follows its ``train`` argument, not
``chainer.config.train``.

:param x: Input of shape ``(n, ...)``, viewed as ``(n, N)``.
:param W: Weight of shape ``(M, N)``.
:param b: Bias of shape ``(M,)``, or None.
:param ratio: Dropping ratio, in ``[0, 1)``.
:param train: Without a mask, ``False`` disables dropping (ratio 0).
:param mask: A mask to use as is (nonzero keeps), also when not training: ``(n, M, N)`` with
    ``use_batchwise_mask``, else ``(M, N)``.
:param use_batchwise_mask: Draw a separate mask for each sample.
:returns: A variable of shape ``(n, M)``.)doc");
    f.def("forget", &forget, py::arg("func"),
          R"doc(Calls ``func(*xs)`` without keeping its intermediate variables; they are recomputed in backward.

This trades computation for memory, as Chainer's ``F.forget``. ``func`` must return a variable or a
tuple of variables and give the same results when called again (random functions in it draw new
noise). Double backprop through it raises ``NotImplementedError``, as in Chainer.

:param func: A callable taking the variables ``xs`` and returning a variable or tuple of variables.
:param xs: The input variables (positional).
:returns: What ``func`` returns: one variable, or a tuple of variables.)doc");
}

}  // namespace rensa::python::functions_bind
