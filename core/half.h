#pragma once
// Host types for float16 (IEEE binary16) and bfloat16 (the upper half of a float32).
// Conversions from float round to nearest even; NaN stays NaN; overflow gives Inf.
// Arithmetic goes through float: `Half(a) + Half(b)` is a float.

#include <bit>
#include <cstdint>

namespace rensa {

namespace detail {

constexpr uint16_t float_to_half_bits(float value) {
    const uint32_t f = std::bit_cast<uint32_t>(value);
    const uint32_t sign = (f >> 16) & 0x8000u;
    const uint32_t abs = f & 0x7fffffffu;
    if (abs >= 0x7f800000u) {  // Inf or NaN
        return static_cast<uint16_t>(sign | (abs > 0x7f800000u ? 0x7e00u : 0x7c00u));
    }
    if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to >= 65520: Inf
    if (abs < 0x38800000u) {  // result is subnormal or zero: scale into units of 2^-24
        if (abs < 0x33000000u) return static_cast<uint16_t>(sign);  // < 2^-25: rounds to zero
        const uint32_t exp = abs >> 23;
        const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 126u - exp;  // mant * 2^(exp-150) / 2^-24 = mant >> (126-exp)
        uint32_t result = mant >> shift;
        const uint32_t rem = mant & ((1u << shift) - 1u);
        const uint32_t half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (result & 1u))) ++result;
        return static_cast<uint16_t>(sign | result);
    }
    uint32_t result = ((abs >> 13) - (112u << 10));  // rebias exponent 127 -> 15
    const uint32_t rem = abs & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (result & 1u))) ++result;
    return static_cast<uint16_t>(sign | result);
}

constexpr float half_bits_to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    if (exp == 0x1fu) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
    if (exp == 0) {
        if (mant == 0) return std::bit_cast<float>(sign);
        int e = -1;  // normalise the subnormal
        do {
            ++e;
            mant <<= 1;
        } while ((mant & 0x400u) == 0);
        return std::bit_cast<float>(sign | ((112u - static_cast<uint32_t>(e)) << 23) | ((mant & 0x3ffu) << 13));
    }
    return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (mant << 13));
}

constexpr uint16_t float_to_bfloat16_bits(float value) {
    const uint32_t f = std::bit_cast<uint32_t>(value);
    if ((f & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((f >> 16) | 0x40u);  // quiet NaN
    const uint32_t rounding = 0x7fffu + ((f >> 16) & 1u);
    return static_cast<uint16_t>((f + rounding) >> 16);
}

constexpr float bfloat16_bits_to_float(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

// double -> float rounded to odd: truncate towards zero, then set the last bit when
// inexact. With 24 bits against the 11 (or 8) that follow, rounding this float to
// nearest-even gives the same result as rounding the double directly (no double rounding).
constexpr float double_to_float_round_odd(double value) {
    const auto f = static_cast<float>(value);
    if (value != value || static_cast<double>(f) == value) return f;
    uint32_t bits = std::bit_cast<uint32_t>(f);
    const double af = f < 0 ? -static_cast<double>(f) : static_cast<double>(f);
    const double av = value < 0 ? -value : value;
    if (af > av) --bits;  // rounded away from zero: step back towards zero
    return std::bit_cast<float>(bits | 1u);
}

}  // namespace detail

struct FromBits {};  // tag: construct from raw bits

struct Half {
    uint16_t bits = 0;
    constexpr Half() = default;
    constexpr Half(uint16_t raw, FromBits) : bits(raw) {}
    constexpr Half(float value) : bits(detail::float_to_half_bits(value)) {}  // NOLINT: implicit like float
    constexpr Half(double value)
        : bits(detail::float_to_half_bits(detail::double_to_float_round_odd(value))) {}  // NOLINT
    constexpr operator float() const { return detail::half_bits_to_float(bits); }        // NOLINT
};

struct BFloat16 {
    uint16_t bits = 0;
    constexpr BFloat16() = default;
    constexpr BFloat16(uint16_t raw, FromBits) : bits(raw) {}
    constexpr BFloat16(float value) : bits(detail::float_to_bfloat16_bits(value)) {}  // NOLINT
    constexpr BFloat16(double value)                                                  // NOLINT
        : bits(detail::float_to_bfloat16_bits(detail::double_to_float_round_odd(value))) {}
    constexpr operator float() const { return detail::bfloat16_bits_to_float(bits); }  // NOLINT
};

static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2);

}  // namespace rensa
