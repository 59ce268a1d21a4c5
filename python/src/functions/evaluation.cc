// rensa.functions: accuracy, binary_accuracy, classification_summary, precision, recall,
// fbeta_score, f1_score, r2_score. The summaries return tuples of Variables, as in Chainer.
#include <string>

#include "python/src/functions/functions.h"

namespace rensa::python::functions_bind {
namespace {
using Release = py::call_guard<py::gil_scoped_release>;
}  // namespace

void bind_evaluation(py::module_& f) {
    f.def(
        "r2_score",
        [](const Variable& pred, const Variable& true_values, py::handle sample_weight,
           const std::string& multioutput) {
            const Variable weight = to_variable_or_undefined(sample_weight);
            py::gil_scoped_release no_gil;
            return F::r2_score(pred, true_values, weight, multioutput);
        },
        py::arg("pred"), py::arg("true"), py::arg("sample_weight") = py::none(),
        py::arg("multioutput") = "uniform_average",
        "Chainer's r2_score: 1 - SS_res / SS_tot per output column (axis 0 is the sample axis).\n\n"
        "multioutput 'uniform_average' (a 0-d result) or 'raw_values'. Not differentiable.");
    f.def("accuracy", &F::accuracy, py::arg("y"), py::arg("t"), py::arg("ignore_label") = py::none(), Release());
    f.def("binary_accuracy", &F::binary_accuracy, py::arg("y"), py::arg("t"), Release());
    f.def("classification_summary", &F::classification_summary, py::arg("y"), py::arg("t"),
          py::arg("label_num") = py::none(), py::arg("beta") = 1.0, py::arg("ignore_label") = -1, Release());
    f.def("precision", &F::precision, py::arg("y"), py::arg("t"), py::arg("label_num") = py::none(),
          py::arg("ignore_label") = -1, Release());
    f.def("recall", &F::recall, py::arg("y"), py::arg("t"), py::arg("label_num") = py::none(),
          py::arg("ignore_label") = -1, Release());
    f.def("fbeta_score", &F::fbeta_score, py::arg("y"), py::arg("t"), py::arg("label_num") = py::none(),
          py::arg("beta") = 1.0, py::arg("ignore_label") = -1, Release());
    f.def("f1_score", &F::f1_score, py::arg("y"), py::arg("t"), py::arg("label_num") = py::none(),
          py::arg("ignore_label") = -1, Release());
}

}  // namespace rensa::python::functions_bind
