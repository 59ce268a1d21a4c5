// The arithmetic of the gradient-bucket reductions (distributed/detail/bucket_math.h): sums
// in the compute type, in the order given, rounded once; float16/bfloat16 accumulate in float32.

#include <catch2/catch.hpp>

#include <vector>

#include "core/array.h"
#include "distributed/detail/bucket_math.h"

namespace rensa::distributed::detail {
namespace {

Array filled(const std::vector<double>& values, Dtype dtype) {
    return Array::from_vector(values, {static_cast<int64_t>(values.size())}).astype(dtype);
}

TEST_CASE("bucket math: sum_into scales the sum and writes every destination", "[distributed][communicators]") {
    for (const Dtype dtype : {Dtype::kFloat16, Dtype::kBFloat16, Dtype::kFloat32, Dtype::kFloat64}) {
        INFO(dtype);
        // 3000 elements: blocks of 1024 and a tail.
        std::vector<double> a(3000), b(3000), expected(3000);
        for (size_t i = 0; i < a.size(); ++i) {
            a[i] = static_cast<double>(i % 64);
            b[i] = static_cast<double>((i * 3) % 32);
            expected[i] = (a[i] + b[i]) * 0.5;
        }
        const Array x = filled(a, dtype), y = filled(b, dtype), out = filled(std::vector<double>(3000, -1.0), dtype);
        const void* srcs[] = {x.raw_data(), y.raw_data()};
        void* dsts[] = {x.raw_data(), out.raw_data()};  // sources may alias destinations
        sum_into(dtype, srcs, dsts, 3000, 0.5);
        CHECK(x.to_vector<double>() == expected);
        CHECK(out.to_vector<double>() == expected);
    }
}

TEST_CASE("bucket math: half sums accumulate in float32 and are rounded once", "[distributed][communicators]") {
    // 40000 + 40000 + 40000 overflows float16 (max 65504); the mean does not.
    const Array big = filled(std::vector<double>(10, 40000.0), Dtype::kFloat16);
    const void* three[] = {big.raw_data(), big.raw_data(), big.raw_data()};
    const Array mean = filled(std::vector<double>(10, 0.0), Dtype::kFloat16);
    void* out[] = {mean.raw_data()};
    sum_into(Dtype::kFloat16, three, out, 10, 1.0 / 3.0);
    CHECK(mean.to_vector<double>() == std::vector<double>(10, 40000.0));
    // 1 + 2^-8 + 2^-8 in bfloat16 (ulp 2^-7 at 1): each addition rounded (a tie, to even)
    // would stay 1; summed in float32 and rounded once it is 1 + 2^-7.
    const Array one = filled({1.0}, Dtype::kBFloat16), tiny = filled({1.0 / 256}, Dtype::kBFloat16);
    const Array sum = filled({0.0}, Dtype::kBFloat16);
    const void* srcs[] = {one.raw_data(), tiny.raw_data(), tiny.raw_data()};
    void* dst[] = {sum.raw_data()};
    sum_into(Dtype::kBFloat16, srcs, dst, 1, 1.0);
    CHECK(sum.to_vector<double>() == std::vector<double>{1.0 + 1.0 / 128});
}

TEST_CASE("bucket math: ring steps scale each contribution once", "[distributed][communicators]") {
    // A ring over 3 ranks adds values 2, 4, 6 (scale 1/4): the first
    // step scales both raw values, later steps only the new one.
    const Array own = filled({2.0, 8.0}, Dtype::kFloat32), in = filled({4.0, 8.0}, Dtype::kFloat32);
    ring_accumulate(Dtype::kFloat32, own.raw_data(), in.raw_data(), 2, 0.25, /*first=*/true);
    CHECK(own.to_vector<double>() == std::vector<double>{1.5, 4.0});
    const Array third = filled({6.0, 4.0}, Dtype::kFloat32);
    ring_accumulate(Dtype::kFloat32, third.raw_data(), own.raw_data(), 2, 0.25, /*first=*/false);
    CHECK(third.to_vector<double>() == std::vector<double>{3.0, 5.0});  // (2 + 4 + 6) / 4, (8 + 8 + 4) / 4
    const Array ints = filled({1.0}, Dtype::kInt32);
    const void* srcs[] = {ints.raw_data()};
    void* dsts[] = {ints.raw_data()};
    CHECK_THROWS_AS(sum_into(Dtype::kInt32, srcs, dsts, 1, 1.0), DtypeError);
}

TEST_CASE("bucket math: convert casts float32 to and from the half dtypes like astype",
          "[distributed][communicators]") {
    std::vector<double> values(1037);  // vector body and tail
    for (size_t i = 0; i < values.size(); ++i) values[i] = (static_cast<double>(i) - 500.0) * 0.3071 + 1e-3 * (i % 7);
    const Array f32 = filled(values, Dtype::kFloat32);
    for (const Dtype half : {Dtype::kFloat16, Dtype::kBFloat16}) {
        INFO(half);
        const Array narrow = filled(std::vector<double>(values.size(), 0.0), half);
        REQUIRE(convert(Dtype::kFloat32, f32.raw_data(), half, narrow.raw_data(), f32.size()));
        CHECK(narrow.to_vector<double>() == f32.astype(half).to_vector<double>());
        const Array wide = filled(std::vector<double>(values.size(), 0.0), Dtype::kFloat32);
        REQUIRE(convert(half, narrow.raw_data(), Dtype::kFloat32, wide.raw_data(), narrow.size()));
        CHECK(wide.to_vector<double>() == narrow.astype(Dtype::kFloat32).to_vector<double>());
    }
    CHECK_FALSE(convert(Dtype::kFloat64, f32.raw_data(), Dtype::kFloat32, f32.raw_data(), 1));
}

}  // namespace
}  // namespace rensa::distributed::detail
