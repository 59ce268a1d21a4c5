#include "distributed/communicators/detail/array_codec.h"

#include <cstring>

#include "core/error.h"

namespace rensa::distributed::detail {

ArrayHeader make_header(const Array& x, const char* op) {
    ArrayHeader header{};
    if (!x.defined()) {
        header[1] = -1;
        return header;
    }
    RENSA_CHECK(x.ndim() <= kMaxHeaderDims, DimensionError, op, ": arrays of ", x.ndim(),
                " dimensions are not supported (at most ", kMaxHeaderDims, ")");
    header[0] = static_cast<int64_t>(x.dtype());
    header[1] = x.ndim();
    for (int i = 0; i < x.ndim(); ++i) header[2 + i] = x.shape()[i];
    return header;
}

Array empty_from_header(const ArrayHeader& header) {
    Shape shape;
    for (int64_t i = 0; i < header[1]; ++i) shape.push_back(header[2 + i]);
    return Array::empty(shape, static_cast<Dtype>(header[0]), Device::native());
}

Array host_copy(const Array& x) {
    return x.device() == Device::native() ? x.copy() : x.to_device(Device::native()).as_contiguous();
}

Array host_contiguous(const Array& x) {
    return x.device() == Device::native() ? x.as_contiguous() : x.to_device(Device::native()).as_contiguous();
}

std::string encode_array(const Array& x, const char* op) {
    RENSA_CHECK(x.defined(), ValueError, op, ": the array is undefined");
    const ArrayHeader header = make_header(x, op);
    const Array data = host_contiguous(x);
    const size_t header_bytes = sizeof(int64_t) * static_cast<size_t>(2 + x.ndim());
    std::string bytes(header_bytes + static_cast<size_t>(data.nbytes()), '\0');
    std::memcpy(bytes.data(), header.data(), header_bytes);
    if (data.nbytes() > 0)
        std::memcpy(bytes.data() + header_bytes, data.raw_data(), static_cast<size_t>(data.nbytes()));
    return bytes;
}

Array decode_array(const std::string& bytes) {
    ArrayHeader header{};
    std::memcpy(header.data(), bytes.data(), 2 * sizeof(int64_t));
    const size_t header_bytes = sizeof(int64_t) * static_cast<size_t>(2 + header[1]);
    std::memcpy(header.data() + 2, bytes.data() + 2 * sizeof(int64_t), header_bytes - 2 * sizeof(int64_t));
    Array out = empty_from_header(header);
    RENSA_ASSERT(static_cast<int64_t>(bytes.size()) == static_cast<int64_t>(header_bytes) + out.nbytes());
    if (out.nbytes() > 0) std::memcpy(out.raw_data(), bytes.data() + header_bytes, static_cast<size_t>(out.nbytes()));
    return out;
}

}  // namespace rensa::distributed::detail
