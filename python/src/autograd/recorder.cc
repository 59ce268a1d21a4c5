// rensa._core: the private recorder behind rensa.onnx.export (_record_functions) and the
// identity of an array's memory (_array_key). See Note [ONNX recording] in autograd/function_hook.h.
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "autograd/function_hook.h"
#include "autograd/function_node.h"
#include "core/error.h"
#include "python/src/autograd/autograd.h"

namespace rensa::python {
namespace {

// One applied function as the hook saw it. The arrays keep their storage alive for the
// whole recording, so no address is reused by a later array of the same run.
struct Record {
    std::string label;
    FunctionNode::Attributes attributes;
    std::vector<Array> inputs;
    std::vector<Array> outputs;
};

// Kept in C++ until the recorded call returns: the hook may run where the GIL is released.
class RecordingHook : public FunctionHook {
public:
    std::string name() const override { return "RecordingHook"; }
    void forward_outputs(const FunctionNode& function, const std::vector<Array>& in_data,
                         const std::vector<Array>& out_data) override {
        records.push_back(Record{function.label(), function.attributes(), in_data, out_data});
    }
    std::vector<Record> records;
};

py::object attribute_object(const FunctionNode::AttributeValue& value) {
    return std::visit(
        [](const auto& v) -> py::object {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::vector<int64_t>> || std::is_same_v<T, std::vector<double>>) {
                py::tuple out(v.size());
                for (size_t i = 0; i < v.size(); ++i) out[i] = py::cast(v[i]);
                return out;
            } else {
                return py::cast(v);
            }
        },
        value);
}

py::list arrays_list(const std::vector<Array>& arrays) {
    py::list out;
    for (const Array& a : arrays) out.append(array_or_none(a));
    return out;
}

py::dict record_dict(const Record& record) {
    py::dict attributes;
    for (const auto& [key, value] : record.attributes) attributes[py::str(key)] = attribute_object(value);
    py::dict d;
    d["label"] = record.label;
    d["attributes"] = std::move(attributes);
    d["inputs"] = arrays_list(record.inputs);
    d["outputs"] = arrays_list(record.outputs);
    return d;
}

py::tuple array_key(py::handle obj) {
    const Array a = to_array(obj);
    const int ndim = a.ndim();
    py::tuple shape(ndim), strides(ndim);
    for (int i = 0; i < ndim; ++i) {
        shape[i] = py::cast(a.shape()[i]);
        strides[i] = py::cast(a.strides()[i]);
    }
    return py::make_tuple(reinterpret_cast<uintptr_t>(a.raw_data()), std::move(shape), std::move(strides),
                          std::string(dtype_name(a.dtype())));
}

}  // namespace

void bind_recorder(py::module_& m) {
    m.def(
        "_record_functions",
        [](const py::function& fn) {
            RecordingHook hook;
            py::object result;
            {
                FunctionHookScope scope(hook);
                result = fn();
            }
            py::list records;
            for (const Record& record : hook.records) records.append(record_dict(record));
            return py::make_tuple(std::move(result), std::move(records));
        },
        py::arg("fn"),
        "Private (rensa.onnx): calls fn() with a hook recording every FunctionNode applied on this thread;\n"
        "returns (result, records), each record a dict with 'label', 'attributes' (the function's\n"
        "attributes()), 'inputs' and 'outputs' (the arrays, kept alive).");
    m.def("_array_key", &array_key, py::arg("a"),
          "Private (rensa.onnx): a hashable identity of an array's memory view (data address, shape,\n"
          "strides, dtype) for an ndarray, a numpy array or a Variable (its array).");
}

}  // namespace rensa::python
