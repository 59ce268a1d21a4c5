// Arrays and dtypes between numpy and rensa (python/src/convert/array.h, dtype.h) and the
// Variable caster's array conversion (Note [Arrays as Variable arguments]).
#include <Python.h>

#include <array>
#include <string>

#include "core/error.h"
#include "python/src/convert/array.h"
#include "python/src/convert/dtype.h"
#include "python/src/convert/numpy_cache.h"

namespace rensa::python {
namespace {

// The rensa dtype of a numpy dtype, when rensa has one with the same layout.
bool numpy_to_rensa(const py::dtype& dt, Dtype* out) {
    const char kind = dt.kind();
    const auto size = dt.itemsize();
    const char order = dt.byteorder();
    if (order == '>') return false;  // rensa's kernels read native (little-endian) bytes
    switch (kind) {
        case 'b':
            *out = Dtype::kBool;
            return size == 1;
        case 'i':
            if (size == 1) *out = Dtype::kInt8;
            if (size == 4) *out = Dtype::kInt32;
            if (size == 8) *out = Dtype::kInt64;
            return size == 1 || size == 4 || size == 8;
        case 'u':
            *out = Dtype::kUInt8;
            return size == 1;
        case 'f':
            if (size == 2) *out = Dtype::kFloat16;
            if (size == 4) *out = Dtype::kFloat32;
            if (size == 8) *out = Dtype::kFloat64;
            return size == 2 || size == 4 || size == 8;
        default:
            return false;
    }
}

// The rensa dtype numpy values of a dtype rensa lacks are converted to (numpy's
// promotion to the next wider kind), or false when there is none (complex, object, ...).
bool fallback_dtype(const py::dtype& dt, Dtype* out) {
    // Same kind and size in native byte order first (big-endian data is byte-swapped).
    try {
        if (numpy_to_rensa(py::dtype(std::string("=") + dt.char_()), out)) return true;
    } catch (py::error_already_set&) {  // a dtype without a native-order form
    }
    const char kind = dt.kind();
    const auto size = dt.itemsize();
    if (kind == 'i' || (kind == 'u' && size < 4)) {
        *out = size <= 2 ? Dtype::kInt32 : Dtype::kInt64;
        return true;
    }
    if (kind == 'u') {
        *out = Dtype::kInt64;
        return true;
    }
    if (kind == 'f' || kind == 'b') {
        *out = kind == 'b' ? Dtype::kBool : Dtype::kFloat64;
        return true;
    }
    return false;
}

// Keeps a numpy array alive for as long as an Array views its memory. The deleter may
// run on any thread, with or without the GIL, and after the interpreter has gone. A numpy
// array that is not writeable gives a read-only storage (Note [Read-only memory] in
// core/storage.h).
Array wrap_numpy(const py::array& arr, Dtype dtype) {
    const int ndim = static_cast<int>(arr.ndim());
    Shape shape;
    Strides strides;
    for (int i = 0; i < ndim; ++i) {
        shape.push_back(static_cast<int64_t>(arr.shape(i)));
        strides.push_back(static_cast<int64_t>(arr.strides(i)));
    }
    PyObject* owner = arr.ptr();
    Py_INCREF(owner);
    auto deleter = [owner](void*) {
        if (!Py_IsInitialized() || _Py_IsFinalizing()) return;
        if (PyGILState_Check()) {  // the common case (a Variable freed by Python): no GIL round trip
            Py_DECREF(owner);
            return;
        }
        py::gil_scoped_acquire gil;
        Py_DECREF(owner);
    };
    // The storage starts at element (0, ..., 0); negative strides reach below it, which
    // rensa's kernels allow (they address through strides from raw_data()).
    void* data = const_cast<void*>(arr.data());
    const bool read_only = !arr.writeable();
    auto storage = std::make_shared<Storage>(data, static_cast<int64_t>(arr.nbytes()), Device::native(),
                                             std::move(deleter), read_only);
    return Array(std::move(storage), std::move(shape), std::move(strides), 0, dtype);
}

py::module_& numpy() {
    static py::module_* np = new py::module_(py::module_::import("numpy"));  // never freed: outlives finalization
    return *np;
}

// A numpy array -> Array: wrapped when rensa has its dtype and it is aligned, else copied;
// `obj` (what the caller passed) names the type in errors.
Array numpy_to_array(const py::array& arr, py::handle obj) {
    const py::dtype dt = arr.dtype();
    Dtype dtype{};
    const bool aligned = (arr.flags() & py::detail::npy_api::NPY_ARRAY_ALIGNED_) != 0;
    if (numpy_to_rensa(dt, &dtype) && aligned) return wrap_numpy(arr, dtype);
    if (!numpy_to_rensa(dt, &dtype) && !fallback_dtype(dt, &dtype)) {
        RENSA_CHECK(dt.kind() != 'O', DtypeError, "to_array: cannot convert an object of type ",
                    Py_TYPE(obj.ptr())->tp_name, " to an array");
        RENSA_THROW(DtypeError, "to_array: numpy dtype ", py::str(dt).cast<std::string>(),
                    " has no rensa counterpart (bool, int8, uint8, int32, int64, float16, float32, float64)");
    }
    // A copy in a dtype rensa has (or an aligned copy): the Array owns the new numpy array.
    py::array copy = numpy().attr("ascontiguousarray")(arr, dtype_to_python(dtype));
    return wrap_numpy(copy, dtype);
}

// The Python type of a bound class, looked up once (py::isinstance<T> searches pybind11's
// registry on every call). Bound classes live as long as the interpreter.
template <class T>
PyTypeObject* bound_type() {
    static PyTypeObject* const type = py::detail::get_type_info(typeid(T))->type;
    return type;
}

bool is_instance_of(py::handle obj, PyTypeObject* type) {
    return Py_TYPE(obj.ptr()) == type || PyType_IsSubtype(Py_TYPE(obj.ptr()), type) != 0;
}

bool is_numpy_array(py::handle obj) { return py::detail::npy_api::get().PyArray_Check_(obj.ptr()); }

}  // namespace

bool is_array_object(py::handle obj) { return is_numpy_array(obj) || is_instance_of(obj, bound_type<Array>()); }

Array to_array(py::handle obj) {
    if (is_numpy_array(obj)) return numpy_to_array(py::reinterpret_borrow<py::array>(obj), obj);
    if (is_instance_of(obj, bound_type<Array>())) return obj.cast<Array>();
    if (is_instance_of(obj, bound_type<Variable>())) return obj.cast<const Variable&>().array();
    py::object converted;
    try {
        converted = numpy().attr("asarray")(obj);
    } catch (py::error_already_set&) {
        RENSA_THROW(DtypeError, "to_array: cannot convert an object of type ", Py_TYPE(obj.ptr())->tp_name,
                    " to an array");
    }
    const auto arr = py::reinterpret_steal<py::array>(converted.release());
    return numpy_to_array(arr, obj);
}

py::object to_numpy(const Array& array) {
    if (!array.defined()) return py::none();
    if (array.device().kind != DeviceKind::kNative || array.dtype() == Dtype::kBFloat16) return py::cast(array);
    if (py::object cached = cached_numpy(array)) return cached;
    std::vector<py::ssize_t> shape(array.shape().begin(), array.shape().end());
    std::vector<py::ssize_t> strides(array.strides().begin(), array.strides().end());
    // The capsule holds a reference on the storage: numpy's view keeps the memory alive.
    auto* keep = new std::shared_ptr<Storage>(array.storage());
    py::capsule base(keep, [](void* p) { delete static_cast<std::shared_ptr<Storage>*>(p); });
    py::array view(py::reinterpret_borrow<py::dtype>(dtype_to_python(array.dtype())), std::move(shape),
                   std::move(strides), array.raw_data(), base);
    // Read-only memory gives a read-only view (numpy then refuses `view[0] = 1` itself).
    if (!array.writeable()) py::detail::array_proxy(view.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    remember_numpy(array, view);
    return view;
}

Variable to_variable(py::handle obj) {
    if (is_instance_of(obj, bound_type<Variable>())) return obj.cast<Variable>();
    return Variable(to_array(obj), false);
}

bool variable_from_array(py::handle obj, Variable* out) {
    if (!is_array_object(obj)) return false;
    try {
        *out = Variable(to_array(obj), false);
        return true;
    } catch (...) {  // not convertible: pybind11 goes on to the next overload, or a TypeError
        PyErr_Clear();
        return false;
    }
}

Dtype to_dtype(py::handle obj) {
    if (py::isinstance<py::str>(obj)) {
        const auto name = obj.cast<std::string>();
        if (name == "bool" || name == "bool_") return Dtype::kBool;
        return dtype_from_name(name);
    }
    if (obj.ptr() == reinterpret_cast<PyObject*>(&PyFloat_Type)) return Dtype::kFloat64;
    if (obj.ptr() == reinterpret_cast<PyObject*>(&PyLong_Type)) return Dtype::kInt64;
    if (obj.ptr() == reinterpret_cast<PyObject*>(&PyBool_Type)) return Dtype::kBool;
    py::object dt;
    try {
        dt = numpy().attr("dtype")(obj);
    } catch (py::error_already_set&) {
        RENSA_THROW(DtypeError, "dtype: ", py::repr(obj).cast<std::string>(), " is not a dtype rensa knows");
    }
    Dtype dtype{};
    RENSA_CHECK(numpy_to_rensa(py::reinterpret_borrow<py::dtype>(dt), &dtype), DtypeError,
                "dtype: ", py::repr(obj).cast<std::string>(),
                " is not one of rensa's dtypes (bool, int8, uint8, int32, int64, float16, bfloat16, float32, float64)");
    return dtype;
}

py::object dtype_to_python(Dtype dtype) {
    // Built once: dtype properties are read in hot paths. Never freed (outlive finalization).
    static std::array<PyObject*, kNumDtypes>* cache = [] {
        auto* table = new std::array<PyObject*, kNumDtypes>{};
        for (Dtype d : kAllDtypes) {
            py::object value = d == Dtype::kBFloat16 ? py::object(py::str("bfloat16"))
                                                     : numpy().attr("dtype")(std::string(dtype_name(d)));
            (*table)[static_cast<size_t>(d)] = value.release().ptr();
        }
        return table;
    }();
    return py::reinterpret_borrow<py::object>((*cache)[static_cast<size_t>(dtype)]);
}

}  // namespace rensa::python
