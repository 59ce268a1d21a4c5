#pragma once
// Internal entry points of the bind files of python/src/core/ (python/src/bind.h has the public ones).
#include "python/src/bind.h"

namespace rensa::python {
// state.cc: config, random seeding, reporter.
void bind_core_state(py::module_& m);
// memory.cc: the native allocator's statistics and cache limit.
void bind_core_memory(py::module_& m);
}  // namespace rensa::python
