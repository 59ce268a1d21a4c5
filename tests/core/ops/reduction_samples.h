#pragma once
// Inputs shared by the reduction tests.

#include <vector>

#include "core/dtype.h"

namespace rensa::testing {

// Small values every dtype holds exactly, with negatives where the dtype has them;
// period 23, so long axes have ties.
inline std::vector<double> reduction_sample(Dtype dtype, int64_t n, int64_t seed = 0) {
    std::vector<double> v;
    for (int64_t i = 0; i < n; ++i) {
        const double x = static_cast<double>((i * 37 + seed * 11 + 5) % 23);
        if (dtype == Dtype::kBool) {
            v.push_back((i * 7 + seed) % 3 == 0 ? 1.0 : 0.0);
        } else {
            v.push_back(is_float(dtype) ? (x - 11) * 0.25 : is_signed(dtype) ? x - 11 : x);
        }
    }
    return v;
}

}  // namespace rensa::testing
