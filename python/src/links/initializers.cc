// rensa._core.initializers: Chainer's initializer classes, callable on a numpy array
// (filled in place) and subclassable from Python (override __call__(self, array)).
#include <memory>
#include <string>

#include "core/error.h"
#include "links/initializers.h"
#include "python/src/links/links.h"

namespace rensa::python::links_detail {
namespace init = rensa::initializers;

namespace {

// A Python subclass of Initializer fills the array in its __call__ (a numpy view of it).
class PyInitializer : public init::Initializer, public py::trampoline_self_life_support {
public:
    using init::Initializer::Initializer;
    void operator()(const Array& array) const override {
        py::gil_scoped_acquire gil;
        py::function f = py::get_override(static_cast<const init::Initializer*>(this), "__call__");
        RENSA_CHECK(f, NotImplementedError, "Initializer subclass must define __call__(self, array)");
        f(to_numpy(array));
    }
};

std::optional<Dtype> optional_dtype(py::handle obj) {
    if (obj.is_none()) return std::nullopt;
    return to_dtype(obj);
}

template <class T>
void bind_scaled(py::module_& m, const char* name, double default_scale) {
    py::classh<T, init::Initializer>(m, name).def(
        py::init([](double scale, py::handle dtype) { return std::make_shared<T>(scale, optional_dtype(dtype)); }),
        py::arg("scale") = default_scale, py::arg("dtype") = py::none());
}

template <class T>
void bind_he(py::module_& m, const char* name) {
    py::classh<T, init::Initializer>(m, name).def(
        py::init([](double scale, py::handle dtype, std::string fan_option) {
            return std::make_shared<T>(scale, optional_dtype(dtype), std::move(fan_option));
        }),
        py::arg("scale") = 1.0, py::arg("dtype") = py::none(), py::arg("fan_option") = "fan_in");
}

template <class T>
void bind_unscaled(py::module_& m, const char* name) {
    py::classh<T, init::Constant>(m, name).def(
        py::init([](py::handle dtype) { return std::make_shared<T>(optional_dtype(dtype)); }),
        py::arg("dtype") = py::none());
}

}  // namespace

void bind_initializers(py::module_& m) {
    py::classh<init::Initializer, PyInitializer>(m, "Initializer")
        .def(py::init([](py::handle dtype) { return std::make_shared<PyInitializer>(optional_dtype(dtype)); }),
             py::arg("dtype") = py::none())
        .def_property_readonly("dtype",
                               [](const init::Initializer& self) -> py::object {
                                   if (!self.dtype()) return py::none();
                                   return dtype_to_python(*self.dtype());
                               })
        // Fills `array` in place (a numpy array of a rensa dtype is written without a copy).
        .def(
            "__call__", [](const init::Initializer& self, py::handle array) { self(to_array(array)); },
            py::arg("array"));

    auto constant = py::classh<init::Constant, init::Initializer>(m, "Constant");
    constant
        .def(py::init([](double fill_value, py::handle dtype) {
                 return std::make_shared<init::Constant>(fill_value, optional_dtype(dtype));
             }),
             py::arg("fill_value"), py::arg("dtype") = py::none())
        .def_property_readonly("fill_value", &init::Constant::fill_value);
    bind_unscaled<init::Zero>(m, "Zero");
    bind_unscaled<init::One>(m, "One");
    bind_unscaled<init::NaN>(m, "NaN");
    bind_scaled<init::Normal>(m, "Normal", 0.05);
    bind_scaled<init::Uniform>(m, "Uniform", 0.05);
    bind_scaled<init::LeCunNormal>(m, "LeCunNormal", 1.0);
    bind_scaled<init::LeCunUniform>(m, "LeCunUniform", 1.0);
    bind_scaled<init::GlorotNormal>(m, "GlorotNormal", 1.0);
    bind_scaled<init::GlorotUniform>(m, "GlorotUniform", 1.0);
    bind_scaled<init::Orthogonal>(m, "Orthogonal", 1.0);
    bind_scaled<init::Identity>(m, "Identity", 1.0);
    bind_he<init::HeNormal>(m, "HeNormal");
    bind_he<init::HeUniform>(m, "HeUniform");
    // Chainer's numpy-array initializer (what initialW=array becomes).
    py::classh<init::FromArray, init::Initializer>(m, "FromArray")
        .def(py::init([](py::handle value) { return std::make_shared<init::FromArray>(to_array(value)); }),
             py::arg("value"));
    m.def(
        "get_fans", [](py::handle shape) { return init::get_fans(to_shape(shape, "initializers.get_fans")); },
        py::arg("shape"));
}

// --- Conversions shared by the links bind files (the others are in python/src/convert/) -----

initializers::InitializerPtr to_initializer(py::handle obj) {
    if (obj.is_none()) return nullptr;
    if (py::isinstance<init::Initializer>(obj)) return obj.cast<std::shared_ptr<init::Initializer>>();
    if (py::isinstance<py::bool_>(obj) || py::isinstance<py::int_>(obj) || py::isinstance<py::float_>(obj)) {
        return init::constant(obj.cast<double>());
    }
    // numpy scalars and arrays; a 0-d array is a constant, as in Chainer.
    Array value = to_array(obj);
    if (value.ndim() == 0)
        return init::constant(py::reinterpret_steal<py::object>(PyNumber_Float(obj.ptr())).cast<double>());
    return init::from_array(value);
}

}  // namespace rensa::python::links_detail
