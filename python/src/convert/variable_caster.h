#pragma once
// Note [Arrays as Variable arguments]: a function bound with a Variable argument (`const
// Variable&`, `Variable`, `std::optional<Variable>`, `std::vector<Variable>`, ...) also takes a
// numpy array or an ndarray, which becomes a leaf that does not require grad (Chainer's
// treatment of raw arrays as inputs; Variable.__init__ would make it require grad). The
// type_caster below says so: it loads a Variable as pybind11 loads any bound class, and in
// the convert pass (after every overload was tried without conversions) it wraps an array.
// Other objects (lists, scalars) are refused, as before: Chainer's functions refuse them too.
// An array never reaches pybind11's generic loader: for an object that is not a Variable it
// asks the type for pybind11's module-local capsule and calls the cpp-conduit method, which
// raises and clears an AttributeError (formatted each time) for a numpy array and calls back
// into Python for an ndarray, twice the cost of the whole F.relu call (issue 24).
//
// Every translation unit that converts a Variable must see this specialization (one
// definition): python/src/bind.h includes it, and so does python/src/convert/array.h.
#include <pybind11/pybind11.h>

#include "autograd/variable.h"

namespace rensa::python {
// A numpy array or an ndarray -> a Variable not requiring grad, into *out; false (no error
// set) for anything else, or for an array to_array refuses (an object dtype, ...).
bool variable_from_array(pybind11::handle obj, Variable* out);
// True for a numpy array or an ndarray (or an instance of a subclass): objects that are never
// a Variable, which the caster converts without pybind11's generic loader.
bool is_array_object(pybind11::handle obj);
}  // namespace rensa::python

namespace pybind11::detail {

template <>
class type_caster<rensa::Variable> : public type_caster_base<rensa::Variable> {
public:
    bool load(handle src, bool convert) {
        if (!rensa::python::is_array_object(src)) return type_caster_base<rensa::Variable>::load(src, convert);
        if (!convert || !rensa::python::variable_from_array(src, &converted_)) return false;
        value = &converted_;  // the caster lives for the call, like the argument it converts
        return true;
    }

private:
    rensa::Variable converted_;
};

}  // namespace pybind11::detail
