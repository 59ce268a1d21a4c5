// rensa._core.initializers: UpsamplingDeconvFilter and DownsamplingConvFilter
// (links/initializers/sampling.h), Chainer's (interpolation='linear', dtype=None).
#include <memory>
#include <string>

#include "links/initializers/sampling.h"
#include "python/src/links/links.h"

namespace rensa::python::links_detail {
namespace init = rensa::initializers;

namespace {

template <class T>
void bind_sampling_filter(py::module_& m, const char* name) {
    py::classh<T, init::SamplingFilter>(m, name).def(
        py::init([](std::string interpolation, py::handle dtype) {
            return std::make_shared<T>(std::move(interpolation),
                                       dtype.is_none() ? std::nullopt : std::optional<Dtype>(to_dtype(dtype)));
        }),
        py::arg("interpolation") = "linear", py::arg("dtype") = py::none());
}

}  // namespace

void bind_sampling_filters(py::module_& m) {
    py::classh<init::SamplingFilter, init::Initializer>(m, "_SamplingFilter")
        .def_property_readonly("interpolation", &init::SamplingFilter::interpolation);
    bind_sampling_filter<init::UpsamplingDeconvFilter>(m, "UpsamplingDeconvFilter");
    bind_sampling_filter<init::DownsamplingConvFilter>(m, "DownsamplingConvFilter");
}

}  // namespace rensa::python::links_detail
