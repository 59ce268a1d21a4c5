// rensa._core: autograd (Variable, FunctionNode, backward, grad, modes, hooks, gradient checks).
#include "python/src/autograd/autograd.h"

namespace rensa::python {
void bind_autograd(py::module_& m) {
    bind_function_node(m);  // first: Variable.creator returns one
    bind_variable(m);
    bind_backprop(m);
    bind_hooks_and_graph(m);
    bind_gradient_check(m);
    bind_recorder(m);
}
}  // namespace rensa::python
