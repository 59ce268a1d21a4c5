// Examples, converters and concat_examples between Python and rensa::training (data.h).
#include <Python.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/scalar.h"
#include "python/src/convert/device_object.h"
#include "python/src/training/data_detail.h"

namespace rensa::python {
namespace data_detail {
namespace {

// rensa.dataset.concat_examples, kept (never released) so converter_from_python can spot it.
PyObject* g_concat_examples = nullptr;

// Chainer's padding value (a Python or numpy number) -> Scalar.
Scalar scalar_from_python(py::handle obj) {
    if (py::isinstance<py::bool_>(obj)) return Scalar(obj.cast<bool>());
    if (PyIndex_Check(obj.ptr())) return Scalar(obj.cast<int64_t>());
    return Scalar(obj.cast<double>());
}

// Every example of `batch` (a Python sequence of examples) in C++ form.
std::vector<training::Example> examples_from_python(py::handle batch) {
    const auto seq = py::reinterpret_borrow<py::sequence>(batch);
    std::vector<training::Example> out;
    out.reserve(py::len(seq));
    for (py::handle example : seq) out.push_back(example_from_python(example));
    return out;
}

// The arrays of a converted batch in the Python form of its first example (Chainer:
// a tuple for tuples, a dict for dicts, a bare array for bare arrays).
py::object concat_to_python(const training::Example& result, py::handle first) {
    if (result.is_dict()) {
        py::dict d;
        for (size_t i = 0; i < result.size(); ++i) d[py::str(result.keys[i])] = to_numpy(result.values[i]);
        return d;
    }
    if (!py::isinstance<py::tuple>(first) && result.size() == 1) return to_numpy(result.values[0]);
    py::tuple t(result.size());
    for (size_t i = 0; i < result.size(); ++i) t[i] = to_numpy(result.values[i]);
    return t;
}

// concat_examples with Chainer's per-position padding tuple: each position on its own.
training::Example concat_per_position(const std::vector<training::Example>& batch, std::optional<Device> device,
                                      const py::tuple& padding) {
    RENSA_CHECK(!batch.empty(), ValueError, "concat_examples: the batch is empty");
    const size_t n = batch[0].size();
    RENSA_CHECK(padding.size() == n, ValueError, "concat_examples: padding has ", padding.size(),
                " values but the examples have ", n);
    training::Example out;
    out.keys = batch[0].keys;
    for (size_t pos = 0; pos < n; ++pos) {
        std::vector<training::Example> column;
        column.reserve(batch.size());
        for (size_t k = 0; k < batch.size(); ++k) {
            RENSA_CHECK(batch[k].size() == n, ValueError, "concat_examples: example ", k, " has ", batch[k].size(),
                        " values but example 0 has ", n);
            column.push_back(training::Example{{batch[k].values[pos]}, {}});
        }
        const py::handle pad = padding[pos];
        std::optional<Scalar> value;
        if (!pad.is_none()) value = scalar_from_python(pad);
        out.values.push_back(training::concat_examples(column, device, value).values[0]);
    }
    return out;
}

// Chainer's padding dict {key: value} for dict examples -> one value per position of `first`.
py::tuple padding_per_key(const training::Example& first, const py::dict& padding) {
    RENSA_CHECK(first.is_dict(), ValueError,
                "concat_examples: padding is a dict, so the examples must be dicts too (example 0 is a tuple of ",
                first.size(), " values)");
    py::tuple out(first.size());
    for (size_t i = 0; i < first.size(); ++i) {
        const py::str key(first.keys[i]);
        RENSA_CHECK(padding.contains(key), KeyError, "concat_examples: padding has no value for the key '",
                    first.keys[i], "'");
        out[i] = padding[key];
    }
    return out;
}

py::object concat_examples_py(const py::sequence& batch, const py::object& device, const py::object& padding) {
    RENSA_CHECK(py::len(batch) > 0, ValueError, "concat_examples: the batch is empty");
    const std::vector<training::Example> examples = examples_from_python(batch);
    const std::optional<Device> dev = to_optional_device(device);
    training::Example result;
    if (py::isinstance<py::dict>(padding)) {
        result =
            concat_per_position(examples, dev, padding_per_key(examples[0], py::reinterpret_borrow<py::dict>(padding)));
    } else if (py::isinstance<py::tuple>(padding) || py::isinstance<py::list>(padding)) {
        result = concat_per_position(examples, dev, py::tuple(padding));
    } else {
        std::optional<Scalar> pad;
        if (!padding.is_none()) pad = scalar_from_python(padding);
        py::gil_scoped_release release;
        result = training::concat_examples(examples, dev, pad);
    }
    return concat_to_python(result, batch[0]);
}

}  // namespace

void rethrow_as_cpp(const py::error_already_set& error, const char* where) {
    const std::string message = std::string(where) + ": " + error.what();
    if (error.matches(PyExc_KeyError)) throw KeyError(message);
    if (error.matches(PyExc_IndexError)) throw IndexError(message);
    if (error.matches(PyExc_NotImplementedError)) throw NotImplementedError(message);
    if (error.matches(PyExc_ValueError)) throw ValueError(message);
    if (error.matches(PyExc_TypeError)) throw DtypeError(message);
    throw Error(message);
}

py::object value_to_python(const Array& value) {
    py::object obj = to_numpy(value);
    // Chainer's TupleDataset gives a numpy scalar for a label (indexing a 1-d array).
    if (value.ndim() == 0 && py::isinstance<py::array>(obj)) return obj[py::tuple()];
    return obj;
}

Array value_from_python(py::handle obj) {
    if (py::isinstance<Variable>(obj)) return obj.cast<const Variable&>().array();
    return to_array(obj);
}

void set_concat_examples(py::handle fn) {
    Py_XINCREF(fn.ptr());
    g_concat_examples = fn.ptr();
}

void bind_convert(py::module_& dataset) {
    dataset.def("concat_examples", &concat_examples_py, py::arg("batch"), py::arg("device") = py::none(),
                py::arg("padding") = py::none(),
                "Stacks the examples of a batch along a new first axis (Chainer's concat_examples); "
                "padding (a number, a tuple with one per position or a dict with one per key) pads values of "
                "different shapes.");
    set_concat_examples(dataset.attr("concat_examples"));
    // For tests: a converter as the C++ updaters see it (converter_from_python), applied.
    dataset.def("_apply_converter", [](py::handle converter, const py::sequence& batch, const py::object& device) {
        const training::Converter fn = converter_from_python(converter);
        const std::vector<training::Example> examples = examples_from_python(batch);
        const std::optional<Device> dev = to_optional_device(device);
        training::Example result;
        {
            py::gil_scoped_release release;
            result = fn(examples, dev);
        }
        return concat_to_python(result, batch[0]);
    });
    dataset.def(
        "to_device",
        [](const py::object& device, const py::object& x) -> py::object {
            if (device.is_none()) return x;
            const Device target = to_device(device);
            return to_numpy(value_from_python(x).to_device(target));
        },
        py::arg("device"), py::arg("x"), "``x`` on ``device`` (None: ``x`` unchanged); numpy arrays for the CPU.");
}

}  // namespace data_detail

py::object example_to_python(const training::Example& example) {
    if (example.is_dict()) {
        py::dict d;
        for (size_t i = 0; i < example.size(); ++i) {
            d[py::str(example.keys[i])] = data_detail::value_to_python(example.values[i]);
        }
        return d;
    }
    if (example.size() == 1) return data_detail::value_to_python(example.values[0]);
    py::tuple t(example.size());
    for (size_t i = 0; i < example.size(); ++i) t[i] = data_detail::value_to_python(example.values[i]);
    return t;
}

py::list batch_to_python(const std::vector<training::Example>& batch) {
    py::list out(batch.size());
    for (size_t i = 0; i < batch.size(); ++i) out[i] = example_to_python(batch[i]);
    return out;
}

training::Example example_from_python(py::handle obj) {
    training::Example example;
    if (py::isinstance<py::tuple>(obj)) {
        const auto t = py::reinterpret_borrow<py::tuple>(obj);
        example.values.reserve(t.size());
        for (py::handle value : t) example.values.push_back(data_detail::value_from_python(value));
    } else if (py::isinstance<py::dict>(obj)) {
        const auto d = py::reinterpret_borrow<py::dict>(obj);
        RENSA_CHECK(!d.empty(), ValueError, "dataset: a dict example must have at least one key");
        for (auto [key, value] : d) {
            example.keys.push_back(py::str(key).cast<std::string>());
            example.values.push_back(data_detail::value_from_python(value));
        }
    } else {
        example.values.push_back(data_detail::value_from_python(obj));
    }
    return example;
}

training::Converter converter_from_python(py::handle obj) {
    if (obj.is_none() || obj.ptr() == data_detail::g_concat_examples) {
        return [](const std::vector<training::Example>& batch, std::optional<Device> device) {
            return training::concat_examples(batch, device);
        };
    }
    if (!PyCallable_Check(obj.ptr())) {
        throw py::type_error("converter: expected a callable converter(batch, device), got " +
                             py::str(py::type::of(obj)).cast<std::string>());
    }
    data_detail::SharedObject fn{py::reinterpret_borrow<py::object>(obj)};
    return [fn](const std::vector<training::Example>& batch, std::optional<Device> device) {
        py::gil_scoped_acquire gil;
        // As Chainer's updaters call it: a device object, or -1 / the GPU id for old-style ones.
        py::object dev = device ? device_object(*device) : py::none();
        py::object call = py::module_::import("rensa.dataset.convert").attr("_call_converter");
        return arrays_from_python(call(fn.get(), batch_to_python(batch), dev));
    };
}

}  // namespace rensa::python
