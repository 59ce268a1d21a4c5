// rensa.functions group b (connection, pooling, normalization, loss, evaluation): Chainer's
// names, positional order, keyword names and defaults, bound straight to the C++ functions
// so that a call costs no Python frame. Work in C++ runs without the GIL.
#include "python/src/functions_b.h"

namespace rensa::python {

void bind_functions_b(py::module_& m) {
    py::module_ f = m.def_submodule("functions");
    functions_b::bind_connection(f);
    functions_b::bind_recurrent(f);
    functions_b::bind_pooling(f);
    functions_b::bind_normalization(f);
    functions_b::bind_loss(f);
    functions_b::bind_evaluation(f);
}

}  // namespace rensa::python
