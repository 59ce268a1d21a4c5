#pragma once
// Internal to the data bind files (python/src/training/data.cc, converter.cc, datasets.cc, iterators.cc)
// (rensa.dataset, rensa.datasets, rensa.iterators).
#include <memory>
#include <utility>

#include "python/src/training/data.h"

namespace rensa::python::data_detail {

// A Python object that C++ may copy and drop on any thread, with or without the GIL (the
// callables and datasets inside std::function and Dataset objects the C++ side owns).
class SharedObject {
public:
    explicit SharedObject(py::object obj) : ptr_(new py::object(std::move(obj)), release) {}
    const py::object& get() const { return *ptr_; }

private:
    static void release(py::object* obj) {
        if (Py_IsInitialized() && !_Py_IsFinalizing()) {
            py::gil_scoped_acquire gil;
            delete obj;
            return;
        }
        obj->release();  // the interpreter is gone: leak the reference rather than touch it
        delete obj;
    }
    std::shared_ptr<py::object> ptr_;
};

// Rethrows a Python error raised by a dataset or transform as rensa's C++ error of the same
// kind (KeyError, IndexError, ValueError, TypeError -> DtypeError, NotImplementedError; others
// rensa::Error), with "<where>: <Type>: <message>". MultithreadIterator workers may drop the
// last reference to an exception: a Python one would carry the caller's traceback (and so
// maybe the iterator itself) into a worker thread. Call with the GIL held.
[[noreturn]] void rethrow_as_cpp(const py::error_already_set& error, const char* where);

// One value of an example -> Python (a numpy scalar for a 0-d CPU value).
py::object value_to_python(const Array& value);
// A Variable -> its array; else to_array.
Array value_from_python(py::handle obj);

// The bound concat_examples (rensa.dataset.concat_examples), for converter_from_python.
void set_concat_examples(py::handle fn);

// Parts of bind_data, in the order it calls them.
void bind_convert(py::module_& dataset);                            // converter.cc: concat_examples, to_device
void bind_datasets(py::module_& dataset, py::module_& datasets);    // datasets.cc
void bind_iterators(py::module_& dataset, py::module_& iterators);  // iterators.cc

}  // namespace rensa::python::data_detail
