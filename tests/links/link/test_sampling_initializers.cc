// UpsamplingDeconvFilter and DownsamplingConvFilter: Chainer 7.8.1's values (printed by
// chainer.initializers on numpy arrays), the diagonal layout, dtypes, devices and errors.
#include <catch2/catch.hpp>
#include <vector>

#include "core/error.h"
#include "core/ops/creation.h"
#include "links/initializers/sampling.h"

namespace rensa::initializers {
namespace {

std::vector<double> filled(const Initializer& init, const Shape& shape, Dtype dtype = Dtype::kFloat64) {
    Array a = ops::full(shape, 7.0, dtype);  // every element written, the zeros included
    init(a);
    return a.to_vector<double>();
}

void check_values(const std::vector<double>& actual, const std::vector<double>& expected) {
    REQUIRE(actual.size() == expected.size());
    for (size_t i = 0; i < actual.size(); ++i) CHECK(actual[i] == Approx(expected[i]).epsilon(1e-12));
}

TEST_CASE("UpsamplingDeconvFilter gives Chainer's bilinear kernels", "[links][initializers]") {
    const UpsamplingDeconvFilter up;
    check_values(filled(up, {1, 1, 4, 4}), {0.0625, 0.1875, 0.1875, 0.0625, 0.1875, 0.5625, 0.5625, 0.1875, 0.1875,
                                            0.5625, 0.5625, 0.1875, 0.0625, 0.1875, 0.1875, 0.0625});
    check_values(filled(up, {1, 1, 3}), {0.5, 1.0, 0.5});
    check_values(filled(up, {1, 1, 5}), {1.0 / 3, 2.0 / 3, 1.0, 2.0 / 3, 1.0 / 3});
    check_values(filled(up, {1, 1, 2, 2, 2}), std::vector<double>(8, 0.125));
    CHECK(up.interpolation() == "linear");
}

TEST_CASE("DownsamplingConvFilter gives Chainer's kernels normalised to sum 1", "[links][initializers]") {
    const DownsamplingConvFilter down;
    check_values(filled(down, {1, 1, 3, 3}), {0.0625, 0.125, 0.0625, 0.125, 0.25, 0.125, 0.0625, 0.125, 0.0625});
    check_values(filled(down, {1, 1, 4}), {0.125, 0.375, 0.375, 0.125});
}

TEST_CASE("Sampling filters fill the channel diagonal, or every channel into one", "[links][initializers]") {
    // (3, 3, 2): array[i, i] = [0.5, 0.5], zeros elsewhere (Chainer's layout).
    check_values(filled(DownsamplingConvFilter(), {3, 3, 2}),
                 {0.5, 0.5, 0, 0, 0, 0, 0, 0, 0.5, 0.5, 0, 0, 0, 0, 0, 0, 0.5, 0.5});
    // (3, 1, 2): array[i, 0] for every i.
    check_values(filled(UpsamplingDeconvFilter(), {3, 1, 2}), {0.5, 0.5, 0.5, 0.5, 0.5, 0.5});
}

TEST_CASE("Sampling filters write float16 and float32 arrays and non-contiguous views", "[links][initializers]") {
    check_values(filled(UpsamplingDeconvFilter(), {1, 1, 3}, Dtype::kFloat16), {0.5, 1.0, 0.5});
    check_values(filled(DownsamplingConvFilter("linear", Dtype::kFloat32), {1, 1, 4}, Dtype::kFloat32),
                 {0.125, 0.375, 0.375, 0.125});
    // A transposed (strided) view of a (2, 1, 1, 3) array: the filter lands in the view's layout.
    const Array base = ops::full({3, 1, 2, 1}, 7.0, Dtype::kFloat32);
    const Array view = base.transpose({3, 1, 0, 2});                // (1, 1, 3, 2)
    REQUIRE_THROWS_AS(UpsamplingDeconvFilter()(view), ValueError);  // kernel sizes 3 and 2
    const Array square_base = ops::full({2, 2, 1, 1}, 7.0, Dtype::kFloat32);
    const Array square = square_base.transpose({3, 2, 1, 0});  // (1, 1, 2, 2), strided
    DownsamplingConvFilter()(square);
    check_values(square.to_vector<double>(), {0.25, 0.25, 0.25, 0.25});
    check_values(square_base.to_vector<double>(), {0.25, 0.25, 0.25, 0.25});
}

TEST_CASE("Sampling filters reject what Chainer rejects, naming the initializer", "[links][initializers]") {
    CHECK_THROWS_WITH(UpsamplingDeconvFilter("nearest"),
                      Catch::Contains("UpsamplingDeconvFilter: Expect: interpolation == 'linear', Actual: 'nearest'"));
    CHECK_THROWS_AS(DownsamplingConvFilter("cubic"), ValueError);
    const UpsamplingDeconvFilter up;
    CHECK_THROWS_WITH(up(ops::zeros({2, 3, 3, 3}, Dtype::kFloat32)),
                      Catch::Contains("UpsamplingDeconvFilter: Expect: shape[0] == shape[1] or shape[1] == 1"));
    CHECK_THROWS_WITH(up(ops::zeros({2, 2, 3, 4}, Dtype::kFloat32)), Catch::Contains("ksize must be all same: 3 != 4"));
    CHECK_THROWS_AS(up(ops::zeros({2, 2}, Dtype::kFloat32)), DimensionError);
    CHECK_THROWS_WITH(DownsamplingConvFilter("linear", Dtype::kFloat32)(ops::zeros({1, 1, 2}, Dtype::kFloat64)),
                      Catch::Contains("DownsamplingConvFilter: the initializer's dtype is float32"));
}

}  // namespace
}  // namespace rensa::initializers
