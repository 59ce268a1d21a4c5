// rensa._core.functions, activation family (functions/activation.h).
#include "functions/activation.h"
#include "python/src/functions/functions.h"

namespace rensa::python::functions_bind {

void bind_activation(py::module_& f) {
    f.def("relu", &F::relu, py::arg("x"));
    f.def("leaky_relu", &F::leaky_relu, py::arg("x"), py::arg("slope") = 0.2);
    f.def("elu", &F::elu, py::arg("x"), py::arg("alpha") = 1.0);
    f.def("selu", &F::selu, py::arg("x"), py::arg("alpha") = 1.6732632423543772, py::arg("scale") = 1.0507009873554805);
    f.def("clipped_relu", &F::clipped_relu, py::arg("x"), py::arg("z") = 20.0);
    f.def("sigmoid", &F::sigmoid, py::arg("x"));
    f.def("hard_sigmoid", &F::hard_sigmoid, py::arg("x"));
    f.def("tanh", &F::tanh, py::arg("x"));
    f.def("softplus", &F::softplus, py::arg("x"), py::arg("beta") = 1.0);
    f.def("swish", &F::swish, py::arg("x"), py::arg("beta"));
    f.def("gelu", &F::gelu, py::arg("x"));
    f.def("softmax", &F::softmax, py::arg("x"), py::arg("axis") = 1);
    f.def("log_softmax", &F::log_softmax, py::arg("x"), py::arg("axis") = 1);
    f.def("prelu", &F::prelu, py::arg("x"), py::arg("W"));
    f.def("maxout", &F::maxout, py::arg("x"), py::arg("pool_size"), py::arg("axis") = 1);
    f.def("lstm", &F::lstm, py::arg("c_prev"), py::arg("x"));
    f.def("relu6", &F::relu6, py::arg("x"));
    f.def("crelu", &F::crelu, py::arg("x"), py::arg("axis") = 1);
}

}  // namespace rensa::python::functions_bind
