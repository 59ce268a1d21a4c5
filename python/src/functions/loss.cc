// rensa.functions: the loss functions (squared_error and absolute_error included). Labels are
// integer Variables or arrays (an int32 numpy array converts like any other array).
#include <string>
#include <string_view>
#include <utility>

#include "python/src/functions/functions.h"

namespace rensa::python::functions_bind {
namespace {

using Release = py::call_guard<py::gil_scoped_release>;

Variable softmax_cross_entropy(const Variable& x, const Variable& t, bool normalize, bool cache_score,
                               const py::object& class_weight, int64_t ignore_label, std::string reduce,
                               bool enable_double_backprop, std::string soft_target_loss) {
    const F::SoftmaxCrossEntropyOptions options{.normalize = normalize,
                                                .cache_score = cache_score,
                                                .class_weight = to_array_or_undefined(class_weight),
                                                .ignore_label = ignore_label,
                                                .reduce = std::move(reduce),
                                                .enable_double_backprop = enable_double_backprop,
                                                .soft_target_loss = std::move(soft_target_loss)};
    py::gil_scoped_release release;
    return F::softmax_cross_entropy(x, t, options);
}

// Chainer's sampler: a callable taking the shape tuple and returning integer ids. Its result
// is copied while the GIL is held, so no numpy-backed array is freed without the GIL.
// With return_samples=True the drawn array comes back too, column 0 set to t as in Chainer.
py::object negative_sampling(const Variable& x, const Variable& t, const Variable& W, const py::function& sampler,
                             int64_t sample_size, std::string_view reduce, bool return_samples) {
    py::object drawn;
    const F::NegativeSampler call_sampler = [&sampler, &drawn](const Shape& shape) {
        py::gil_scoped_acquire gil;
        py::tuple py_shape(static_cast<size_t>(shape.size()));
        for (int i = 0; i < shape.size(); ++i) py_shape[static_cast<size_t>(i)] = shape[i];
        drawn = sampler(py_shape);
        return to_array(drawn).copy();
    };
    Variable loss;
    {
        py::gil_scoped_release release;
        loss = F::negative_sampling(x, t, W, call_sampler, sample_size, reduce);
    }
    if (!return_samples) return py::cast(std::move(loss));
    drawn[py::make_tuple(py::slice(py::none(), py::none(), py::none()), 0)] = to_numpy(t.array());
    return py::make_tuple(std::move(loss), drawn);
}

Variable ctc(const std::vector<Variable>& x, const Variable& t, int64_t blank_symbol,
             const std::optional<Variable>& input_length, const std::optional<Variable>& label_length,
             std::string_view reduce) {
    return F::connectionist_temporal_classification(x, t, blank_symbol,
                                                    {.input_length = to_variable_or_undefined(input_length),
                                                     .label_length = to_variable_or_undefined(label_length),
                                                     .reduce = reduce});
}

void bind_regression(py::module_& f) {
    f.def("mean_squared_error", &F::mean_squared_error, py::arg("x0"), py::arg("x1"), Release());
    f.def("mean_absolute_error", &F::mean_absolute_error, py::arg("x0"), py::arg("x1"), Release());
    f.def("huber_loss", &F::huber_loss, py::arg("x"), py::arg("t"), py::arg("delta"),
          py::arg("reduce") = "sum_along_second_axis", Release());
    f.def("gaussian_kl_divergence", &F::gaussian_kl_divergence, py::arg("mean"), py::arg("ln_var"),
          py::arg("reduce") = "sum", Release());
    f.def("bernoulli_nll", &F::bernoulli_nll, py::arg("x"), py::arg("y"), py::arg("reduce") = "sum", Release());
    f.def("gaussian_nll", &F::gaussian_nll, py::arg("x"), py::arg("mean"), py::arg("ln_var"), py::arg("reduce") = "sum",
          Release());
}

}  // namespace

void bind_loss(py::module_& f) {
    f.def("squared_error", &F::squared_error, py::arg("x0"), py::arg("x1"), Release(),
          "Elementwise squared error (x0 - x1) ** 2 (Chainer's F.squared_error).");
    f.def("absolute_error", &F::absolute_error, py::arg("x0"), py::arg("x1"), Release(),
          "Elementwise absolute error |x0 - x1| (Chainer's F.absolute_error).");
    f.def("softmax_cross_entropy", &softmax_cross_entropy, py::arg("x"), py::arg("t"), py::arg("normalize") = true,
          py::arg("cache_score") = true, py::arg("class_weight") = py::none(), py::arg("ignore_label") = -1,
          py::arg("reduce") = "mean", py::arg("enable_double_backprop") = false,
          py::arg("soft_target_loss") = "cross-entropy");
    f.def(
        "sigmoid_cross_entropy",
        [](const Variable& x, const Variable& t, bool normalize, std::string reduce) {
            return F::sigmoid_cross_entropy(x, t, {.normalize = normalize, .reduce = std::move(reduce)});
        },
        py::arg("x"), py::arg("t"), py::arg("normalize") = true, py::arg("reduce") = "mean", Release());
    bind_regression(f);
    f.def("hinge", &F::hinge, py::arg("x"), py::arg("t"), py::arg("norm") = "L1", py::arg("reduce") = "mean",
          Release());
    f.def("contrastive", &F::contrastive, py::arg("x0"), py::arg("x1"), py::arg("y"), py::arg("margin") = 1.0,
          py::arg("reduce") = "mean", Release());
    f.def("triplet", &F::triplet, py::arg("anchor"), py::arg("positive"), py::arg("negative"), py::arg("margin") = 0.2,
          py::arg("reduce") = "mean", Release());
    f.def("negative_sampling", &negative_sampling, py::arg("x"), py::arg("t"), py::arg("W"), py::arg("sampler"),
          py::arg("sample_size"), py::arg("reduce") = "sum", py::kw_only(), py::arg("return_samples") = false);
    f.def("connectionist_temporal_classification", &ctc, py::arg("x"), py::arg("t"), py::arg("blank_symbol"),
          py::arg("input_length") = py::none(), py::arg("label_length") = py::none(), py::arg("reduce") = "mean",
          Release());
}

}  // namespace rensa::python::functions_bind
