// rensa._core.training.Summary / DictSummary (chainer.reporter's; re-exported as rensa.Summary).
#include "training/summary.h"
#include "python/src/training/training.h"

namespace rensa::python {

void bind_training_summary(py::module_& t) {
    using training::DictSummary;
    using training::Summary;
    py::class_<Summary>(t, "Summary", "Running mean and std of reported values (chainer.reporter.Summary)")
        .def(py::init<>())
        .def(
            "add",
            [](Summary& self, py::handle value, double weight) {
                if (py::isinstance<py::float_>(value) || py::isinstance<py::int_>(value)) {
                    self.add(value.cast<double>(), weight);
                } else if (py::isinstance<Variable>(value)) {
                    self.add(value.cast<const Variable&>().array(), weight);
                } else {
                    self.add(to_array(value), weight);
                }
            },
            py::arg("value"), py::arg("weight") = 1.0,
            "Adds ``value`` (a number, an array or a Variable, reduced to the mean of its elements) with "
            "``weight``: the sum grows by ``weight * value``, the count by ``weight`` (an integer here, so a "
            "fractional weight is truncated in the count).")
        .def("compute_mean", &Summary::compute_mean,
             "The mean of the added values (a float); ValueError when nothing was added.")
        .def("make_statistics", &Summary::make_statistics,
             "The tuple ``(mean, std)`` (population standard deviation); ValueError when nothing was added.")
        .def_property_readonly("count", &Summary::count, "The number of values added (the sum of their weights).")
        .def("serialize", &Summary::serialize, py::arg("serializer"),
             "Saves or loads the running sums through ``serializer`` (keys ``_x``, ``_x2``, ``_n`` as Chainer).");

    py::class_<DictSummary>(t, "DictSummary", "One Summary per key (chainer.reporter.DictSummary)")
        .def(py::init<>())
        .def(
            "add", [](DictSummary& self, py::handle d) { self.add(observation_from_python(d)); }, py::arg("d"),
            "Adds each value of the dict ``d`` to the Summary of its key. As Chainer, only scalars count: arrays "
            "with ndim > 0 and non-numeric values are skipped.")
        .def("compute_mean", &DictSummary::compute_mean, "A dict of the mean of each key, ordered by key.")
        .def("make_statistics", &DictSummary::make_statistics,
             "A dict of the mean of each key, plus ``<key>.std`` for its standard deviation.")
        .def_property_readonly("empty", &DictSummary::empty, "Whether no value has been added.")
        .def("serialize", &DictSummary::serialize, py::arg("serializer"),
             "Saves or loads every Summary through ``serializer`` (the keys as a JSON list under ``_names`` and key "
             "i's Summary under ``_summaries/<i>/``, as Chainer); loading replaces every summary.");
}

}  // namespace rensa::python
