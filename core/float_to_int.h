#pragma once
// Float to integer conversion with one defined result for every input, on the CPU and on the
// GPU alike: numpy's astype on x86 (C++ leaves out-of-range conversions undefined; x86
// answers "integer indefinite", CUDA saturates).
//
// To int32 / int64: truncation toward zero when the value is in range, else (NaN, infinities,
// out of range) the type's minimum. To int8 / uint8: the int32 result, wrapped to 8 bits.
// So float32 3e9 gives int32 -2147483648, int64 3000000000 and uint8 0; 300.0 gives int8 44;
// -1.0 gives uint8 255; NaN gives 0 for 8 bits and the minimum otherwise.

#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/host_device.h"

namespace rensa {

template <class To, class From>
RENSA_HOST_DEVICE constexpr To float_to_int(From v) {
    static_assert(std::is_integral_v<To> && !std::is_same_v<To, bool> && std::is_floating_point_v<From>);
    if constexpr (sizeof(To) < sizeof(int32_t)) {
        return static_cast<To>(float_to_int<int32_t>(v));  // modulo 2^bits (C++20)
    } else {
        static_assert(std::is_signed_v<To>, "float_to_int: no unsigned 32/64-bit dtype");
        // -2^(bits-1) and 2^(bits-1) are exact in float and double.
        constexpr To minimum = std::numeric_limits<To>::min();
        constexpr From low = static_cast<From>(minimum);
        constexpr From high = -low;
        if (!(v >= low && v < high)) return minimum;  // NaN fails both
        return static_cast<To>(v);
    }
}

}  // namespace rensa
