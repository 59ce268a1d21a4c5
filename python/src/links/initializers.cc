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
void bind_scaled(py::module_& m, const char* name, double default_scale, const char* doc) {
    py::classh<T, init::Initializer>(m, name, doc)
        .def(py::init([](double scale, py::handle dtype) { return std::make_shared<T>(scale, optional_dtype(dtype)); }),
             py::arg("scale") = default_scale, py::arg("dtype") = py::none());
}

template <class T>
void bind_he(py::module_& m, const char* name, const char* doc) {
    py::classh<T, init::Initializer>(m, name, doc)
        .def(py::init([](double scale, py::handle dtype, std::string fan_option) {
                 return std::make_shared<T>(scale, optional_dtype(dtype), std::move(fan_option));
             }),
             py::arg("scale") = 1.0, py::arg("dtype") = py::none(), py::arg("fan_option") = "fan_in");
}

template <class T>
void bind_unscaled(py::module_& m, const char* name, const char* doc) {
    py::classh<T, init::Constant>(m, name, doc)
        .def(py::init([](py::handle dtype) { return std::make_shared<T>(optional_dtype(dtype)); }),
             py::arg("dtype") = py::none());
}

}  // namespace

void bind_initializers(py::module_& m) {
    py::classh<init::Initializer, PyInitializer>(m, "Initializer", R"doc(Base class of the initializers.

An initializer fills an array in place: ``initializer(array)``. The links accept one as ``initialW`` /
``initial_bias`` (as they accept a scalar or an array). A Python subclass overrides ``__call__(self, array)``, which
receives a numpy array to write into.

Args:
    dtype: The dtype the initializer produces, or ``None`` (any floating dtype). When set, an array of another dtype
        is rejected.
)doc")
        .def(py::init([](py::handle dtype) { return std::make_shared<PyInitializer>(optional_dtype(dtype)); }),
             py::arg("dtype") = py::none())
        .def_property_readonly(
            "dtype",
            [](const init::Initializer& self) -> py::object {
                if (!self.dtype()) return py::none();
                return dtype_to_python(*self.dtype());
            },
            "The dtype this initializer is restricted to, or ``None``.")
        // Fills `array` in place (a numpy array of a rensa dtype is written without a copy).
        .def(
            "__call__", [](const init::Initializer& self, py::handle array) { self(to_array(array)); },
            py::arg("array"), "Fills ``array`` in place (a numpy array of a rensa dtype is written without a copy).");

    auto constant = py::classh<init::Constant, init::Initializer>(m, "Constant", R"doc(Fills an array with a constant.

Args:
    fill_value (float): The value every element is set to.
    dtype: The dtype of the array, or ``None``.
)doc");
    constant
        .def(py::init([](double fill_value, py::handle dtype) {
                 return std::make_shared<init::Constant>(fill_value, optional_dtype(dtype));
             }),
             py::arg("fill_value"), py::arg("dtype") = py::none())
        .def_property_readonly("fill_value", &init::Constant::fill_value, "The value the array is filled with.");
    bind_unscaled<init::Zero>(m, "Zero", "Fills an array with zeros (``Constant(0)``); ``dtype`` as in Constant.");
    bind_unscaled<init::One>(m, "One", "Fills an array with ones (``Constant(1)``); ``dtype`` as in Constant.");
    bind_unscaled<init::NaN>(
        m, "NaN",
        "Fills an array with NaN (``Constant(nan)``), the default of ``Link.add_param`` without an "
        "initializer, so that a parameter left uninitialised shows.");
    bind_scaled<init::Normal>(m, "Normal", 0.05, R"doc(Draws each element from the normal distribution N(0, scale^2).

Args:
    scale (float): The standard deviation.
    dtype: The dtype of the array, or ``None``.

Samples come from rensa's global generator (seeded by ``rensa.seed``), not from numpy's.
)doc");
    bind_scaled<init::Uniform>(m, "Uniform", 0.05,
                               R"doc(Draws each element from the uniform distribution U(-scale, scale).

Args:
    scale (float): The bound of the interval.
    dtype: The dtype of the array, or ``None``.

Samples come from rensa's global generator (seeded by ``rensa.seed``), not from numpy's.
)doc");
    bind_scaled<init::LeCunNormal>(m, "LeCunNormal", 1.0, R"doc(LeCun's normal initializer.

Draws from N(0, s^2) with ``s = scale * sqrt(1 / fan_in)`` (see ``get_fans``). It is the default weight initializer
of Linear and the convolutions.

Args:
    scale (float): A factor on the standard deviation.
    dtype: The dtype of the array, or ``None``.
)doc");
    bind_scaled<init::LeCunUniform>(m, "LeCunUniform", 1.0, R"doc(LeCun's uniform initializer.

Draws from U(-s, s) with ``s = scale * sqrt(3 / fan_in)`` (see ``get_fans``).

Args:
    scale (float): A factor on the bound.
    dtype: The dtype of the array, or ``None``.
)doc");
    bind_scaled<init::GlorotNormal>(m, "GlorotNormal", 1.0, R"doc(Glorot's (Xavier's) normal initializer.

Draws from N(0, s^2) with ``s = scale * sqrt(2 / (fan_in + fan_out))`` (see ``get_fans``).

Args:
    scale (float): A factor on the standard deviation.
    dtype: The dtype of the array, or ``None``.
)doc");
    bind_scaled<init::GlorotUniform>(m, "GlorotUniform", 1.0, R"doc(Glorot's (Xavier's) uniform initializer.

Draws from U(-s, s) with ``s = scale * sqrt(6 / (fan_in + fan_out))`` (see ``get_fans``).

Args:
    scale (float): A factor on the bound.
    dtype: The dtype of the array, or ``None``.
)doc");
    bind_scaled<init::Orthogonal>(m, "Orthogonal", 1.0, R"doc(Fills an array with a random orthogonal matrix.

The array, flattened to ``(shape[0], prod(shape[1:]))``, gets orthonormal rows when ``shape[0] <= prod(shape[1:])``
and orthonormal columns otherwise, times ``scale``. The array needs at least 2 dimensions.

Args:
    scale (float): A factor on the matrix.
    dtype: The dtype of the array, or ``None``.
)doc");
    bind_scaled<init::Identity>(m, "Identity", 1.0,
                                R"doc(Fills a square 2-d array with ``scale`` times the identity matrix.

Args:
    scale (float): The value of the diagonal.
    dtype: The dtype of the array, or ``None``.
)doc");
    bind_he<init::HeNormal>(m, "HeNormal", R"doc(He's (Kaiming's) normal initializer.

Draws from N(0, s^2) with ``s = scale * sqrt(2 / fan)``, where ``fan`` is ``fan_in`` or ``fan_out`` of
``get_fans``.

Args:
    scale (float): A factor on the standard deviation.
    dtype: The dtype of the array, or ``None``.
    fan_option (str): ``'fan_in'`` or ``'fan_out'``; any other value is a ValueError.
)doc");
    bind_he<init::HeUniform>(m, "HeUniform", R"doc(He's (Kaiming's) uniform initializer.

Draws from U(-s, s) with ``s = scale * sqrt(6 / fan)``, where ``fan`` is ``fan_in`` or ``fan_out`` of ``get_fans``.

Args:
    scale (float): A factor on the bound.
    dtype: The dtype of the array, or ``None``.
    fan_option (str): ``'fan_in'`` or ``'fan_out'``; any other value is a ValueError.
)doc");
    // Chainer's numpy-array initializer (what initialW=array becomes).
    py::classh<init::FromArray, init::Initializer>(m, "FromArray", R"doc(Copies a given array into the array to fill.

This is what an array passed as ``initialW`` becomes. The shapes must match exactly.

Args:
    value (ndarray): The values to copy.
)doc")
        .def(py::init([](py::handle value) { return std::make_shared<init::FromArray>(to_array(value)); }),
             py::arg("value"));
    m.def(
        "get_fans", [](py::handle shape) { return init::get_fans(to_shape(shape, "initializers.get_fans")); },
        py::arg("shape"), R"doc(Returns ``(fan_in, fan_out)`` of a weight of the given shape.

``fan_in = shape[1] * prod(shape[2:])`` and ``fan_out = shape[0] * prod(shape[2:])`` (the receptive field counts for
a convolution kernel). The shape needs at least 2 dimensions (DimensionError otherwise).
)doc");
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
