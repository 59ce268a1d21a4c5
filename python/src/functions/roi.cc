// rensa.functions: the region-of-interest functions (roi_pooling_2d, roi_max_pooling_2d,
// roi_average_pooling_2d, roi_max_align_2d, roi_average_align_2d) with Chainer's
// signatures. outsize is an int or a pair; sampling_ratio None, an int or a pair whose
// entries may be None (adaptive per roi).
#include <string>
#include <tuple>

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

// The docstrings of the functions the loops below bind: a head per function, ending with its x, and
// the arguments after x that both functions of a loop share (appended to their heads).
constexpr const char* kRoiPoolingArgsDoc = R"doc(
:param rois: Regions ``(r, 4)``, rows ``(y_min, x_min, y_max, x_max)`` in x's scale before
    ``spatial_scale``.
:param roi_indices: int32 ``(r,)``: the batch index of each region, in ``[0, n)`` (``IndexError``
    otherwise).
:param outsize: The output's ``(outh, outw)``, or an int for both.
:param spatial_scale: The factor from the region coordinates to x's pixels (positive).
:returns: A variable of shape ``(r, c, outh, outw)``, differentiable once in x.)doc";

constexpr const char* kRoiMaxPoolingDoc =
    R"doc(Spatial Region of Interest (ROI) max pooling function: the maximum over each rounded bin
(-inf for an empty bin).

:param x: Input ``(n, c, h, w)`` of a floating-point dtype.)doc";

constexpr const char* kRoiAveragePoolingDoc =
    R"doc(Spatial Region of Interest (ROI) average pooling function: the mean over each rounded bin
(0 for an empty bin).

:param x: Input ``(n, c, h, w)`` of a floating-point dtype.)doc";

constexpr const char* kRoiAlignArgsDoc = R"doc(
:param rois: Regions ``(r, 4)``, rows ``(y_min, x_min, y_max, x_max)`` in x's scale before
    ``spatial_scale``.
:param roi_indices: int32 ``(r,)``: the batch index of each region, in ``[0, n)`` (``IndexError``
    otherwise).
:param outsize: The output's ``(outh, outw)``, or an int for both.
:param spatial_scale: The factor from the region coordinates to x's pixels (positive).
:param sampling_ratio: Samples per bin along ``(h, w)``: an int, a pair, or None (an entry None
    samples ``ceil(roi size / out size)`` per region).
:returns: A variable of shape ``(r, c, outh, outw)``, differentiable once in x.)doc";

constexpr const char* kRoiMaxAlignDoc =
    R"doc(Spatial Region of Interest (ROI) max align function: the maximum of bilinearly interpolated
samples on a grid in each bin (RoIAlign).

:param x: Input ``(n, c, h, w)`` of a floating-point dtype.)doc";

constexpr const char* kRoiAverageAlignDoc =
    R"doc(Spatial Region of Interest (ROI) average align function: the mean of bilinearly interpolated
samples on a grid in each bin (RoIAlign).

:param x: Input ``(n, c, h, w)`` of a floating-point dtype.)doc";

}  // namespace

void bind_roi(py::module_& f) {
    f.def("roi_pooling_2d", &F::roi_pooling_2d, py::arg("x"), py::arg("rois"), py::arg("outh"), py::arg("outw"),
          py::arg("spatial_scale"), Release(),
          R"doc(Spatial Region of Interest (ROI) pooling function (Chainer's older form): the maximum of each bin.

:param x: Input ``(n, c, h, w)`` of a floating-point dtype.
:param rois: Regions ``(r, 5)``, rows ``(batch_index, x_min, y_min, x_max, y_max)``.
:param outh: Height of the output.
:param outw: Width of the output.
:param spatial_scale: The factor from the region coordinates to x's pixels (positive).
:returns: A variable of shape ``(r, c, outh, outw)`` (0 for an empty bin), differentiable once in x.)doc");
    for (const auto& [name, fn, doc] :
         {std::tuple<const char*, RoiPool, const char*>{"roi_max_pooling_2d", &F::roi_max_pooling_2d,
                                                        kRoiMaxPoolingDoc},
          std::tuple<const char*, RoiPool, const char*>{"roi_average_pooling_2d", &F::roi_average_pooling_2d,
                                                        kRoiAveragePoolingDoc}}) {
        f.def(
            name,
            [fn](const Variable& x, const Variable& rois, const Variable& roi_indices, const Ints& outsize,
                 double spatial_scale) {
                const F::PoolingSize size = to_pooling_size(outsize);
                py::gil_scoped_release release;
                return fn(x, rois, roi_indices, size, spatial_scale);
            },
            py::arg("x"), py::arg("rois"), py::arg("roi_indices"), py::arg("outsize"), py::arg("spatial_scale"),
            (std::string(doc) + kRoiPoolingArgsDoc).c_str());
    }
    for (const auto& [name, fn, doc] :
         {std::tuple<const char*, RoiAlign, const char*>{"roi_max_align_2d", &F::roi_max_align_2d, kRoiMaxAlignDoc},
          std::tuple<const char*, RoiAlign, const char*>{"roi_average_align_2d", &F::roi_average_align_2d,
                                                         kRoiAverageAlignDoc}}) {
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
            py::arg("sampling_ratio") = py::none(), (std::string(doc) + kRoiAlignArgsDoc).c_str());
    }
}

}  // namespace rensa::python::functions_bind
