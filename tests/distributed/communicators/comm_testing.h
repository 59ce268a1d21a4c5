#pragma once
// Helpers for the communicator tests: one communicator of each kind per process, values
// every rank can compute for every other rank, and comparisons that never abort a test
// case (a REQUIRE failing on one rank would desynchronise the collectives of the others).

#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/array.h"
#include "distributed/communicator.h"
#include "tests/distributed/distributed_testing.h"
#include "tests/testing/testing.h"

namespace rensa::distributed::testing {

// The communicator of `name` ("naive", "flat", "dummy"), created once per process.
inline Communicator& comm(const std::string& name = "naive") { return *rensa::testing::shared_comm(name); }

// Element i of rank r's array: small integers every dtype holds exactly.
inline double value_of(Dtype dtype, int r, int64_t i) {
    if (dtype == Dtype::kBool) return static_cast<double>((i + r) % 2);
    const double v = static_cast<double>((i * 7 + r * 3) % 9);
    return is_signed(dtype) ? v - 4.0 : v;
}

inline std::vector<double> values_of(Dtype dtype, int r, int64_t n) {
    std::vector<double> out;
    for (int64_t i = 0; i < n; ++i) out.push_back(value_of(dtype, r, i));
    return out;
}

// "" when `actual` has `shape` and matches `expected` within `tol`, else what differs.
inline std::string mismatch(const Array& actual, const std::vector<double>& expected, const Shape& shape,
                            rensa::testing::Tolerance tol) {
    std::ostringstream os;
    if (!actual.defined()) return "undefined array";
    if (!(actual.shape() == shape)) {
        os << "shape " << actual.shape() << " != expected " << shape;
        return os.str();
    }
    const std::vector<double> got = rensa::testing::to_doubles(actual);
    for (size_t i = 0; i < got.size() && i < expected.size(); ++i) {
        if (std::abs(got[i] - expected[i]) > tol.atol + tol.rtol * std::abs(expected[i])) {
            os << "element " << i << ": " << got[i] << " != expected " << expected[i] << " (" << actual.dtype() << ")";
            return os.str();
        }
    }
    return {};
}

inline std::string mismatch(const Array& actual, const std::vector<double>& expected, const Shape& shape) {
    return mismatch(actual, expected, shape, rensa::testing::tolerance(actual.dtype()));
}

}  // namespace rensa::distributed::testing
