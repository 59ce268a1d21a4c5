// rensa._core.functions: Chainer's names, positional order, keyword names and defaults,
// bound straight to the C++ functions so that a call costs no Python frame, one file per
// family of functions/. Work in C++ runs without the GIL where a family says so.
#include "python/src/functions/functions.h"

namespace rensa::python {

void bind_functions(py::module_& m) {
    py::module_ f = m.def_submodule("functions");
    functions_bind::bind_activation(f);
    functions_bind::bind_noise(f);
    functions_bind::bind_array(f);
    functions_bind::bind_array_indexing(f, m);
    functions_bind::bind_math(f);
    functions_bind::bind_math_products(f);
    functions_bind::bind_connection(f);
    functions_bind::bind_recurrent(f);
    functions_bind::bind_pooling(f);
    functions_bind::bind_roi(f);
    functions_bind::bind_normalization(f);
    functions_bind::bind_loss(f);
    functions_bind::bind_evaluation(f);
    functions_bind::bind_linalg(f, m);
    functions_bind::bind_spatial(f);
    functions_bind::bind_normloss(f);
    functions_bind::bind_pad(f);
    functions_bind::bind_act(f);
}

}  // namespace rensa::python
