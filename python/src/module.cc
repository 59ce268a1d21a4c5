// rensa._core: the pybind11 extension behind the pure-Python package rensa (python/rensa).
#include "python/src/bind.h"
#include "python/src/gc_support.h"

PYBIND11_MODULE(_core, m) {
    using namespace rensa::python;
    m.doc() = "rensa's native core (the package rensa re-exports it under Chainer's names)";
    m.attr("__version__") = RENSA_VERSION_STRING;
    bind_core(m);
    bind_runtime_info(m);
    bind_autograd(m);
    bind_functions(m);
    bind_links(m);
    bind_optimizers(m);
    bind_serializers(m);
    bind_data(m);
    bind_training(m);
    gc_support::install(m);  // last: after every class is registered
}
