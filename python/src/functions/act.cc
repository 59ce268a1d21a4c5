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
    f.def("arctanh", &F::arctanh, py::arg("x"));
    f.def("erfcinv", &F::erfcinv, py::arg("x"));
    f.def("zeta", &F::zeta, py::arg("x"), py::arg("q"));
    // Chainer's rrelu(x, l=1/8, u=1/3, *, r=None, return_r=False).
    f.def(
        "rrelu",
        [](const Variable& x, double l, double u, const py::object& r, bool return_r) -> py::object {
            auto [y, used] = F::rrelu_with_r(x, l, u, to_array_or_undefined(r));
            if (!return_r) return py::cast(std::move(y));
            return py::make_tuple(std::move(y), array_or_none(used));
        },
        py::arg("x"), py::arg("l") = 1.0 / 8, py::arg("u") = 1.0 / 3, py::kw_only(), py::arg("r") = py::none(),
        py::arg("return_r") = false);
    f.def(
        "slstm",
        [](const Variable& c_prev1, const Variable& c_prev2, const Variable& x1, const Variable& x2) {
            return pair_tuple(F::slstm(c_prev1, c_prev2, x1, x2));
        },
        py::arg("c_prev1"), py::arg("c_prev2"), py::arg("x1"), py::arg("x2"));
    // Chainer's tree_lstm(*inputs): the children's cell states, then x.
    f.def("tree_lstm", [](const py::args& inputs) {
        std::vector<Variable> cs = to_variables(inputs);
        RENSA_CHECK(cs.size() >= 2, ValueError,
                    "tree_lstm: Expect: at least two inputs (cell states and x), Actual: ", cs.size());
        const Variable x = cs.back();
        cs.pop_back();
        return pair_tuple(F::tree_lstm(cs, x));
    });
    f.def(
        "simplified_dropconnect",
        [](const Variable& x, const Variable& W, const py::object& b, double ratio, bool train, const py::object& mask,
           bool use_batchwise_mask) {
            return F::simplified_dropconnect(x, W, to_variable_or_undefined(b), ratio, train,
                                             to_array_or_undefined(mask), use_batchwise_mask);
        },
        py::arg("x"), py::arg("W"), py::arg("b") = py::none(), py::arg("ratio") = 0.5, py::arg("train") = true,
        py::arg("mask") = py::none(), py::arg("use_batchwise_mask") = true);
    f.def("forget", &forget, py::arg("func"));
}

}  // namespace rensa::python::functions_bind
