// rensa.functions: the region-of-interest functions (roi_pooling_2d, roi_max_pooling_2d,
// roi_average_pooling_2d, roi_max_align_2d, roi_average_align_2d) with Chainer's
// signatures. outsize is an int or a pair; sampling_ratio None, an int or a pair whose
// entries may be None (adaptive per roi).
#include "core/error.h"
#include "python/src/functions/functions.h"

namespace rensa::python::functions_bind {
namespace {

using Release = py::call_guard<py::gil_scoped_release>;

std::optional<int64_t> ratio_entry(py::handle v) {
    if (v.is_none()) return std::nullopt;
    RENSA_CHECK(py::isinstance<py::int_>(v) && !py::isinstance<py::bool_>(v), ValueError,
                "sampling_ratio must be integer >= 1 or a pair of it: ", py::str(v).cast<std::string>());
    return v.cast<int64_t>();
}

F::RoiSamplingRatio to_sampling_ratio(const py::object& ratio) {
    if (ratio.is_none() || py::isinstance<py::int_>(ratio)) return {ratio_entry(ratio), ratio_entry(ratio)};
    const py::tuple t = py::tuple(ratio);
    RENSA_CHECK(t.size() == 2, ValueError,
                "sampling_ratio must be integer >= 1 or a pair of it: ", py::str(ratio).cast<std::string>());
    return {ratio_entry(t[0]), ratio_entry(t[1])};
}

using RoiPool = Variable (*)(const Variable&, const Variable&, const Variable&, F::PoolingSize, double);
using RoiAlign = Variable (*)(const Variable&, const Variable&, const Variable&, F::PoolingSize, double,
                              F::RoiSamplingRatio);

}  // namespace

void bind_roi(py::module_& f) {
    f.def("roi_pooling_2d", &F::roi_pooling_2d, py::arg("x"), py::arg("rois"), py::arg("outh"), py::arg("outw"),
          py::arg("spatial_scale"), Release());
    for (const auto& [name, fn] :
         {std::pair<const char*, RoiPool>{"roi_max_pooling_2d", &F::roi_max_pooling_2d},
          std::pair<const char*, RoiPool>{"roi_average_pooling_2d", &F::roi_average_pooling_2d}}) {
        f.def(
            name,
            [fn](const Variable& x, const Variable& rois, const Variable& roi_indices, const Ints& outsize,
                 double spatial_scale) {
                const F::PoolingSize size = to_pooling_size(outsize);
                py::gil_scoped_release release;
                return fn(x, rois, roi_indices, size, spatial_scale);
            },
            py::arg("x"), py::arg("rois"), py::arg("roi_indices"), py::arg("outsize"), py::arg("spatial_scale"));
    }
    for (const auto& [name, fn] :
         {std::pair<const char*, RoiAlign>{"roi_max_align_2d", &F::roi_max_align_2d},
          std::pair<const char*, RoiAlign>{"roi_average_align_2d", &F::roi_average_align_2d}}) {
        f.def(
            name,
            [fn](const Variable& x, const Variable& rois, const Variable& roi_indices, const Ints& outsize,
                 double spatial_scale, const py::object& sampling_ratio) {
                const F::PoolingSize size = to_pooling_size(outsize);
                const F::RoiSamplingRatio ratio = to_sampling_ratio(sampling_ratio);
                py::gil_scoped_release release;
                return fn(x, rois, roi_indices, size, spatial_scale, ratio);
            },
            py::arg("x"), py::arg("rois"), py::arg("roi_indices"), py::arg("outsize"), py::arg("spatial_scale"),
            py::arg("sampling_ratio") = py::none());
    }
}

}  // namespace rensa::python::functions_bind
