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
        R"doc(Computes the R^2 score (coefficient of determination) ``1 - SS_res / SS_tot`` per output column.

Axis 0 is the sample axis; a column with ``SS_tot == 0`` scores 0. Computed in float64 and returned
in pred's dtype. Not differentiable.

:param pred: Predicted values, ``ndim >= 1``, of a floating-point dtype.
:param true: Ground truth values, of pred's shape and dtype.
:param sample_weight: Must be None (``NotImplementedError`` otherwise, as in Chainer).
:param multioutput: ``'uniform_average'`` (the mean over the columns, 0-d) or ``'raw_values'``
    (``pred.shape[1:]``).
:returns: The score variable.)doc");
    f.def("accuracy", &F::accuracy, py::arg("y"), py::arg("t"), py::arg("ignore_label") = py::none(), Release(),
          R"doc(Computes multiclass classification accuracy of the minibatch: the fraction of
``argmax(y, axis=1) == t``.

Not differentiable: the result does not require grad.

:param y: Scores of shape ``(N, C, ...)`` of a floating-point dtype.
:param t: Integer labels of shape ``(N, ...)``.
:param ignore_label: Positions whose label equals it are left out (the accuracy is 0 when all are).
:returns: A 0-d variable of y's dtype.)doc");
    f.def("binary_accuracy", &F::binary_accuracy, py::arg("y"), py::arg("t"), Release(),
          R"doc(Computes binary classification accuracy of the minibatch: the fraction of ``(y >= 0) == t``.

Not differentiable: the result does not require grad.

:param y: Scores of a floating-point dtype.
:param t: Integer labels of y's shape, in ``{-1, 0, 1}``; -1 is ignored.
:returns: A 0-d variable of y's dtype.)doc");
    f.def("classification_summary", &F::classification_summary, py::arg("y"), py::arg("t"),
          py::arg("label_num") = py::none(), py::arg("beta") = 1.0, py::arg("ignore_label") = -1, Release(),
          R"doc(Calculates precision, recall, F-beta score and support per class.

Not differentiable. ``0 / 0`` gives NaN, as in Chainer.

:param y: Scores of shape ``(N, C, ...)`` of a floating-point dtype.
:param t: Integer labels of shape ``(N, ...)``.
:param label_num: The number of classes; None takes ``max(t) + 1``. Other labels outside
    ``[0, label_num)`` raise ``ValueError``.
:param beta: The beta of the F-beta score.
:param ignore_label: Positions whose label equals it are left out.
:returns: A tuple ``(precision, recall, fbeta_score, support)``: float64 variables of shape
    ``(label_num,)`` and an int64 support.)doc");
    f.def("precision", &F::precision, py::arg("y"), py::arg("t"), py::arg("label_num") = py::none(),
          py::arg("ignore_label") = -1, Release(),
          R"doc(Calculates the precision of each class, as :func:`classification_summary`.

:param y: Scores of shape ``(N, C, ...)``.
:param t: Integer labels of shape ``(N, ...)``.
:param label_num: The number of classes; None takes ``max(t) + 1``.
:param ignore_label: Positions whose label equals it are left out.
:returns: A tuple ``(precision, support)``.)doc");
    f.def("recall", &F::recall, py::arg("y"), py::arg("t"), py::arg("label_num") = py::none(),
          py::arg("ignore_label") = -1, Release(),
          R"doc(Calculates the recall of each class, as :func:`classification_summary`.

:param y: Scores of shape ``(N, C, ...)``.
:param t: Integer labels of shape ``(N, ...)``.
:param label_num: The number of classes; None takes ``max(t) + 1``.
:param ignore_label: Positions whose label equals it are left out.
:returns: A tuple ``(recall, support)``.)doc");
    f.def("fbeta_score", &F::fbeta_score, py::arg("y"), py::arg("t"), py::arg("label_num") = py::none(),
          py::arg("beta") = 1.0, py::arg("ignore_label") = -1, Release(),
          R"doc(Calculates the F-beta score of each class, as :func:`classification_summary`.

:param y: Scores of shape ``(N, C, ...)``.
:param t: Integer labels of shape ``(N, ...)``.
:param label_num: The number of classes; None takes ``max(t) + 1``.
:param beta: The weight of recall against precision.
:param ignore_label: Positions whose label equals it are left out.
:returns: A tuple ``(fbeta_score, support)``.)doc");
    f.def("f1_score", &F::f1_score, py::arg("y"), py::arg("t"), py::arg("label_num") = py::none(),
          py::arg("ignore_label") = -1, Release(),
          R"doc(Calculates the F1 score of each class: :func:`fbeta_score` with ``beta=1``.

:param y: Scores of shape ``(N, C, ...)``.
:param t: Integer labels of shape ``(N, ...)``.
:param label_num: The number of classes; None takes ``max(t) + 1``.
:param ignore_label: Positions whose label equals it are left out.
:returns: A tuple ``(f1_score, support)``.)doc");
}

}  // namespace rensa::python::functions_bind
