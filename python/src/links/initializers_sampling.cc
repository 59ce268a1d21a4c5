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
void bind_sampling_filter(py::module_& m, const char* name, const char* doc) {
    py::classh<T, init::SamplingFilter>(m, name, doc)
        .def(py::init([](std::string interpolation, py::handle dtype) {
                 return std::make_shared<T>(std::move(interpolation),
                                            dtype.is_none() ? std::nullopt : std::optional<Dtype>(to_dtype(dtype)));
             }),
             py::arg("interpolation") = "linear", py::arg("dtype") = py::none());
}

}  // namespace

void bind_sampling_filters(py::module_& m) {
    py::classh<init::SamplingFilter, init::Initializer>(m, "_SamplingFilter")
        .def_property_readonly("interpolation", &init::SamplingFilter::interpolation);
    bind_sampling_filter<init::UpsamplingDeconvFilter>(
        m, "UpsamplingDeconvFilter", R"doc(Initializes a deconvolution kernel to upsample by linear interpolation.

The initial weight of a DeconvolutionND with ``stride = (ksize + 1) // 2`` (the FCN recipe): element
``[i, i, ...]`` (``[i, 0, ...]`` when ``shape[1] == 1``) holds the separable linear kernel
``prod_d (1 - |k_d - center| / factor)`` with ``factor = (ksize + 1) / 2``; every other element is 0.

Args:
    interpolation (str): Only ``'linear'`` (ValueError otherwise), as in Chainer 7.8.1.
    dtype: The dtype of the array, or ``None``.

The array needs at least 3 dimensions, ``shape[1]`` equal to ``shape[0]`` or 1, and equal spatial sizes.
)doc");
    bind_sampling_filter<init::DownsamplingConvFilter>(
        m, "DownsamplingConvFilter", R"doc(Initializes a convolution kernel to downsample by linear interpolation.

The initial weight of a ConvolutionND with ``stride = (ksize + 1) // 2``: the kernel of UpsamplingDeconvFilter
normalised to sum to 1, on element ``[i, i, ...]`` (``[i, 0, ...]`` when ``shape[1] == 1``).

Args:
    interpolation (str): Only ``'linear'`` (ValueError otherwise), as in Chainer 7.8.1.
    dtype: The dtype of the array, or ``None``.
)doc");
}

}  // namespace rensa::python::links_detail
