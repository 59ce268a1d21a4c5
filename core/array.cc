#include "core/array.h"

#include <algorithm>
#include <cstring>

#include "core/backend.h"
#include "core/error.h"

namespace rensa {

Array::Array(std::shared_ptr<Storage> storage, Shape shape, Strides strides, int64_t offset, Dtype dtype)
    : storage_{std::move(storage)},
      shape_{shape},
      strides_{strides},
      offset_{offset},
      size_{shape_size(shape)},
      dtype_{dtype} {
    RENSA_ASSERT(shape_.size() == strides_.size());
}

Array Array::empty(const Shape& shape, Dtype dtype, Device device) {
    const int64_t size = shape_size(shape);
    int64_t bytes = 0;
    RENSA_CHECK(!__builtin_mul_overflow(size, rensa::itemsize(dtype), &bytes), ValueError, "empty: shape ", shape,
                " of ", dtype, " needs more bytes than int64 can count");
    auto storage = global_context().allocator(device).allocate(bytes);
    return Array(std::move(storage), shape, contiguous_strides(shape, rensa::itemsize(dtype)), 0, dtype);
}

Array Array::from_host(const void* data, const Shape& shape, Dtype dtype, Device device) {
    Array out = empty(shape, dtype, device);
    if (out.nbytes() == 0) return out;
    if (device.kind == DeviceKind::kNative) {
        std::memcpy(out.raw_data(), data, static_cast<size_t>(out.nbytes()));
    } else {
        global_context().backend(device).copy_from_host(device.index, out.raw_data(), data, out.nbytes());
    }
    return out;
}

Device Array::device() const { return storage_ ? storage_->device() : Device::native(); }

void* Array::raw_data() const {
    RENSA_CHECK(defined(), ValueError, "array: this array is undefined (holds no data)");
    // See Note [Batched fused updates] in core/ops/fused_update.h.
    if (storage_->pending_update() & Storage::kPendingWrite) [[unlikely]]
        detail::run_pending_updates();
    return static_cast<char*>(storage_->data()) + offset_;
}

bool Array::is_contiguous() const {
    if (size_ == 0) return true;
    int64_t expected = itemsize();
    for (int i = ndim() - 1; i >= 0; --i) {
        if (shape_[i] != 1 && strides_[i] != expected) return false;
        expected *= shape_[i];
    }
    return true;
}

namespace {

Shape infer_shape(const Shape& requested, int64_t size, const Shape& from) {
    Shape shape = requested;
    int infer_at = -1;
    int64_t known = 1;
    for (int i = 0; i < shape.size(); ++i) {
        if (shape[i] == -1) {
            RENSA_CHECK(infer_at < 0, ValueError, "reshape: can only specify one unknown dimension in ", requested);
            infer_at = i;
        } else {
            RENSA_CHECK(shape[i] >= 0, ValueError, "reshape: negative dimension in ", requested);
            known *= shape[i];
        }
    }
    if (infer_at >= 0) {
        RENSA_CHECK(known != 0 && size % known == 0, DimensionError, "reshape: cannot reshape array of size ", size,
                    " (shape ", from, ") into shape ", requested);
        shape[infer_at] = size / known;
    }
    RENSA_CHECK(shape_size(shape) == size, DimensionError, "reshape: cannot reshape array of size ", size, " (shape ",
                from, ") into shape ", requested);
    return shape;
}

// Strides that view the old layout with the new shape, or nothing when a copy is
// needed (numpy's attempt_nocopy_reshape: match groups of old and new dims).
std::optional<Strides> reshape_strides(const Shape& old_shape, const Strides& old_strides, const Shape& new_shape) {
    Shape os;
    Strides ost;
    for (int i = 0; i < old_shape.size(); ++i) {
        if (old_shape[i] != 1) {
            os.push_back(old_shape[i]);
            ost.push_back(old_strides[i]);
        }
    }
    Strides out(new_shape.size(), 0);
    int oi = 0, oj = 1, ni = 0, nj = 1;
    const int on = os.size(), nn = new_shape.size();
    while (ni < nn && oi < on) {
        int64_t np = new_shape[ni], op = os[oi];
        while (np != op) {
            if (np < op)
                np *= new_shape[nj++];
            else
                op *= os[oj++];
        }
        for (int k = oi; k < oj - 1; ++k) {
            if (ost[k] != os[k + 1] * ost[k + 1]) return std::nullopt;
        }
        out[nj - 1] = ost[oj - 1];
        for (int k = nj - 1; k > ni; --k) out[k - 1] = out[k] * new_shape[k];
        ni = nj++;
        oi = oj++;
    }
    // Trailing new dims of length 1.
    int64_t last = ni > 0 ? out[ni - 1] : 1;
    for (int k = ni; k < nn; ++k) out[k] = last;
    return out;
}

}  // namespace

Array Array::reshape(const Shape& shape) const {
    const Shape target = infer_shape(shape, size_, shape_);
    if (size_ == 0 || is_contiguous()) {
        return Array(storage_, target, contiguous_strides(target, itemsize()), offset_, dtype_);
    }
    if (auto strides = reshape_strides(shape_, strides_, target)) {
        return Array(storage_, target, *strides, offset_, dtype_);
    }
    return copy().reshape(target);
}

Array Array::transpose() const {
    Axes axes;
    for (int i = ndim() - 1; i >= 0; --i) axes.push_back(i);
    return transpose(axes);
}

Array Array::transpose(const Axes& axes) const {
    RENSA_CHECK(axes.size() == ndim(), DimensionError, "transpose: axes ", axes, " do not match an array of shape ",
                shape_);
    const Axes perm = normalize_axes(axes, ndim(), "transpose");
    Shape shape;
    Strides strides;
    for (int a : perm) {
        shape.push_back(shape_[a]);
        strides.push_back(strides_[a]);
    }
    return Array(storage_, shape, strides, offset_, dtype_);
}

Array Array::swapaxes(int axis1, int axis2) const {
    Axes perm = all_axes(ndim());
    std::swap(perm[normalize_axis(axis1, ndim(), "swapaxes")], perm[normalize_axis(axis2, ndim(), "swapaxes")]);
    return transpose(perm);
}

Array Array::squeeze() const {
    Axes axes;
    for (int i = 0; i < ndim(); ++i) {
        if (shape_[i] == 1) axes.push_back(i);
    }
    return squeeze(axes);
}

Array Array::squeeze(const Axes& axes) const {
    const Axes normalized = normalize_axes(axes, ndim(), "squeeze");
    bool drop[kMaxNdim] = {};
    for (int a : normalized) {
        RENSA_CHECK(shape_[a] == 1, DimensionError, "squeeze: cannot select axis ", a, " of length ", shape_[a],
                    " in shape ", shape_, "; only axes of length 1 can be squeezed");
        drop[a] = true;
    }
    Shape shape;
    Strides strides;
    for (int i = 0; i < ndim(); ++i) {
        if (!drop[i]) {
            shape.push_back(shape_[i]);
            strides.push_back(strides_[i]);
        }
    }
    return Array(storage_, shape, strides, offset_, dtype_);
}

Array Array::expand_dims(int axis) const {
    const int a = normalize_axis(axis, ndim() + 1, "expand_dims");
    Shape shape = shape_;
    Strides strides = strides_;
    shape.insert(a, 1);
    strides.insert(a, a < ndim() ? strides_[a] * shape_[a] : itemsize());
    return Array(storage_, shape, strides, offset_, dtype_);
}

Array Array::broadcast_to(const Shape& shape) const {
    RENSA_CHECK(shape.size() >= ndim(), DimensionError, "broadcast_to: cannot broadcast shape ", shape_, " to ", shape,
                " (fewer dimensions)");
    const int lead = shape.size() - ndim();
    Strides strides(shape.size(), 0);
    for (int i = 0; i < ndim(); ++i) {
        const int64_t target = shape[lead + i];
        RENSA_CHECK(shape_[i] == target || shape_[i] == 1, DimensionError, "broadcast_to: cannot broadcast shape ",
                    shape_, " to ", shape);
        strides[lead + i] = shape_[i] == target ? strides_[i] : 0;
    }
    shape_size(shape);  // rejects negative dims
    return Array(storage_, shape, strides, offset_, dtype_);
}

}  // namespace rensa
