// random on cuda:0 gives the native backend's numbers: the device Philox (its host twin,
// checked here on the CPU against rensa::philox4x32) and every distribution x dtype on
// several sizes and stream offsets. uniform, bernoulli and randint must match bit for
// bit; normal uses log/sqrt/cos, whose last bit may differ between libms.

#include <array>
#include <catch2/catch.hpp>
#include <cstdint>
#include <functional>

#include "core/ops/random.h"
#include "core/random.h"
#include "tests/cuda/cuda_testing.h"

namespace rensa::cuda {
// kernels_random.cu: the __host__ __device__ Philox block the kernels use, run on the host.
std::array<uint32_t, 4> philox4x32_twin(uint64_t key, uint64_t counter);
}  // namespace rensa::cuda

using namespace rensa;
using namespace rensa::testing;

namespace {

constexpr int64_t kSizes[] = {0, 1, 7, 1000, 70001};

using MakeFn = std::function<Array(const Shape&, Device)>;

// Seeds, draws one array to move the stream's offset, then the compared one, on both devices.
void check_same_stream(const MakeFn& make, Tolerance tol) {
    for (const int64_t n : kSizes) {
        for (const int64_t skip : {int64_t{0}, int64_t{13}}) {
            INFO("size " << n << ", offset " << skip);
            rensa::seed(1234);
            static_cast<void>(make({skip}, Device::native()));
            const Array expected = make({n}, Device::native());
            rensa::seed(1234);
            static_cast<void>(make({skip}, cuda0()));
            const Array actual = make({n}, cuda0());
            REQUIRE(actual.device() == cuda0());
            REQUIRE(actual.dtype() == expected.dtype());
            check_allclose(actual, expected, tol);
        }
    }
}

constexpr Tolerance kExact{0.0, 0.0};

Tolerance normal_tolerance(Dtype dtype) {
    if (dtype == Dtype::kFloat32) return {1e-6, 1e-6};
    if (dtype == Dtype::kFloat64) return {1e-14, 1e-14};
    return tolerance(dtype);  // one ulp of a double almost never changes a half-type rounding
}

}  // namespace

TEST_CASE("cuda: the device philox4x32 equals the native one (host twin)", "[random]") {
    const uint64_t keys[] = {0, 1, 42, 0xDEADBEEFCAFEF00Dull, ~uint64_t{0}};
    const uint64_t counters[] = {0, 1, 2, 12345, uint64_t{1} << 32, 0x0123456789ABCDEFull, ~uint64_t{0}};
    for (const uint64_t key : keys) {
        for (const uint64_t counter : counters) {
            INFO("key " << key << ", counter " << counter);
            CHECK(cuda::philox4x32_twin(key, counter) == philox4x32(key, counter));
        }
    }
}

TEST_CASE("cuda: uniform equals native bit for bit", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    for (const Dtype dtype : kCudaFloatDtypes) {
        INFO("dtype " << dtype_name(dtype));
        check_same_stream([dtype](const Shape& s, Device d) { return ops::uniform(s, -1.5, 2.5, dtype, d); }, kExact);
        // A narrow range whose top rounds to `high` in the half types: the cap path.
        check_same_stream([dtype](const Shape& s, Device d) { return ops::uniform(s, 1000.0, 1000.5, dtype, d); },
                          kExact);
    }
}

TEST_CASE("cuda: normal equals native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    for (const Dtype dtype : kCudaFloatDtypes) {
        INFO("dtype " << dtype_name(dtype));
        check_same_stream([dtype](const Shape& s, Device d) { return ops::normal(s, 0.5, 2.0, dtype, d); },
                          normal_tolerance(dtype));
    }
}

TEST_CASE("cuda: bernoulli equals native bit for bit, every dtype", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    for (const Dtype dtype : kCudaAllDtypes) {
        INFO("dtype " << dtype_name(dtype));
        check_same_stream([dtype](const Shape& s, Device d) { return ops::bernoulli(s, 0.3, dtype, d); }, kExact);
    }
}

TEST_CASE("cuda: randint equals native bit for bit, every integer dtype", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    for (const Dtype dtype : {Dtype::kInt8, Dtype::kUInt8, Dtype::kInt32, Dtype::kInt64}) {
        INFO("dtype " << dtype_name(dtype));
        const int64_t low = dtype == Dtype::kUInt8 ? 0 : -5;
        check_same_stream([dtype, low](const Shape& s, Device d) { return ops::randint(low, 100, s, dtype, d); },
                          kExact);
    }
    // A range wider than 2^63 needs the full 128-bit product on both sides; compared as
    // int64 (doubles would round the large values).
    const int64_t low = INT64_MIN, high = int64_t{1} << 62;
    rensa::seed(99);
    const Array expected = ops::randint(low, high, {4099}, Dtype::kInt64, Device::native());
    rensa::seed(99);
    const Array actual = ops::randint(low, high, {4099}, Dtype::kInt64, cuda0());
    CHECK(actual.to_device(Device::native()).to_vector<int64_t>() == expected.to_vector<int64_t>());
}

TEST_CASE("cuda: permutation equals native", "[cuda]") {
    RENSA_REQUIRE_CUDA();
    for (const int64_t n : {int64_t{1}, int64_t{10}, int64_t{70001}}) {
        rensa::seed(7);
        const Array expected = ops::permutation(n, Device::native());
        rensa::seed(7);
        const Array actual = ops::permutation(n, cuda0());
        check_allclose(actual, expected, kExact);
    }
}
