#pragma once
// Region-of-interest pooling of x (n, c, h, w) over rois, and its backward (the contract and
// the modes are in core/kernels.h, the geometry in core/roi_geometry.h). Every message
// starts with `op`, the caller's (Chainer's) function name.

#include <cstdint>
#include <string_view>

#include "core/array.h"
#include "core/kernels.h"

namespace rensa::ops {

struct RoiParams {
    RoiMode mode = RoiMode::kMax;
    int64_t out_h = 1, out_w = 1;
    double spatial_scale = 1.0;
    int64_t sampling_h = 0, sampling_w = 0;  // align modes: samples per bin; 0 = adaptive
};

struct RoiPoolResult {
    Array y;            // x's dtype, (r, c, out_h, out_w)
    Array indices;      // max modes: int64 of y's shape (see RoiPoolArgs); else undefined
    Array roi_indices;  // int32 (r,): the batch index of every roi, as the kernels read it
};

// Checks the arguments and pools. x is floating and 4-d; rois (r, 4) (kLegacyMax: (r, 5),
// the batch index in column 0, truncated like Chainer's int()) floating (Chainer asks for
// x's dtype; any float dtype is read exactly here, in float64); roi_indices
// int32 (r,) (ignored for kLegacyMax). DtypeError, DimensionError, IndexError for a batch
// index outside [0, n), ValueError for out sizes, spatial_scale or sampling below their minimum.
[[nodiscard]] RoiPoolResult roi_pool(const Array& x, const Array& rois, const Array& roi_indices,
                                     const RoiParams& params, std::string_view op);

// gx (x_shape, gy's dtype) from gy (r, c, out_h, out_w); rois, roi_indices and indices are
// roi_pool's (its result's roi_indices).
[[nodiscard]] Array roi_pool_backward(const Array& gy, const Array& rois, const Array& roi_indices,
                                      const Array& indices, const Shape& x_shape, const RoiParams& params,
                                      std::string_view op);

}  // namespace rensa::ops
