// One numpy object per array view (python/src/convert/array.h: cached_numpy, remember_numpy).
//
// Note [One numpy object per array]: Chainer's `v.array is v.array` holds (the Variable
// keeps the numpy object), and code relies on it (`x = v.array; ...; v.array is x`,
// `Variable(x).array is x`, identity-keyed dicts). rensa's Variable keeps a C++ Array, so
// to_numpy makes a view, and would make a new one on every access. This cache maps a view
// (data pointer, dtype, shape, strides, writeability) to a weak reference on the numpy object
// last made or wrapped for it; while that object lives and still describes the same view
// it is returned again. The memory at a data pointer belongs to the live object (a view
// holds its Storage, a wrapped numpy array owns or holds its memory), so no other
// allocation can be met at that address while an entry is alive. Replacing a variable's
// array changes the key, so the next access gives the new array's object; an object whose
// shape, strides, dtype or flags were changed in place no longer matches and is replaced.
// Empty arrays are not cached (they may share a null data pointer without sharing memory).
// Nothing is kept alive by the cache: dead entries are dropped when met and swept when the
// table has doubled since the last sweep.
#include <Python.h>

#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "python/src/convert/dtype.h"
#include "python/src/convert/numpy_cache.h"

namespace rensa::python {
namespace {

using Table = std::unordered_multimap<const void*, PyObject*>;  // data pointer -> weakref

Table& table() {
    static auto* t = new Table();  // never freed: outlives the interpreter's finalization
    return *t;
}

// The referent of a weakref (borrowed: others hold it while it is alive), or nullptr when it
// is gone. Python 3.13 deprecates PyWeakref_GetObject for PyWeakref_GetRef.
PyObject* referent(PyObject* ref) {
#if PY_VERSION_HEX >= 0x030D0000
    PyObject* obj = nullptr;
    if (PyWeakref_GetRef(ref, &obj) <= 0) return nullptr;
    Py_DECREF(obj);
    return obj;
#else
    PyObject* obj = PyWeakref_GetObject(ref);
    return obj == Py_None ? nullptr : obj;
#endif
}

bool describes(PyObject* obj, const Array& array) {
    if (!py::isinstance<py::array>(obj)) return false;
    const auto a = py::reinterpret_borrow<py::array>(obj);
    if (a.data() != array.raw_data() || a.ndim() != array.ndim() || a.writeable() != array.writeable()) return false;
    for (int i = 0; i < array.ndim(); ++i) {
        if (a.shape(i) != array.shape()[i] || a.strides(i) != array.strides()[i]) return false;
    }
    return a.dtype().equal(py::reinterpret_borrow<py::dtype>(dtype_to_python(array.dtype())));
}

void sweep() {
    static size_t limit = 1024;
    Table& t = table();
    if (t.size() < limit) return;
    for (auto it = t.begin(); it != t.end();) {
        if (referent(it->second) == nullptr) {
            Py_DECREF(it->second);
            it = t.erase(it);
        } else {
            ++it;
        }
    }
    limit = std::max<size_t>(1024, 2 * t.size());
}

}  // namespace

py::object cached_numpy(const Array& array) {
    if (array.size() == 0) return py::object();  // empty arrays may share a data pointer without sharing memory
    const auto range = table().equal_range(array.raw_data());
    for (auto it = range.first; it != range.second;) {
        PyObject* obj = referent(it->second);
        if (obj == nullptr) {
            Py_DECREF(it->second);
            it = table().erase(it);
            continue;
        }
        if (describes(obj, array)) return py::reinterpret_borrow<py::object>(obj);
        ++it;
    }
    return py::object();
}

void remember_numpy(const Array& array, py::handle obj) {
    if (!array.defined() || array.size() == 0 || !describes(obj.ptr(), array)) return;
    PyObject* ref = PyWeakref_NewRef(obj.ptr(), nullptr);
    if (ref == nullptr) {  // a type without weak references: nothing to remember
        PyErr_Clear();
        return;
    }
    sweep();
    table().emplace(array.raw_data(), ref);
}

}  // namespace rensa::python
