// rensa.functions: batch, fixed batch, layer, group and local response normalization, and
// normalize. running_mean / running_var given as numpy arrays are updated in place, as in
// Chainer (the array is wrapped, not copied).
#include "python/src/functions/functions.h"

namespace rensa::python::functions_bind {
namespace {

using Release = py::call_guard<py::gil_scoped_release>;

Variable batch_normalization(const Variable& x, const Variable& gamma, const Variable& beta, double eps,
                             const py::object& running_mean, const py::object& running_var, double decay,
                             const std::optional<Int32s>& axis) {
    const F::BatchNormalizationOptions options{.eps = eps,
                                               .running_mean = to_array_or_undefined(running_mean),
                                               .running_var = to_array_or_undefined(running_var),
                                               .decay = decay,
                                               .axis = to_axes(axis)};
    py::gil_scoped_release release;
    return F::batch_normalization(x, gamma, beta, options);
}

}  // namespace

void bind_normalization(py::module_& f) {
    // Chainer takes the options as **kwargs: keyword-only here.
    f.def("batch_normalization", &batch_normalization, py::arg("x"), py::arg("gamma"), py::arg("beta"), py::kw_only(),
          py::arg("eps") = 2e-5, py::arg("running_mean") = py::none(), py::arg("running_var") = py::none(),
          py::arg("decay") = 0.9, py::arg("axis") = py::none());
    f.def(
        "fixed_batch_normalization",
        [](const Variable& x, const Variable& gamma, const Variable& beta, const Variable& mean, const Variable& var,
           double eps, const std::optional<Int32s>& axis) {
            return F::fixed_batch_normalization(x, gamma, beta, mean, var, eps, to_axes(axis));
        },
        py::arg("x"), py::arg("gamma"), py::arg("beta"), py::arg("mean"), py::arg("var"), py::arg("eps") = 2e-5,
        py::arg("axis") = py::none(), Release());
    f.def("layer_normalization", &F::layer_normalization, py::arg("x"), py::arg("gamma"), py::arg("beta"),
          py::arg("eps") = 1e-5, Release());
    f.def("group_normalization", &F::group_normalization, py::arg("x"), py::arg("groups"), py::arg("gamma"),
          py::arg("beta"), py::arg("eps") = 1e-5, Release());
    f.def(
        "local_response_normalization",
        [](const Variable& x, int64_t n, double k, double alpha, double beta) {
            return F::local_response_normalization(x, {.n = n, .k = k, .alpha = alpha, .beta = beta});
        },
        py::arg("x"), py::arg("n") = 5, py::arg("k") = 2.0, py::arg("alpha") = 1e-4, py::arg("beta") = 0.75, Release());
    f.def(
        "normalize",
        [](const Variable& x, double eps, const Int32s& axis) {
            return F::normalize(x, eps, *to_axes(std::optional<Int32s>{axis}));
        },
        py::arg("x"), py::arg("eps") = 1e-5, py::arg("axis") = 1, Release());
}

}  // namespace rensa::python::functions_bind
