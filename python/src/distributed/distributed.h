#pragma once
// Internal to the distributed bind files (python/src/distributed/): the parts of bind_distributed
// and a helper that registers a class with its C++ base when that base is bound.
#include <typeinfo>

#include "python/src/bind.h"

namespace rensa::python::distributed_bind {

void bind_communicator(py::module_& m);    // communicator.cc
void bind_training_parts(py::module_& m);  // training.cc
void bind_graph_parts(py::module_& m);     // links.cc: functions and links

// Registers T as py::classh<T, Base> when Base is already bound (the full build), else as
// py::classh<T> (a development build whose base's bind file is left out), and hands the
// class object to `define`. Either way T's own methods work.
template <class T, class Base, class Define>
void class_with_base(py::module_& m, const char* name, const char* doc, Define&& define) {
    if (py::detail::get_type_info(typeid(Base)) != nullptr) {
        define(py::classh<T, Base>(m, name, doc));
    } else {
        define(py::classh<T>(m, name, doc));
    }
}

}  // namespace rensa::python::distributed_bind
