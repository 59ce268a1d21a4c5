#pragma once
// Helpers of the [cuda] tests (docs/style.md, rule 9: GPU tests return early, counted as skipped,
// without a device). Every kernel is checked against the native backend on fresh random
// data (never zeros), in several shapes and layouts:
//
//   TEST_CASE("cuda: unary exp matches native", "[cuda]") {
//       RENSA_REQUIRE_CUDA();
//       const Array x = random_array({3, 5}, Dtype::kFloat32, 1);
//       check_matches_native([](const Array& a) { return ops::exp(a); }, {x}, Dtype::kFloat32);
//   }

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/array.h"
#include "tests/testing/testing.h"

namespace rensa::testing {

// Installs the CUDA backend once; true when cuda:0 is usable.
bool cuda_ready();
// Prints the line CTest's SKIP_REGULAR_EXPRESSION for the cuda suite matches.
void report_cuda_skip();

// Starts a [cuda] test: without a GPU it reports the skip and returns from the test.
#define RENSA_REQUIRE_CUDA()                      \
    do {                                          \
        if (!::rensa::testing::cuda_ready()) {    \
            ::rensa::testing::report_cuda_skip(); \
            return;                               \
        }                                         \
    } while (false)

inline Device cuda0() { return Device::cuda(0); }

// A native array of fresh random values: floats uniform in [low, high) with |v| >= 0.05
// (never zero), integers in [low, high) skipping 0 where the range allows, bools random.
// The layout is made on the native device; `seed` picks the values.
Array random_array(const Shape& shape, Dtype dtype, uint64_t seed, double low = -2.0, double high = 2.0,
                   Layout layout = Layout::kContiguous);
// `a`'s values on cuda:0 in the same layout kind (contiguous, strided, transposed, offset;
// a zero-stride broadcast view stays a broadcast view of a copied base).
Array to_cuda(const Array& a, Layout layout = Layout::kContiguous);

using ArrayFn = std::function<std::vector<Array>(const std::vector<Array>&)>;
// Runs `fn` on the native inputs and on copies of them on cuda:0 (each input in
// `layout`), and checks every output: same shape, dtype and device cuda:0, values close
// within `tol` (default: the tolerance of the output's dtype).
void check_matches_native(const ArrayFn& fn, const std::vector<Array>& inputs, Layout layout = Layout::kContiguous,
                          std::optional<Tolerance> tol = std::nullopt);

// Tolerance for sums of products (GEMM, convolution) against native: both accumulate in
// float32 (float64 for float64), but cuBLAS/cuDNN may reduce split-k partial sums in the
// output type and add a bias after rounding, hence the loose absolute term for halves.
Tolerance product_tolerance(Dtype dtype);

// The float dtypes every float kernel is swept over.
inline constexpr Dtype kCudaFloatDtypes[] = {Dtype::kFloat16, Dtype::kBFloat16, Dtype::kFloat32, Dtype::kFloat64};
// Every dtype.
inline constexpr Dtype kCudaAllDtypes[] = {Dtype::kBool,     Dtype::kInt8,    Dtype::kUInt8,
                                           Dtype::kInt32,    Dtype::kInt64,   Dtype::kFloat16,
                                           Dtype::kBFloat16, Dtype::kFloat32, Dtype::kFloat64};

}  // namespace rensa::testing
