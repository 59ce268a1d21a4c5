// rensa._core: errors, ndarray (Array), Device. Config, random and the reporter are in
// state.cc, runtime_info in runtime_info.cc.
#include <string>
#include <vector>

#include "core/error.h"
#include "python/src/bind.h"
#include "python/src/core/core.h"

namespace rensa::python {
namespace {

// Python classes of the rensa errors that have no builtin counterpart.
PyObject* g_dimension_error = nullptr;
PyObject* g_dtype_error = nullptr;
PyObject* g_device_error = nullptr;
PyObject* g_out_of_memory_error = nullptr;

void bind_errors(py::module_& m) {
    // Subclasses of the builtins Chainer (numpy, cupy) would raise, so `except ValueError` works.
    g_dimension_error = PyErr_NewException("rensa._core.DimensionError", PyExc_ValueError, nullptr);
    g_dtype_error = PyErr_NewException("rensa._core.DtypeError", PyExc_TypeError, nullptr);
    g_device_error = PyErr_NewException("rensa._core.DeviceError", PyExc_RuntimeError, nullptr);
    g_out_of_memory_error = PyErr_NewException("rensa._core.OutOfMemoryError", PyExc_MemoryError, nullptr);
    m.attr("DimensionError") = py::handle(g_dimension_error);
    m.attr("DtypeError") = py::handle(g_dtype_error);
    m.attr("DeviceError") = py::handle(g_device_error);
    m.attr("OutOfMemoryError") = py::handle(g_out_of_memory_error);
    // For the tests of this translation: throws the C++ error named `kind`.
    m.def("_throw", [](const std::string& kind, const std::string& message) {
        if (kind == "DimensionError") throw DimensionError(message);
        if (kind == "DtypeError") throw DtypeError(message);
        if (kind == "DeviceError") throw DeviceError(message);
        if (kind == "OutOfMemoryError") throw OutOfMemoryError(message);
        if (kind == "IndexError") throw rensa::IndexError(message);
        if (kind == "KeyError") throw rensa::KeyError(message);
        if (kind == "NotImplementedError") throw rensa::NotImplementedError(message);
        if (kind == "ValueError") throw rensa::ValueError(message);
        if (kind == "IOError") throw rensa::IOError(message);
        if (kind == "Error") throw rensa::Error(message);
        throw std::invalid_argument("_throw: unknown kind " + kind);
    });
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const DimensionError& e) {
            PyErr_SetString(g_dimension_error, e.what());
        } catch (const DtypeError& e) {
            PyErr_SetString(g_dtype_error, e.what());
        } catch (const DeviceError& e) {
            PyErr_SetString(g_device_error, e.what());
        } catch (const OutOfMemoryError& e) {
            PyErr_SetString(g_out_of_memory_error, e.what());
        } catch (const rensa::IndexError& e) {
            PyErr_SetString(PyExc_IndexError, e.what());
        } catch (const rensa::KeyError& e) {
            PyErr_SetString(PyExc_KeyError, e.what());
        } catch (const rensa::NotImplementedError& e) {
            PyErr_SetString(PyExc_NotImplementedError, e.what());
        } catch (const rensa::ValueError& e) {
            PyErr_SetString(PyExc_ValueError, e.what());
        } catch (const rensa::IOError& e) {
            PyErr_SetString(PyExc_OSError, e.what());
        } catch (const rensa::Error& e) {
            PyErr_SetString(PyExc_RuntimeError, e.what());
        }
    });
}

std::string buffer_format(Dtype dtype) {
    switch (dtype) {
        case Dtype::kBool:
            return "?";
        case Dtype::kInt8:
            return "b";
        case Dtype::kUInt8:
            return "B";
        case Dtype::kInt32:
            return "i";
        case Dtype::kInt64:
            return "q";
        case Dtype::kFloat16:
            return "e";
        case Dtype::kBFloat16:
            break;
        case Dtype::kFloat32:
            return "f";
        case Dtype::kFloat64:
            return "d";
    }
    RENSA_THROW(DtypeError, "ndarray: bfloat16 has no buffer format (numpy has no bfloat16); use astype first");
}

py::buffer_info array_buffer(const Array& a) {
    RENSA_CHECK(a.defined(), ValueError, "ndarray: the array is undefined (holds no data)");
    RENSA_CHECK(a.device().kind == DeviceKind::kNative, DeviceError, "ndarray: an array on ", a.device(),
                " has no host buffer; call to_device('native') or rensa.cuda.to_cpu first");
    std::vector<py::ssize_t> shape(a.shape().begin(), a.shape().end());
    std::vector<py::ssize_t> strides(a.strides().begin(), a.strides().end());
    return py::buffer_info(a.raw_data(), a.itemsize(), buffer_format(a.dtype()), a.ndim(), std::move(shape),
                           std::move(strides));
}

// numpy's view of `a` on the host (a copy for other devices).
py::object host_numpy(const Array& a) {
    if (a.device().kind != DeviceKind::kNative) return to_numpy(a.to_device(Device::native()));
    if (a.dtype() == Dtype::kBFloat16) return to_numpy(a.astype(Dtype::kFloat32));
    return to_numpy(a);
}

