// rensa.functions, issue 23's spatial functions with Chainer's signatures:
// spatial_transformer_grid(theta, output_shape), spatial_transformer_sampler(x, grid) (both
// refuse Chainer's removed use_cudnn keyword as Chainer does), local_convolution_2d,
// deformable_convolution_2d_sampler, shift, unpooling_1d / unpooling_3d / unpooling_nd.
#include <string>
#include <utility>

#include "core/error.h"
#include "python/src/functions/functions.h"

namespace rensa::python::functions_bind {
namespace {

using Release = py::call_guard<py::gil_scoped_release>;

// Chainer's check_unexpected_kwargs(use_cudnn=...) + assert_kwargs_empty.
void check_no_kwargs(const py::kwargs& kwargs, const char* op) {
    if (kwargs.contains("use_cudnn")) {
        throw py::value_error(
            "The argument \"use_cudnn\" is not supported anymore. Use chainer.using_config('use_cudnn', value) "
            "context where value can be `always`, `never`, or `auto`.");
    }
    if (kwargs.size() > 0) {
        std::string names;
        for (const auto& item : kwargs)
            names += (names.empty() ? "'" : ", '") + py::str(item.first).cast<std::string>() + "'";
        throw py::type_error(std::string(op) + "() got unexpected keyword argument(s) " + names);
    }
}

std::pair<int64_t, int64_t> output_pair(const Ints& output_shape) {
    const Shape s = to_int_or_tuple(output_shape).expand(2, "spatial_transformer_grid", "output_shape");
    return {s[0], s[1]};
}

void bind_unpooling(py::module_& f, const char* name,
                    Variable (*fn)(const Variable&, F::PoolingSize, const F::UnpoolingOptions&)) {
    f.def(
        name,
        [fn](const Variable& x, const Ints& ksize, const std::optional<Ints>& stride, const Ints& pad,
             const std::optional<Ints>& outsize, bool cover_all) {
            return fn(x, to_pooling_size(ksize), unpooling_options(stride, pad, outsize, cover_all));
        },
        py::arg("x"), py::arg("ksize"), py::arg("stride") = py::none(), py::arg("pad") = 0,
        py::arg("outsize") = py::none(), py::arg("cover_all") = true, Release());
}

}  // namespace

void bind_spatial(py::module_& f) {
    f.def(
        "spatial_transformer_grid",
        [](const Variable& theta, const Ints& output_shape, const py::kwargs& kwargs) {
            check_no_kwargs(kwargs, "spatial_transformer_grid");
            const auto shape = output_pair(output_shape);
            py::gil_scoped_release release;
            return F::spatial_transformer_grid(theta, shape);
        },
        py::arg("theta"), py::arg("output_shape"));
    f.def(
        "spatial_transformer_sampler",
        [](const Variable& x, const Variable& grid, const py::kwargs& kwargs) {
            check_no_kwargs(kwargs, "spatial_transformer_sampler");
            py::gil_scoped_release release;
            return F::spatial_transformer_sampler(x, grid);
        },
        py::arg("x"), py::arg("grid"));
    f.def(
        "local_convolution_2d",
        [](const Variable& x, const Variable& W, const std::optional<Variable>& b, const Ints& stride) {
            return F::local_convolution_2d(x, W, to_variable_or_undefined(b), to_int_or_tuple(stride));
        },
        py::arg("x"), py::arg("W"), py::arg("b") = py::none(), py::arg("stride") = 1, Release());
    f.def(
        "deformable_convolution_2d_sampler",
        [](const Variable& x, const Variable& offset, const Variable& W, const std::optional<Variable>& b,
           const Ints& stride, const Ints& pad) {
            return F::deformable_convolution_2d_sampler(x, offset, W, to_variable_or_undefined(b),
                                                        to_int_or_tuple(stride), to_int_or_tuple(pad));
        },
        py::arg("x"), py::arg("offset"), py::arg("W"), py::arg("b") = py::none(), py::arg("stride") = 1,
        py::arg("pad") = 0, Release());
    f.def(
        "shift",
        [](const Variable& x, const Ints& ksize, const Ints& dilate) {
            return F::shift(x, to_int_or_tuple(ksize), to_int_or_tuple(dilate));
        },
        py::arg("x"), py::arg("ksize") = 3, py::arg("dilate") = 1, Release());
    bind_unpooling(f, "unpooling_1d", &F::unpooling_1d);
    bind_unpooling(f, "unpooling_3d", &F::unpooling_3d);
    bind_unpooling(f, "unpooling_nd", &F::unpooling_nd);
}

}  // namespace rensa::python::functions_bind
