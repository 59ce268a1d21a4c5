#pragma once
// The serialize protocol between C++ walks and Python objects (serializers/bind.cc).
//
// Note [Python loads in two passes]: C++ objects queue their assignments until a load's whole
// walk passed (Note [All-or-nothing loading], serializers/serializer.h), but a Python
// serialize() assigns at once what `serializer(key, value)` returns (`self.x =
// serializer('x', self.x)`), so a missing key used to raise after some attributes changed.
// So during a load every Python serialize() reached from C++ (or from load_npz) runs twice:
//   - the check pass, during the walk: serializer(key, value) reads and checks the stored
//     value as before but stages it under its full key and returns `value` itself, so the
//     assignments change nothing;
//   - the commit pass, queued on the load's backend with the C++ assignments, so it runs only
//     once the whole walk passed: serializer(key, value) returns the staged value, and the C++
//     objects the Python code reaches again assign nothing (theirs are queued already).
// A serialize() reached inside another one's check pass is left to that one's commit pass. A
// key that only the commit pass reads (a serialize() whose keys depend on values it loads) is
// read then, unchecked beforehand; C++ objects first reached there load nothing.
#include "python/src/bind.h"
#include "serializers/serializer.h"

namespace rensa::python {

// Calls `serialize` (a Python callable taking the serializer: a bound serialize method) with
// `serializer`, in the two passes of Note [Python loads in two passes] when it loads. GIL held.
void serialize_python(const py::object& serialize, const serializers::Serializer& serializer);

}  // namespace rensa::python
