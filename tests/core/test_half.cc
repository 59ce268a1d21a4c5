// float16 and bfloat16 host conversions: exhaustive round trips, and float -> 16-bit
// rounding checked against an independent round-to-nearest-even reference.

#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/array.h"
#include "core/half.h"

using namespace rensa;

namespace {

float from_bits(uint32_t bits) { return std::bit_cast<float>(bits); }
bool half_is_nan(uint16_t bits) { return (bits & 0x7c00u) == 0x7c00u && (bits & 0x03ffu) != 0; }
bool bfloat16_is_nan(uint16_t bits) { return (bits & 0x7f80u) == 0x7f80u && (bits & 0x007fu) != 0; }

// |value| of a non-negative float16 bit pattern up to 0x7c00, which stands for 2^16: the
// next step after 65504, so that rounding to it means overflow to infinity.
double half_magnitude(uint16_t bits) {
    const int exp = bits >> 10;
    const int mant = bits & 0x3ff;
    return exp == 0 ? std::ldexp(mant, -24) : std::ldexp(1024 + mant, exp - 25);
}

// Round to nearest even by search over the finite magnitudes; exact in double.
uint16_t reference_half_bits(float f) {
    const double a = std::abs(static_cast<double>(f));
    uint16_t lo = 0, hi = 0x7c00;  // invariant: magnitude(lo) <= a < magnitude(hi), or a >= 2^16
    if (a >= half_magnitude(0x7c00)) return static_cast<uint16_t>((std::signbit(f) ? 0x8000u : 0u) | 0x7c00u);
    while (hi - lo > 1) {
        const auto mid = static_cast<uint16_t>((lo + hi) / 2);
        (half_magnitude(mid) <= a ? lo : hi) = mid;
    }
    const double below = a - half_magnitude(lo), above = half_magnitude(hi) - a;
    const uint16_t mag = below < above ? lo : above < below ? hi : ((lo & 1u) == 0 ? lo : hi);
    return static_cast<uint16_t>((std::signbit(f) ? 0x8000u : 0u) | mag);
}

// Round to nearest even between the two bfloat16 neighbours (truncation and one up).
uint16_t reference_bfloat16_bits(float f) {
    const uint32_t bits = std::bit_cast<uint32_t>(f);
    if (std::isinf(f)) return static_cast<uint16_t>(bits >> 16);
    const uint32_t lo = bits & 0xffff0000u;
    const auto mag = [](uint32_t b) {  // 0x7f80.... (inf) stands for 2^128 here, like 2^16 above
        return (b & 0x7fffffffu) == 0x7f800000u ? std::ldexp(1.0, 128) : std::abs(double{from_bits(b)});
    };
    const double a = std::abs(static_cast<double>(f));
    const uint32_t hi = lo + 0x10000u;
    const double below = a - mag(lo), above = mag(hi) - a;
    const uint32_t pick = below < above ? lo : above < below ? hi : ((lo & 0x10000u) == 0 ? lo : hi);
    return static_cast<uint16_t>(pick >> 16);
}

}  // namespace

TEST_CASE("half: every float16 bit pattern survives a round trip through float", "[half]") {
    int mismatches = 0;
    uint32_t first_bad = 0;
    for (uint32_t bits = 0; bits <= 0xffffu; ++bits) {
        const Half h(static_cast<uint16_t>(bits), FromBits{});
        const float f = h;
        const auto magnitude = static_cast<uint16_t>(h.bits & 0x7fffu);
        const double expected = magnitude == 0x7c00u ? INFINITY : half_magnitude(magnitude);
        const bool ok = half_is_nan(h.bits) ? std::isnan(f) && half_is_nan(Half(f).bits)
                                            : Half(f).bits == h.bits && std::abs(double{f}) == expected;
        if (!ok && mismatches++ == 0) first_bad = bits;
    }
    CAPTURE(first_bad);
    CHECK(mismatches == 0);
}

