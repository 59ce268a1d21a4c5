#include "core/ops/roi.h"

#include <vector>

#include "core/backend.h"
#include "core/error.h"
#include "core/ops/creation.h"
#include "core/roi_geometry.h"

namespace rensa::ops {
namespace {

void check_params(const RoiParams& p, std::string_view op) {
    RENSA_CHECK(p.out_h > 0 && p.out_w > 0, ValueError, op, ": Expect: outsize > 0, Actual: (", p.out_h, ", ", p.out_w,
                ")");
    RENSA_CHECK(p.spatial_scale > 0, ValueError, op, ": Expect: spatial_scale > 0, Actual: ", p.spatial_scale);
    RENSA_CHECK(p.sampling_h >= 0 && p.sampling_w >= 0, ValueError, op,
                ": Expect: sampling_ratio >= 1 or None, Actual: (", p.sampling_h, ", ", p.sampling_w, ")");
}

void check_device(const Array& x, const Array& a, std::string_view name, std::string_view op) {
    RENSA_CHECK(a.device() == x.device(), DeviceError, op, ": x is on ", x.device(), " but ", name, " is on ",
                a.device(), "; move them to one device with to_device");
}

void check_rois(const Array& x, const Array& rois, const RoiParams& p, std::string_view op) {
    RENSA_CHECK(is_float(x.dtype()), DtypeError, op, ": Expect: x.dtype.kind == 'f', Actual: ", x.dtype());
    RENSA_CHECK(x.ndim() == 4, DimensionError, op, ": Expect: x.ndim == 4, Actual: ", x.ndim());
    RENSA_CHECK(is_float(rois.dtype()), DtypeError, op, ": Expect: rois.dtype.kind == 'f', Actual: ", rois.dtype());
    const int64_t k = roi_row_size(p.mode);
    RENSA_CHECK(rois.ndim() == 2 && rois.shape()[1] == k, DimensionError, op, ": Expect: rois.shape == (R, ", k,
                "), Actual: ", rois.shape());
    check_device(x, rois, "rois", op);
}

// The batch index of every roi as contiguous int32 on x's device, checked to lie in
// [0, n). Note [ROI index check]: the check reads the (r,) indices to the host, one small
// copy per call: Chainer reads out of bounds on the GPU (and wraps negatives on the CPU),
// we raise IndexError instead. roi_pooling_2d's float batch column is truncated on the
// device first.
Array batch_indices(const Array& x, const Array& rois, const Array& roi_indices, const RoiParams& p,
                    std::string_view op) {
    Array idx;
    if (p.mode == RoiMode::kLegacyMax) {
        idx = rois.index({Slice{}, int64_t{0}}).astype(Dtype::kInt32);
    } else {
        RENSA_CHECK(roi_indices.dtype() == Dtype::kInt32, DtypeError, op,
                    ": Expect: roi_indices.dtype == int32, Actual: ", roi_indices.dtype());
        RENSA_CHECK(roi_indices.ndim() == 1, DimensionError, op,
                    ": Expect: roi_indices.ndim == 1, Actual: ", roi_indices.ndim());
        RENSA_CHECK(roi_indices.shape()[0] == rois.shape()[0], DimensionError, op,
                    ": Expect: rois.shape[0] == roi_indices.shape[0], Actual: ", rois.shape()[0],
                    " != ", roi_indices.shape()[0]);
        check_device(x, roi_indices, "roi_indices", op);
        idx = roi_indices.as_contiguous();
    }
    const std::vector<int64_t> values = idx.to_vector<int64_t>();
    for (size_t r = 0; r < values.size(); ++r) {
        RENSA_CHECK(values[r] >= 0 && values[r] < x.shape()[0], IndexError, op, ": roi ", r, " has batch index ",
                    values[r], ", out of bounds for x of shape ", x.shape());
    }
    return idx;
}

bool has_indices(RoiMode mode) {
    return mode == RoiMode::kLegacyMax || mode == RoiMode::kMax || mode == RoiMode::kMaxAlign;
}

}  // namespace

RoiPoolResult roi_pool(const Array& x, const Array& rois, const Array& roi_indices, const RoiParams& params,
                       std::string_view op) {
    check_params(params, op);
    check_rois(x, rois, params, op);
    RoiPoolResult r;
    r.roi_indices = batch_indices(x, rois, roi_indices, params, op);
    const Shape y_shape{rois.shape()[0], x.shape()[1], params.out_h, params.out_w};
    r.y = Array::empty(y_shape, x.dtype(), x.device());
    if (has_indices(params.mode)) r.indices = Array::empty(y_shape, Dtype::kInt64, x.device());
    if (r.y.size() == 0) return r;
    global_context()
        .kernels(x.device())
        .roi_pool({.mode = params.mode,
                   .x = x.as_contiguous(),
                   .rois = rois.astype(Dtype::kFloat64, false).as_contiguous(),
                   .roi_indices = r.roi_indices,
                   .spatial_scale = params.spatial_scale,
                   .sampling_h = params.sampling_h,
                   .sampling_w = params.sampling_w,
                   .y = r.y,
                   .indices = r.indices});
    return r;
}

Array roi_pool_backward(const Array& gy, const Array& rois, const Array& roi_indices, const Array& indices,
                        const Shape& x_shape, const RoiParams& params, std::string_view op) {
    const Shape y_shape{rois.shape()[0], x_shape[1], params.out_h, params.out_w};
    RENSA_CHECK(gy.shape() == y_shape, DimensionError, op, ": Expect: gy.shape == ", y_shape, ", Actual: ", gy.shape());
    RENSA_CHECK(is_float(gy.dtype()), DtypeError, op, ": Expect: gy.dtype.kind == 'f', Actual: ", gy.dtype());
    const Dtype acc = gy.dtype() == Dtype::kFloat64 ? Dtype::kFloat64 : Dtype::kFloat32;
    Array gx = zeros(x_shape, acc, gy.device());
    if (gy.size() > 0 && gx.size() > 0) {
        global_context()
            .kernels(gy.device())
            .roi_pool_backward({.mode = params.mode,
                                .gy = gy.as_contiguous(),
                                .rois = rois.astype(Dtype::kFloat64, false).as_contiguous(),
                                .roi_indices = roi_indices,
                                .indices = indices,
                                .spatial_scale = params.spatial_scale,
                                .sampling_h = params.sampling_h,
                                .sampling_w = params.sampling_w,
                                .gx_acc = gx});
    }
    return gx.astype(gy.dtype(), false);
}

}  // namespace rensa::ops
