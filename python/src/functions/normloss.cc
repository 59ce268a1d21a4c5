// rensa.functions: the normalizations and losses of issue 23 (batch_renormalization,
// decorrelated_batch_normalization,
// black_out, crf1d, argmax_crf1d, cross_covariance, decov and the discriminative loss),
// with Chainer 7's positional order, keyword names and defaults.
#include <string_view>
#include <vector>

#include "python/src/convert/array.h"
#include "python/src/functions/functions.h"

namespace rensa::python::functions_bind {
namespace {

using Release = py::call_guard<py::gil_scoped_release>;

// Chainer raises TypeError('running_mean is required') for a missing statistic.
Variable batch_renormalization(const Variable& x, const Variable& gamma, const Variable& beta, double rmax, double dmax,
                               double eps, const py::object& running_mean, const py::object& running_var, double decay,
                               bool update_statistics) {
    if (running_mean.is_none()) throw py::type_error("running_mean is required");
    if (running_var.is_none()) throw py::type_error("running_var is required");
    const F::BatchRenormalizationOptions options{.eps = eps,
                                                 .running_mean = to_array(running_mean),
                                                 .running_var = to_array(running_var),
                                                 .decay = decay,
                                                 .update_statistics = update_statistics};
    py::gil_scoped_release release;
    return F::batch_renormalization(x, gamma, beta, rmax, dmax, options);
}

// (score, path) with the path a list of integer arrays, as Chainer returns it.
py::tuple argmax_crf1d(const Variable& cost, const py::object& xs) {
    const std::vector<Variable> steps = to_variables(xs);
    std::pair<Variable, std::vector<Array>> result;
    {
        py::gil_scoped_release release;
        result = F::argmax_crf1d(cost, steps);
    }
    py::list path;
    for (const Array& p : result.second) path.append(to_numpy(p));
    return py::make_tuple(result.first, path);
}

// Chainer 7 takes decorrelated_batch_normalization's options as keywords only (**kwargs).
Variable decorrelated_batch_normalization(const Variable& x, int64_t groups, double eps, const py::object& running_mean,
                                          const py::object& running_projection, double decay) {
    const F::DecorrelatedBatchNormalizationOptions options{
        .groups = groups,
        .eps = eps,
        .running_mean = to_array_or_undefined(running_mean),
        .running_projection = to_array_or_undefined(running_projection),
        .decay = decay};
    py::gil_scoped_release release;
    return F::decorrelated_batch_normalization(x, options);
}

}  // namespace

void bind_normloss(py::module_& f) {
    f.def("batch_renormalization", &batch_renormalization, py::arg("x"), py::arg("gamma"), py::arg("beta"),
          py::arg("rmax"), py::arg("dmax"), py::arg("eps") = 2e-5, py::arg("running_mean") = py::none(),
          py::arg("running_var") = py::none(), py::arg("decay") = 0.9, py::arg("update_statistics") = false);
    f.def("fixed_batch_renormalization", &F::fixed_batch_renormalization, py::arg("x"), py::arg("gamma"),
          py::arg("beta"), py::arg("mean"), py::arg("var"), py::arg("eps") = 2e-5, Release());
    f.def("decorrelated_batch_normalization", &decorrelated_batch_normalization, py::arg("x"), py::kw_only(),
          py::arg("groups") = 16, py::arg("eps") = 2e-5, py::arg("running_mean") = py::none(),
          py::arg("running_projection") = py::none(), py::arg("decay") = 0.9);
    f.def("fixed_decorrelated_batch_normalization", &F::fixed_decorrelated_batch_normalization, py::arg("x"),
          py::arg("mean"), py::arg("projection"), py::arg("groups") = 16, Release());
    f.def("black_out", &F::black_out, py::arg("x"), py::arg("t"), py::arg("W"), py::arg("samples"),
          py::arg("reduce") = "mean", Release());
    f.def(
        "crf1d",
        [](const Variable& cost, const py::object& xs, const py::object& ys, std::string_view reduce) {
            const std::vector<Variable> x = to_variables(xs), y = to_variables(ys);
            py::gil_scoped_release release;
            return F::crf1d(cost, x, y, reduce);
        },
        py::arg("cost"), py::arg("xs"), py::arg("ys"), py::arg("reduce") = "mean");
    f.def("argmax_crf1d", &argmax_crf1d, py::arg("cost"), py::arg("xs"));
    f.def("cross_covariance", &F::cross_covariance, py::arg("y"), py::arg("z"), py::arg("reduce") = "half_squared_sum",
          Release());
    f.def("decov", &F::decov, py::arg("h"), py::arg("reduce") = "half_squared_sum", Release());
    f.def("discriminative_margin_based_clustering_loss", &F::discriminative_margin_based_clustering_loss,
          py::arg("embeddings"), py::arg("labels"), py::arg("delta_v"), py::arg("delta_d"),
          py::arg("max_embedding_dim"), py::arg("norm") = 1, py::arg("alpha") = 1.0, py::arg("beta") = 1.0,
          py::arg("gamma") = 0.001, Release());
}

}  // namespace rensa::python::functions_bind