TEST_CASE("half: every bfloat16 bit pattern survives a round trip through float", "[half]") {
    int mismatches = 0;
    uint32_t first_bad = 0;
    for (uint32_t bits = 0; bits <= 0xffffu; ++bits) {
        const BFloat16 b(static_cast<uint16_t>(bits), FromBits{});
        const float f = b;
        const bool same_bits = BFloat16(f).bits == b.bits && std::bit_cast<uint32_t>(f) == bits << 16;
        const bool ok = bfloat16_is_nan(b.bits) ? std::isnan(f) && bfloat16_is_nan(BFloat16(f).bits) : same_bits;
        if (!ok && mismatches++ == 0) first_bad = bits;
    }
    CAPTURE(first_bad);
    CHECK(mismatches == 0);
}

TEST_CASE("half: float16 ties round to even", "[half]") {
    CHECK(Half(1.0f + 0x1p-11f).bits == 0x3c00u);             // halfway to 1 + 2^-10: stays at even 1.0
    CHECK(Half(1.0f + 3 * 0x1p-11f).bits == 0x3c02u);         // halfway between odd and even: up to 1 + 2^-9
    CHECK(Half(1.0f + 0x1p-11f + 0x1p-20f).bits == 0x3c01u);  // just above the tie
    CHECK(Half(-(1.0f + 0x1p-11f)).bits == 0xbc00u);
    CHECK(Half(2049.0f).bits == Half(2048.0f).bits);  // integers above 2048 step by 2
    CHECK(Half(2051.0f).bits == Half(2052.0f).bits);
}

TEST_CASE("half: float16 overflow, infinities and NaN", "[half]") {
    CHECK(Half(65504.0f).bits == 0x7bffu);
    CHECK(Half(std::nextafter(65520.0f, 0.0f)).bits == 0x7bffu);
    CHECK(Half(65520.0f).bits == 0x7c00u);  // the tie between 65504 and 2^16 rounds to "even": inf
    CHECK(Half(-65520.0f).bits == 0xfc00u);
    CHECK(Half(1e10f).bits == 0x7c00u);
    CHECK(Half(std::numeric_limits<float>::infinity()).bits == 0x7c00u);
    CHECK(Half(-std::numeric_limits<float>::infinity()).bits == 0xfc00u);
    CHECK(half_is_nan(Half(std::numeric_limits<float>::quiet_NaN()).bits));
    CHECK(half_is_nan(Half(from_bits(0x7f800001u)).bits));  // a NaN with only low payload bits stays NaN
    CHECK(std::isinf(static_cast<float>(Half(uint16_t{0x7c00u}, FromBits{}))));
}

TEST_CASE("half: float16 subnormals", "[half]") {
    CHECK(Half(0x1p-24f).bits == 0x0001u);                        // smallest subnormal
    CHECK(Half(0x1p-25f).bits == 0x0000u);                        // tie with zero: even
    CHECK(Half(std::nextafter(0x1p-25f, 1.0f)).bits == 0x0001u);  // above the tie
    CHECK(Half(3 * 0x1p-25f).bits == 0x0002u);                    // 1.5 units: tie, up to even 2
    CHECK(Half(5 * 0x1p-25f).bits == 0x0002u);                    // 2.5 units: tie, down to even 2
    CHECK(Half(0x1p-26f).bits == 0x0000u);
    CHECK(Half(1023 * 0x1p-24f).bits == 0x03ffu);     // largest subnormal
    CHECK(Half(1023.5f * 0x1p-24f).bits == 0x0400u);  // rounds into the smallest normal
    CHECK(Half(0x1p-14f).bits == 0x0400u);
    CHECK(Half(-0x1p-24f).bits == 0x8001u);
    CHECK(Half(-0.0f).bits == 0x8000u);
    CHECK(static_cast<float>(Half(uint16_t{0x0001u}, FromBits{})) == 0x1p-24f);
    CHECK(static_cast<float>(Half(uint16_t{0x03ffu}, FromBits{})) == 1023 * 0x1p-24f);
}

