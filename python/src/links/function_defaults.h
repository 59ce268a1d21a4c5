#pragma once
// Chainer's link arguments whose default is a function (Highway(activate=F.relu),
// MLPConvolution2D(activation=F.relu), Classifier(lossfun=F.softmax_cross_entropy, ...)):
// the default is rensa's bound function itself, as in Chainer, and that function maps back
// to the link's C++ default, which then runs without Python in the loop.
#include <deque>
#include <functional>
#include <string>

#include "python/src/bind.h"

namespace rensa::python::links_detail {

// rensa._core.functions; bind_links sets it before binding the links (functions are bound first).
inline py::handle& functions_module() {
    static py::handle module;
    return module;
}

// py::arg(arg) = functions.<name>, written `<function name>` in the signature line (the
// form tests/python/chainer_signatures.json gives Chainer's function defaults).
// pybind11 keeps the description's pointer: the texts live as long as the process.
inline py::arg_v function_default(const char* arg, const char* name) {
    static std::deque<std::string> descriptions;
    descriptions.push_back(std::string("<function ") + name + ">");
    return py::arg_v(arg, functions_module().attr(name), descriptions.back().c_str());
}

// True when `f` is rensa's functions.<name> (the link's C++ default stands for it).
inline bool is_bound_function(py::handle f, const char* name) {
    return functions_module() && py::hasattr(functions_module(), name) && f.is(functions_module().attr(name));
}

// A unary activation for C++: empty for None or rensa's functions.<name> (keep the link's
// default), else the Python callable.
inline std::function<Variable(const Variable&)> activation_or_default(py::handle f, const char* name) {
    if (f.is_none() || is_bound_function(f, name)) return {};
    return f.cast<std::function<Variable(const Variable&)>>();
}

}  // namespace rensa::python::links_detail
