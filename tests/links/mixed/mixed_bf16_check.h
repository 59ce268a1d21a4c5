#pragma once
// Shared by the mixed_bf16 tests: the config scope, copying bfloat16-rounded parameters into
// a float32 model and its mixed_bf16 twin, and the comparison of Note [Mixed precision
// tolerances] (tests/links/mixed/test_mixed_bf16.cc).

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "autograd/modes.h"
#include "links/link.h"
#include "tests/testing/testing.h"

namespace rensa::testing {

// config.dtype = mixed_bf16 for the scope.
struct MixedBF16Scope {
    ConfigScope<Dtype> dtype{&Config::dtype, Dtype::kBFloat16};
    ConfigScope<bool> mixed{&Config::mixed16, true};
};

// `a` rounded to bfloat16, as float32.
inline Array bf16_rounded(const Array& a) { return a.astype(Dtype::kBFloat16).astype(Dtype::kFloat32); }

// Gives both links the same parameters: the float32 link's, rounded to bfloat16 (the mixed
// link keeps each in its own dtype: bfloat16 weights, float32 normalisation parameters).
inline void share_rounded_params(const links::Link& f32, const links::Link& mixed) {
    const auto a = f32.namedparams();
    const auto b = mixed.namedparams();
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        REQUIRE(a[i].first == b[i].first);
        const Array r = bf16_rounded(a[i].second.array());
        a[i].second.array().assign(r);
        b[i].second.array().assign(r.astype(b[i].second.dtype()));
    }
}

// bfloat16's unit roundoff, 2^-8 (8 significant bits).
inline constexpr double kBF16Roundoff = 1.0 / 256;

// Note [Mixed precision tolerances]: a mixed_bf16 result is compared with the float32 result
// of the same (bfloat16-rounded) parameters and inputs. Each rounding to bfloat16 of an
// intermediate (a layer's output, a grad on its way back) adds a relative error up to u =
// 2^-8, and sums accumulate in float32, so their rounding errors are relative to the sum of
// the magnitudes, not to each element: the rule is max|mixed - f32| <= k * u * max|f32| over
// the whole array, with k = 4 for forwards (one or two roundings) and k = 8 for grads (the
// output grad, the products and the result rounded). Normalisations divide by a standard
// deviation computed in float32 and pass the same rule.
inline void check_close_bf16(const Array& mixed, const Array& f32, double k, const std::string& what) {
    REQUIRE(mixed.defined());
    REQUIRE(f32.defined());
    REQUIRE(mixed.shape() == f32.shape());
    const std::vector<double> m = to_doubles(mixed);
    const std::vector<double> e = to_doubles(f32);
    double scale = 0, worst = 0;
    bool finite = true;
    for (size_t i = 0; i < e.size(); ++i) {
        scale = std::max(scale, std::abs(e[i]));
        worst = std::max(worst, std::abs(m[i] - e[i]));
        finite = finite && std::isfinite(m[i]);
    }
    INFO(what << ": max|mixed - f32| = " << worst << ", max|f32| = " << scale << ", k = " << k);
    CHECK(finite);
    CHECK(scale > 0);
    CHECK(worst <= k * kBF16Roundoff * scale);
}

}  // namespace rensa::testing