TEST_CASE("half: float to float16 matches round-to-nearest-even on sampled and tie inputs", "[half]") {
    int mismatches = 0;
    uint32_t first_bad = 0;
    auto check = [&](float f) {
        if (std::isnan(f)) return;
        if (Half(f).bits != reference_half_bits(f) && mismatches++ == 0) first_bad = std::bit_cast<uint32_t>(f);
    };
    for (uint64_t bits = 0; bits <= 0xffffffffu; bits += 4093) check(from_bits(static_cast<uint32_t>(bits)));
    for (uint16_t h = 0; h < 0x7c00u; ++h) {  // each midpoint between neighbours, and a float step either side
        const float mid = static_cast<float>((half_magnitude(h) + half_magnitude(static_cast<uint16_t>(h + 1))) / 2);
        for (float f : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f)}) {
            check(f);
            check(-f);
        }
    }
    CAPTURE(first_bad);
    CHECK(mismatches == 0);
}

TEST_CASE("half: float to bfloat16 matches round-to-nearest-even", "[half]") {
    CHECK(BFloat16(1.0f + 0x1p-8f).bits == 0x3f80u);      // tie: stays at even 1.0
    CHECK(BFloat16(1.0f + 3 * 0x1p-8f).bits == 0x3f82u);  // tie: up to even
    CHECK(BFloat16(1.0f + 0x1p-8f + 0x1p-20f).bits == 0x3f81u);
    CHECK(BFloat16(from_bits(0x7f7f8000u)).bits == 0x7f80u);  // tie above the largest finite: inf
    CHECK(BFloat16(std::numeric_limits<float>::max()).bits == 0x7f80u);
    CHECK(BFloat16(-std::numeric_limits<float>::infinity()).bits == 0xff80u);
    CHECK(BFloat16(from_bits(0x7f7f7fffu)).bits == 0x7f7fu);
    CHECK(BFloat16(from_bits(0x00008000u)).bits == 0x0000u);        // subnormal tie: even zero
    CHECK(BFloat16(from_bits(0x00018000u)).bits == 0x0002u);        // subnormal tie: up to even
    CHECK(bfloat16_is_nan(BFloat16(from_bits(0x7f800001u)).bits));  // must not become inf
    CHECK(bfloat16_is_nan(BFloat16(from_bits(0xffc00000u)).bits));
    int mismatches = 0;
    uint32_t first_bad = 0;
    for (uint64_t bits = 0; bits <= 0xffffffffu; bits += 997) {
        const float f = from_bits(static_cast<uint32_t>(bits));
        if (std::isnan(f)) continue;
        const bool ok = BFloat16(f).bits == reference_bfloat16_bits(f);
        if (!ok && mismatches++ == 0) first_bad = static_cast<uint32_t>(bits);
    }
    CAPTURE(first_bad);
    CHECK(mismatches == 0);
}

TEST_CASE("half: conversions are constexpr and arithmetic goes through float", "[half]") {
    static_assert(Half(1.0f).bits == 0x3c00u);
    static_assert(BFloat16(1.0f).bits == 0x3f80u);
    static_assert(static_cast<float>(Half(uint16_t{0xc000u}, FromBits{})) == -2.0f);
    CHECK(Half(1.5f) + Half(0.25f) == 1.75f);
    CHECK(Half(0.1).bits == Half(0.1f).bits);
    CHECK(BFloat16(3.0).bits == 0x4040u);
}

TEST_CASE("double to float16/bfloat16 rounds once, not through float", "[half]") {
    // 1 + 2^-11 is the float16 tie between 1 and 1 + 2^-10; the extra 2^-40 puts the
    // double above it, which a float intermediate would lose.
    CHECK(rensa::Half(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)).bits == 0x3c01);
    CHECK(rensa::Half(1.0 + std::ldexp(1.0, -11)).bits == 0x3c00);
    CHECK(rensa::BFloat16(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)).bits == 0x3f81);
    CHECK(rensa::BFloat16(1.0 + std::ldexp(1.0, -8)).bits == 0x3f80);
    CHECK(rensa::Half(1e300).bits == 0x7c00);
    CHECK(rensa::Half(-1e300).bits == 0xfc00);
    const rensa::Array a = rensa::Array::from_vector<double>({1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)}, {1});
    CHECK(a.astype(rensa::Dtype::kFloat16).to_vector<rensa::Half>()[0].bits == 0x3c01);
}
