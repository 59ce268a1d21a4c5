// rensa.functions: accuracy, binary_accuracy, classification_summary, precision, recall,
// fbeta_score, f1_score. The summaries return tuples of Variables, as in Chainer.
#include "python/src/functions/functions.h"

namespace rensa::python::functions_bind {
namespace {
using Release = py::call_guard<py::gil_scoped_release>;
}  // namespace

void bind_evaluation(py::module_& f) {
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
