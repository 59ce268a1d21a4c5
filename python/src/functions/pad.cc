// rensa.functions.pad(x, pad_width, mode, **keywords): Chainer's signature, whose keywords
// are numpy.pad's (constant_values, end_values, stat_length, reflect_type), each given
// in numpy's forms: a scalar, (before, after), or one (before, after) per axis.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "functions/array.h"
#include "python/src/functions/functions.h"

namespace rensa::python::functions_bind {
namespace {

template <typename T>
using Pairs = std::vector<std::pair<T, T>>;

bool is_number(py::handle obj) { return !py::isinstance<py::sequence>(obj) || py::isinstance<py::str>(obj); }

// numpy's _as_pairs: x, (x,), (before, after), or a sequence of those, one per axis.
template <typename T>
Pairs<T> to_pairs(py::handle obj, const char* name) {
    auto one_pair = [name](py::handle item) -> std::pair<T, T> {
        if (is_number(item)) return {item.cast<T>(), item.cast<T>()};
        const auto seq = py::reinterpret_borrow<py::sequence>(item);
        RENSA_CHECK(py::len(seq) == 1 || py::len(seq) == 2, ValueError, "pad: each ", name,
                    " entry must be a number or (before, after), got ", py::len(seq), " values");
        return {py::object(seq[0]).cast<T>(), py::object(seq[py::len(seq) - 1]).cast<T>()};
    };
    if (is_number(obj)) return {one_pair(obj)};
    const auto seq = py::reinterpret_borrow<py::sequence>(obj);
    if (py::len(seq) > 0 && is_number(seq[0])) return {one_pair(obj)};
    Pairs<T> pairs;
    for (const py::handle item : seq) pairs.push_back(one_pair(item));
    return pairs;
}

// pad_width: n, (n,), (before, after), or one (before, after) per axis; broadcast to x.ndim.
Pairs<int64_t> to_pad_width(py::handle obj, int ndim) {
    Pairs<int64_t> widths = to_pairs<int64_t>(obj, "pad_width");
    if (widths.size() == 1) widths.resize(static_cast<size_t>(ndim), widths.front());
    return widths;
}

Variable pad(const Variable& x, py::handle pad_width, const std::string& mode, const py::kwargs& keywords) {
    F::PadOptions options;
    for (const auto& [key, value] : keywords) {
        const std::string name = py::str(key);
        if (name == "constant_values") {
            options.constant_values = to_pairs<double>(value, "constant_values");
        } else if (name == "end_values") {
            options.end_values = to_pairs<double>(value, "end_values");
        } else if (name == "stat_length") {
            if (!value.is_none()) options.stat_length = to_pairs<int64_t>(value, "stat_length");
        } else if (name == "reflect_type") {
            options.reflect_type = value.cast<std::string>();
        } else {
            throw py::type_error("pad() got an unexpected keyword argument '" + name + "'");
        }
    }
    const Pairs<int64_t> widths = to_pad_width(pad_width, x.ndim());
    // One scalar constant (or none) takes the direct kernel and keeps its kind (an integer
    // constant for an integer x).
    std::optional<Scalar> scalar;
    if (mode == "constant" && !keywords.contains("constant_values")) scalar = Scalar(0);
    if (mode == "constant" && keywords.contains("constant_values") && is_number(keywords["constant_values"])) {
        const py::object value = keywords["constant_values"];
        scalar = PyIndex_Check(value.ptr()) ? Scalar(value.cast<int64_t>()) : Scalar(value.cast<double>());
    }
    py::gil_scoped_release release;
    return scalar ? F::pad(x, widths, mode, *scalar) : F::pad(x, widths, mode, options);
}

}  // namespace

void bind_pad(py::module_& f) {
    f.def("pad", &pad, py::arg("x"), py::arg("pad_width"), py::arg("mode"),
          R"doc(Pads an input variable, as ``numpy.pad`` in every mode numpy has.

As in Chainer, the gradient is the interior slice of the output gradient whatever the mode.

:param x: Input variable.
:param pad_width: Widths ``(before, after)`` per axis, one pair for every axis, or one int.
:param mode: ``'constant'``, ``'edge'``, ``'linear_ramp'``, ``'maximum'``, ``'mean'``, ``'median'``,
    ``'minimum'``, ``'reflect'``, ``'symmetric'``, ``'wrap'`` or ``'empty'``.
:param keywords: numpy.pad's keyword arguments ``constant_values``, ``end_values``, ``stat_length``
    and ``reflect_type``, each a scalar, a pair or a pair per axis. A keyword the mode does not take
    raises ``ValueError``, as in numpy.
:returns: The padded variable.)doc");
}

}  // namespace rensa::python::functions_bind
