// rensa._core.functions, group a: the entry point, the shared argument conversions, and the
// activation and noise families. Functions are bound directly (no Python frame per call)
// with Chainer's positional order, keyword names and defaults.
#include <utility>

#include "autograd/modes.h"
#include "core/error.h"
#include "core/ops/random.h"
#include "functions/activation.h"
#include "functions/array.h"
#include "functions/math.h"
#include "functions/noise.h"
#include "python/src/functions_a.h"

namespace rensa::python {
namespace functions_a {
namespace {

// An integer-like Python object (int, numpy integer; anything with __index__).
bool is_index(py::handle obj) { return PyIndex_Check(obj.ptr()) != 0; }

int64_t index_value(py::handle obj) {
    const Py_ssize_t value = PyNumber_AsSsize_t(obj.ptr(), PyExc_OverflowError);
    if (value == -1 && PyErr_Occurred() != nullptr) {
        throw py::error_already_set();
    }
    return static_cast<int64_t>(value);
}

// Applies `add` to each int of obj (an int or a sequence of ints).
template <class Add>
void for_each_int(py::handle obj, const char* op, const char* what, Add add) {
    if (is_index(obj)) {
        add(index_value(obj));
        return;
    }
    if (!py::isinstance<py::sequence>(obj) || py::isinstance<py::str>(obj)) {
        throw py::type_error(std::string(op) + ": " + what + " must be an int or a tuple of ints, got " +
                             std::string(py::str(py::type::of(obj).attr("__name__"))));
    }
    for (const py::object item : py::reinterpret_borrow<py::sequence>(obj)) {  // owned: items may be new
        if (!is_index(item)) {
            throw py::type_error(std::string(op) + ": " + what + " must hold ints, got " +
                                 std::string(py::str(py::type::of(item).attr("__name__"))));
        }
        add(index_value(item));
    }
}

}  // namespace

std::optional<Axes> to_axes(py::handle obj, const char* op) {
    if (obj.is_none()) {
        return std::nullopt;
    }
    Axes axes;
    for_each_int(obj, op, "axis", [&](int64_t a) { axes.push_back(static_cast<int>(a)); });
    return axes;
}

Shape to_shape(py::handle obj, const char* op) {
    Shape shape;
    for_each_int(obj, op, "shape", [&](int64_t d) { shape.push_back(d); });
    return shape;
}

std::vector<int64_t> to_int64s(py::handle obj, const char* op) {
    std::vector<int64_t> values;
    for_each_int(obj, op, "the argument", [&](int64_t v) { values.push_back(v); });
    return values;
}

std::vector<Variable> to_variables(py::handle seq) {
    std::vector<Variable> vars;
    if (py::isinstance<py::sequence>(seq)) {
        vars.reserve(py::len(seq));
    }
    for (py::handle item : seq) {
        vars.push_back(to_variable(item));
    }
    return vars;
}

py::tuple to_tuple(std::vector<Variable> vars) {
    py::tuple out(vars.size());
    for (size_t i = 0; i < vars.size(); ++i) {
        out[i] = py::cast(std::move(vars[i]));
    }
    return out;
}

py::object array_or_none(const Array& array) { return array.defined() ? to_numpy(array) : py::none(); }

void bind_activation(py::module_& f) {
    f.def("relu", &F::relu, py::arg("x"));
    f.def("leaky_relu", &F::leaky_relu, py::arg("x"), py::arg("slope") = 0.2);
    f.def("elu", &F::elu, py::arg("x"), py::arg("alpha") = 1.0);
    f.def("selu", &F::selu, py::arg("x"), py::arg("alpha") = 1.6732632423543772, py::arg("scale") = 1.0507009873554805);
    f.def("clipped_relu", &F::clipped_relu, py::arg("x"), py::arg("z") = 20.0);
    f.def("sigmoid", &F::sigmoid, py::arg("x"));
    f.def("hard_sigmoid", &F::hard_sigmoid, py::arg("x"));
    f.def("tanh", &F::tanh, py::arg("x"));
    f.def("softplus", &F::softplus, py::arg("x"), py::arg("beta") = 1.0);
    f.def("swish", &F::swish, py::arg("x"), py::arg("beta"));
    f.def("gelu", &F::gelu, py::arg("x"));
    f.def("softmax", &F::softmax, py::arg("x"), py::arg("axis") = 1);
    f.def("log_softmax", &F::log_softmax, py::arg("x"), py::arg("axis") = 1);
    f.def("prelu", &F::prelu, py::arg("x"), py::arg("W"));
    f.def("maxout", &F::maxout, py::arg("x"), py::arg("pool_size"), py::arg("axis") = 1);
    f.def("lstm", &F::lstm, py::arg("c_prev"), py::arg("x"));
    // Chainer's relu6 and crelu, composed of C++ functions.
    f.def(
        "relu6", [](const Variable& x) { return F::clipped_relu(x, 6.0); }, py::arg("x"));
    f.def(
        "crelu",
        [](const Variable& x, int axis) {
            return F::concat({F::relu(x), F::relu(F::neg(x))}, axis);
        },
        py::arg("x"), py::arg("axis") = 1);
}

void bind_noise(py::module_& f) {
    // Chainer's dropout(x, ratio=.5, *, mask=None, return_mask=False).
    f.def(
        "dropout",
        [](const Variable& x, double ratio, py::object mask, bool return_mask) -> py::object {
            if (!mask.is_none()) {
                Variable y = F::dropout(x, ratio, to_array(mask));
                return return_mask ? py::object(py::make_tuple(y, mask)) : py::cast(std::move(y));
            }
            if (return_mask) {
                auto [y, used] = F::dropout_with_mask(x, ratio);
                return py::make_tuple(std::move(y), array_or_none(used));
            }
            return py::cast(F::dropout(x, ratio));
        },
        py::arg("x"), py::arg("ratio") = 0.5, py::kw_only(), py::arg("mask") = py::none(),
        py::arg("return_mask") = false);
    // Chainer's gaussian(mean, ln_var, *, eps=None, return_eps=False). For return_eps in
    // training the noise is drawn here (rensa's seeded generator) so that it can be returned;
    // outside training y is mean and eps None, as C++'s gaussian does.
    f.def(
        "gaussian",
        [](const Variable& mean, const Variable& ln_var, py::object eps, bool return_eps) -> py::object {
            if (!eps.is_none()) {
                Variable y = F::gaussian(mean, ln_var, to_array(eps));
                return return_eps ? py::object(py::make_tuple(std::move(y), eps)) : py::cast(std::move(y));
            }
            if (!return_eps) {
                return py::cast(F::gaussian(mean, ln_var));
            }
            if (!config().train) {
                return py::make_tuple(F::gaussian(mean, ln_var), py::none());
            }
            const Array noise = ops::normal(mean.shape(), 0.0, 1.0, mean.dtype(), mean.device());
            return py::make_tuple(F::gaussian(mean, ln_var, noise), to_numpy(noise));
        },
        py::arg("mean"), py::arg("ln_var"), py::kw_only(), py::arg("eps") = py::none(), py::arg("return_eps") = false);
    // Chainer's zoneout(h, x, ratio=.5): h where a Bernoulli(ratio) mask is set, x elsewhere
    // (applied regardless of the train mode, as Chainer does).
    f.def(
        "zoneout",
        [](const Variable& h, const Variable& x, double ratio) {
            RENSA_CHECK(ratio >= 0.0 && ratio <= 1.0, ValueError, "zoneout: ratio must be in [0, 1], got ", ratio);
            return F::where(ops::bernoulli(h.shape(), ratio, Dtype::kBool, h.device()), h, x);
        },
        py::arg("h"), py::arg("x"), py::arg("ratio") = 0.5);
    f.def("gumbel_softmax", &F::gumbel_softmax, py::arg("log_p"), py::arg("tau") = 0.1, py::arg("axis") = 1);
}

}  // namespace functions_a

void bind_functions_a(py::module_& m) {
    py::module_ f = m.def_submodule("functions");
    functions_a::bind_activation(f);
    functions_a::bind_noise(f);
    functions_a::bind_array(f);
    functions_a::bind_array_indexing(f, m);
    functions_a::bind_math(f);
    functions_a::bind_math_products(f);
}

}  // namespace rensa::python
