#pragma once
// Python's garbage collector and the references C++ holds (docs/design.md, "Python").
//
// Note [Garbage collection through C++]: a Python subclass instance of a class with a
// trampoline (a Chain subclass, an Extension subclass, ...) that C++ holds is kept alive by
// the control block of the std::shared_ptr pybind11 made for C++: that block owns one
// reference to the Python object (py::trampoline_self_life_support). Python's collector sees
// none of those references, so a cycle through one (`child.parent = parent` with the child
// registered in the parent, `model.opt = optimizer` after optimizer.setup(model),
// `ext.trainer = trainer` after trainer.extend(ext)) was never freed. So the bound classes
// that hold such pointers (Link, Optimizer, Trainer, Updater, Extension and their
// subclasses) get a tp_traverse that reports, besides the instance __dict__:
//   - for each shared_ptr the C++ object holds that is such a control block and has no other
//     owner, the Python object it keeps alive (exactly the one reference the block owns);
//   - for each shared_ptr to a C++-only object that has no other owner, what that object
//     holds, recursively (an optimizer's target made in C++, such as L.Classifier, and the
//     Python predictor in it).
// A C++ object is walked only from its unique owner: from its Python object when the holder
// is the only owner (always so for a trampoline's instance: C++ owns the Python object, not
// the C++ one), else from the one C++ holder. Shared objects are not walked, so no reference
// is ever reported twice (which would let the collector free live objects); a cycle through
// a C++ object that both a Python handle and another C++ object hold is not found.
// tp_clear clears the __dict__, which breaks every cycle made through Python attributes.
//
// It also fixes the __dict__ of Python subclasses of classes with py::dynamic_attr: on
// CPython >= 3.11 the subclass's traverse visits the managed dict and pybind11's visits it
// again, and a twice-visited dict is never collected (`m.me = m` leaked). Whether the
// subclass visits it is probed at import.
#include "python/src/bind.h"

namespace rensa::python::gc_support {

// For py::custom_type_setup on a bound class that has no __dict__ but holds Python objects
// through C++ (Trainer, Updater, Extension): makes it and its subclasses tracked by the collector.
void enable_gc(PyHeapTypeObject* type);

// Gives every bound class of the families above (and every class with a __dict__) the
// traverse of Note [Garbage collection through C++]. Called last by each extension module's
// init, after its classes are registered (classes with a __dict__ get pybind11's traverse
// when they are made).
void install(py::module_& m);

}  // namespace rensa::python::gc_support
