#pragma once
// Template members of Array (included by core/array.h only).

#include <concepts>
#include <type_traits>

namespace rensa {

template <class T>
constexpr Dtype dtype_of() {
    if constexpr (std::same_as<T, bool>)
        return Dtype::kBool;
    else if constexpr (std::same_as<T, int8_t>)
        return Dtype::kInt8;
    else if constexpr (std::same_as<T, uint8_t>)
        return Dtype::kUInt8;
    else if constexpr (std::same_as<T, int32_t>)
        return Dtype::kInt32;
    else if constexpr (std::same_as<T, int64_t>)
        return Dtype::kInt64;
    else if constexpr (std::same_as<T, Half>)
        return Dtype::kFloat16;
    else if constexpr (std::same_as<T, BFloat16>)
        return Dtype::kBFloat16;
    else if constexpr (std::same_as<T, float>)
        return Dtype::kFloat32;
    else if constexpr (std::same_as<T, double>)
        return Dtype::kFloat64;
    else
        static_assert(sizeof(T) == 0, "dtype_of: no rensa dtype stores this type");
}

template <class T>
Array Array::from_vector(const std::vector<T>& values, const Shape& shape, Device device) {
    RENSA_CHECK(static_cast<int64_t>(values.size()) == shape_size(shape), DimensionError,
                "from_vector: ", values.size(), " values do not fill shape ", shape);
    if constexpr (std::same_as<T, bool>) {  // std::vector<bool> is packed
        std::vector<uint8_t> bytes(values.begin(), values.end());
        return from_host(bytes.data(), shape, Dtype::kBool, device);
    } else {
        return from_host(values.data(), shape, dtype_of<T>(), device);
    }
}

template <class T>
std::vector<T> Array::to_vector() const {
    const Array host = astype(dtype_of<T>(), false).to_device(Device::native()).as_contiguous();
    std::vector<T> out(static_cast<size_t>(size_));
    if constexpr (std::same_as<T, bool>) {
        const auto* p = static_cast<const uint8_t*>(host.raw_data());
        for (int64_t i = 0; i < size_; ++i) out[static_cast<size_t>(i)] = p[i] != 0;
    } else if (size_ > 0) {
        host.copy_to_host(out.data());
    }
    return out;
}

template <class T>
T Array::item() const {
    RENSA_CHECK(size_ == 1, ValueError, "item: only an array of size 1 has an item, got shape ", shape_);
    if constexpr (std::same_as<T, bool>) {
        return to_vector<bool>()[0];
    } else {
        return to_vector<T>()[0];
    }
}

}  // namespace rensa
