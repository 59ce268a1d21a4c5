#include "distributed/communicators/grad_packing.h"

#include <algorithm>

#include "core/error.h"
#include "core/ops/elementwise.h"

namespace rensa::distributed {
namespace {

// The elements [offset, offset + size) of a 1-D buffer, viewed in `shape`.
Array slice_of(const Array& buffer, int64_t offset, int64_t size, const Shape& shape) {
    return buffer.index({Slice{offset, offset + size}}).reshape(shape);
}

template <class T>
void scaled_copy(const Array& dst, const Array& src, double scale) {
    auto* out = static_cast<T*>(dst.raw_data());
    const auto* in = static_cast<const T*>(src.raw_data());
    const T s = static_cast<T>(scale);
    const int64_t n = dst.size();
    for (int64_t i = 0; i < n; ++i) out[i] = in[i] * s;
}

// dst = src * scale (cast to dst's dtype); one pass for contiguous float32/float64 on the host.
void write_scaled(const Array& dst, const Array& src, double scale) {
    const bool fast = dst.device() == Device::native() && dst.is_contiguous() && dst.dtype() == src.dtype();
    if (fast && dst.dtype() == Dtype::kFloat32) return scaled_copy<float>(dst, src, scale);
    if (fast && dst.dtype() == Dtype::kFloat64) return scaled_copy<double>(dst, src, scale);
    Array value = scale == 1.0 ? src : ops::multiply(src, Scalar(scale));
    if (!(dst.device() == Device::native())) value = value.to_device(dst.device());
    dst.assign(value);
}

}  // namespace

void GradPacker::layout(const std::vector<Array>& arrays, std::optional<Dtype> as_dtype) {
    std::vector<Dtype> dtypes;
    std::vector<int64_t> sizes;
    slots_.clear();
    for (const Array& a : arrays) {
        RENSA_CHECK(a.defined(), ValueError, "GradPacker.pack: array ", slots_.size(), " is undefined");
        const Dtype dtype = as_dtype.value_or(a.dtype());
        const auto it = std::find(dtypes.begin(), dtypes.end(), dtype);
        const size_t buffer = static_cast<size_t>(it - dtypes.begin());
        if (it == dtypes.end()) {
            dtypes.push_back(dtype);
            sizes.push_back(0);
        }
        slots_.push_back({buffer, sizes[buffer], a.size()});
        sizes[buffer] += a.size();
    }
    if (dtypes == dtypes_ && sizes == buffer_sizes_) return;
    dtypes_ = std::move(dtypes);
    buffer_sizes_ = std::move(sizes);
    buffers_.clear();
    for (size_t i = 0; i < dtypes_.size(); ++i) {
        buffers_.push_back(Array::empty({buffer_sizes_[i]}, dtypes_[i], Device::native()));
    }
}

const std::vector<Array>& GradPacker::pack(const std::vector<Array>& arrays, std::optional<Dtype> as_dtype) {
    layout(arrays, as_dtype);
    for (size_t i = 0; i < arrays.size(); ++i) {
        const Slot& slot = slots_[i];
        const Array dst = slice_of(buffers_[slot.buffer], slot.offset, slot.size, arrays[i].shape());
        const Array& src = arrays[i];
        dst.assign(src.device() == Device::native() ? src : src.to_device(Device::native()));
    }
    return buffers_;
}

void GradPacker::unpack(const std::vector<Array>& arrays, double scale) const {
    RENSA_CHECK(arrays.size() == slots_.size(), ValueError, "GradPacker.unpack: ", arrays.size(),
                " arrays but the last pack had ", slots_.size());
    for (size_t i = 0; i < arrays.size(); ++i) {
        const Slot& slot = slots_[i];
        RENSA_CHECK(arrays[i].size() == slot.size, ValueError, "GradPacker.unpack: array ", i, " has ",
                    arrays[i].size(), " elements but was packed with ", slot.size);
        write_scaled(arrays[i], slice_of(buffers_[slot.buffer], slot.offset, slot.size, arrays[i].shape()), scale);
    }
}

}  // namespace rensa::distributed
