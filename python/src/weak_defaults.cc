// Weak no-op entry points, so that a development build with RENSA_PY_ONLY (python/CMakeLists.txt)
// links without the bind files it leaves out. A full build defines every entry point for real.
#include "python/src/bind.h"

namespace rensa::python {
#define RENSA_PY_WEAK_ENTRY(name) \
    __attribute__((weak)) void name(py::module_& m) { (void)m; }
RENSA_PY_WEAK_ENTRY(bind_core)
RENSA_PY_WEAK_ENTRY(bind_runtime_info)
RENSA_PY_WEAK_ENTRY(bind_autograd)
RENSA_PY_WEAK_ENTRY(bind_links)
RENSA_PY_WEAK_ENTRY(bind_optimizers)
RENSA_PY_WEAK_ENTRY(bind_serializers)
RENSA_PY_WEAK_ENTRY(bind_data)
RENSA_PY_WEAK_ENTRY(bind_training)
#undef RENSA_PY_WEAK_ENTRY
// rensa.functions imports rensa._core.functions, so the fallback still makes the submodule.
__attribute__((weak)) void bind_functions(py::module_& m) { m.def_submodule("functions"); }
}  // namespace rensa::python
