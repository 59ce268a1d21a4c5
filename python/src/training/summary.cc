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
            py::arg("value"), py::arg("weight") = 1.0)
        .def("compute_mean", &Summary::compute_mean)
        .def("make_statistics", &Summary::make_statistics)
        .def_property_readonly("count", &Summary::count)
        .def("serialize", &Summary::serialize, py::arg("serializer"));

    py::class_<DictSummary>(t, "DictSummary", "One Summary per key (chainer.reporter.DictSummary)")
        .def(py::init<>())
        .def(
            "add", [](DictSummary& self, py::handle d) { self.add(observation_from_python(d)); }, py::arg("d"))
        .def("compute_mean", &DictSummary::compute_mean)
        .def("make_statistics", &DictSummary::make_statistics)
        .def_property_readonly("empty", &DictSummary::empty)
        .def("serialize", &DictSummary::serialize, py::arg("serializer"));
}

}  // namespace rensa::python
