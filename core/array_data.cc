// Array members that move or convert data: copy, astype, fill, assign, to_device.

#include <cstring>

#include "core/array.h"
#include "core/backend.h"
#include "core/error.h"

namespace rensa {
namespace {

Kernels& kernels_of(const Array& a) { return global_context().kernels(a.device()); }

}  // namespace

void check_writeable(const Array& a, std::string_view operation) {
    // A write into memory a queued fused update reads or writes: see Note [Batched fused updates].
    if (a.defined() && a.storage()->pending_update() != 0) [[unlikely]]
        detail::run_pending_updates();
    RENSA_CHECK(a.writeable(), ValueError, operation, ": assignment destination is read-only (an array of shape ",
                a.shape(), " and dtype ", dtype_name(a.dtype()),
                " over read-only memory, such as a numpy array with writeable=False; copy it to write)");
}

Array Array::copy() const { return astype(dtype_, true); }

Array Array::as_contiguous() const { return is_contiguous() ? *this : copy(); }

Array Array::astype(Dtype dtype, bool copy) const {
    if (!copy && dtype == dtype_) return *this;
    Array out = empty(shape_, dtype, device());
    if (size_ > 0) kernels_of(*this).copy(*this, out);
    return out;
}

void Array::fill(Scalar value) const {
    check_writeable(*this, "fill");
    if (size_ > 0) kernels_of(*this).fill(*this, value);
}

void Array::assign(const Array& src) const {
    check_writeable(*this, "assign");
    RENSA_CHECK(src.device() == device(), DeviceError, "assign: source on ", src.device(), " but destination on ",
                device(), "; move it with to_device first");
    Array from = src.broadcast_to(shape_);
    if (from.storage() == storage_) from = from.copy();  // overlapping views: read before writing
    if (size_ > 0) kernels_of(*this).copy(from, *this);
}

Array Array::to_device(Device device) const {
    if (device == this->device()) return *this;
    const Array src = as_contiguous();
    Array out = empty(shape_, dtype_, device);
    if (out.nbytes() == 0) return out;
    const Context& ctx = global_context();
    const Device from = this->device();
    if (from.kind == DeviceKind::kNative) {
        ctx.backend(device).copy_from_host(device.index, out.raw_data(), src.raw_data(), out.nbytes());
    } else if (device.kind == DeviceKind::kNative) {
        ctx.backend(from).copy_to_host(from.index, out.raw_data(), src.raw_data(), out.nbytes());
    } else if (device.kind == from.kind) {
        ctx.backend(from).copy_between(from.index, src.raw_data(), device.index, out.raw_data(), out.nbytes());
    } else {  // two different accelerator kinds: stage through the host
        return src.to_device(Device::native()).to_device(device);
    }
    return out;
}

void Array::copy_to_host(void* dst) const {
    RENSA_ASSERT(is_contiguous());
    if (nbytes() == 0) return;
    const Device d = device();
    if (d.kind == DeviceKind::kNative) {
        std::memcpy(dst, raw_data(), static_cast<size_t>(nbytes()));
    } else {
        global_context().backend(d).copy_to_host(d.index, dst, raw_data(), nbytes());
    }
}

}  // namespace rensa