void bind_ndarray(py::module_& m) {
    py::class_<Array>(m, "ndarray", py::buffer_protocol(), "rensa's n-dimensional array (an aliasing handle).")
        .def(py::init([](const py::handle& obj, const py::handle& dtype, const py::handle& device) {
                 Array a = to_array(obj);
                 if (!dtype.is_none()) a = a.astype(to_dtype(dtype), false);
                 return a.to_device(to_device(device)).copy();
             }),
             py::arg("obj"), py::arg("dtype") = py::none(), py::arg("device") = py::none())
        .def_buffer(&array_buffer)
        .def(
            "__array__",
            [](const Array& a, const py::handle& dtype, const py::handle& copy) {
                py::object out = host_numpy(a);
                if (!dtype.is_none()) out = out.attr("astype")(dtype, py::arg("copy") = false);
                if (!copy.is_none() && copy.cast<bool>()) out = out.attr("copy")();
                return out;
            },
            py::arg("dtype") = py::none(), py::arg("copy") = py::none())
        .def_property_readonly(
            "shape",
            [](const Array& a) {
                return py::tuple(py::cast(std::vector<int64_t>(a.shape().begin(), a.shape().end())));
            },
            "The shape, a tuple of ints.")
        .def_property_readonly(
            "strides",
            [](const Array& a) {
                return py::tuple(py::cast(std::vector<int64_t>(a.strides().begin(), a.strides().end())));
            },
            "The strides in bytes, a tuple of ints (numpy's strides).")
        .def_property_readonly(
            "dtype", [](const Array& a) { return dtype_to_python(a.dtype()); },
            "The element type, a numpy.dtype (the string 'bfloat16' for bfloat16 arrays, which numpy lacks).")
        .def_property_readonly("ndim", &Array::ndim, "The number of dimensions.")
        .def_property_readonly("size", &Array::size, "The number of elements.")
        .def_property_readonly("itemsize", &Array::itemsize, "The size of one element in bytes.")
        .def_property_readonly("nbytes", &Array::nbytes, "The size of the elements in bytes (size * itemsize).")
        .def_property_readonly("device", &Array::device, "The rensa._core.Device the array lives on.")
        .def(
            "to_device", [](const Array& a, const py::handle& device) { return a.to_device(to_device(device)); },
            py::arg("device"),
            "This array when it is already on ``device``, else a contiguous copy there. ``device`` is any "
            "device specifier (``'native:0'``, ``'cuda:0'``, ``'@cupy:0'``, a device object).")
        .def("copy", &Array::copy, "A contiguous copy on the same device.")
        .def(
            "astype",
            [](const Array& a, const py::handle& dtype, bool copy) { return a.astype(to_dtype(dtype), copy); },
            py::arg("dtype"), py::arg("copy") = true,
            "A copy cast to ``dtype`` (numpy casting: floats to integers truncate); with ``copy=False`` the "
            "array itself when the dtype already matches.")
        .def(
            "reshape",
            [](const Array& a, const std::vector<int64_t>& shape) {
                return a.reshape(Shape(shape.begin(), shape.end()));
            },
            "numpy's reshape: a view when the strides allow it, else a contiguous copy; one -1 in ``shape`` is "
            "inferred.")
        .def(
            "fill", [](const Array& a, double value) { a.fill(value); },
            "Writes ``value`` (cast to the dtype) into every element, in place (through views too).")
        // backend.copyto's device path: copies src (same device, broadcastable) into this array.
        .def(
            "_assign", [](const Array& a, const Array& src) { a.assign(src); }, py::arg("src"))
        .def(
            "get", [](const Array& a) { return host_numpy(a); }, "A numpy copy on the host (cupy's get).")
        .def("__len__",
             [](const Array& a) {
                 if (a.ndim() == 0) throw py::type_error("len() of unsized object");
                 return a.shape()[0];
             })
        .def("__repr__", &Array::repr);
}

void bind_device(py::module_& m) {
    py::class_<Device>(m, "Device", "A device: native:0 (the CPU) or cuda:N.")
        .def(py::init([](const py::handle& spec) { return to_device(spec); }), py::arg("spec") = py::none())
        .def_readonly("index", &Device::index)
        .def_property_readonly("kind", [](const Device& d) { return std::string(device_kind_name(d.kind)); })
        .def_property_readonly("name", &Device::str)
        .def("__str__", &Device::str)
        .def("__repr__", [](const Device& d) { return "<Device " + d.str() + ">"; })
        .def("__eq__",
             [](const Device& a, const py::handle& b) {
                 try {
                     return a == to_device(b);
                 } catch (const Error&) {
                     return false;
                 }
             })
        .def("__hash__", [](const Device& d) { return static_cast<int>(d.kind) * 1024 + d.index; });
    m.def("get_default_device", &default_device);
    m.def(
        "to_device_spec", [](const py::handle& spec) { return to_device(spec); }, py::arg("spec"));
}

}  // namespace

void bind_core(py::module_& m) {
    bind_errors(m);
    bind_device(m);
    bind_ndarray(m);
    bind_core_state(m);
    bind_core_memory(m);
}

}  // namespace rensa::python
