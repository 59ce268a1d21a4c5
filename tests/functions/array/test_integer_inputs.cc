// The array functions move integer data too (as in Chainer): labels padded, joined,
// indexed and transposed keep their dtype and values.

#include <catch2/catch.hpp>

#include "functions/array.h"

using namespace rensa;

namespace {

Variable ints(const std::vector<int32_t>& values, const Shape& shape) {
    return Variable(Array::from_vector(values, shape), false);
}

std::vector<int32_t> values(const Variable& v) { return v.array().to_vector<int32_t>(); }

}  // namespace

TEST_CASE("array functions on integer variables", "[functions][array]") {
    const Variable a = ints({1, 2, 3}, {3}), b = ints({4}, {1});
    const Variable padded = F::pad_sequence({a, b}, std::nullopt, -1);
    CHECK(padded.dtype() == Dtype::kInt32);
    CHECK(values(padded) == std::vector<int32_t>{1, 2, 3, 4, -1, -1});
    CHECK(values(F::concat({a, b}, 0)) == std::vector<int32_t>{1, 2, 3, 4});
    CHECK(values(F::get_item(padded, {Slice{}, 0})) == std::vector<int32_t>{1, 4});
    CHECK(values(F::get_item(padded, {1, Slice{std::nullopt, std::nullopt, -1}})) == std::vector<int32_t>{-1, -1, 4});
    CHECK(values(F::transpose_sequence({a, b})[0]) == std::vector<int32_t>{1, 4});
    CHECK(values(F::split_axis(a, 3, 0)[2]) == std::vector<int32_t>{3});
    CHECK(values(F::flip(a, 0)) == std::vector<int32_t>{3, 2, 1});
    CHECK(values(F::repeat(b, 2)) == std::vector<int32_t>{4, 4});
    CHECK(F::cast(a, Dtype::kFloat32).array().to_vector<float>() == std::vector<float>{1, 2, 3});
}

TEST_CASE("array functions on integer variables that require grad", "[functions][array]") {
    // Integer leaves default to requires_grad: the forward still works and records no harm.
    const Variable a(Array::from_vector<int32_t>({1, 2, 3, 4}, {2, 2}));
    CHECK(values(F::transpose(a)) == std::vector<int32_t>{1, 3, 2, 4});
    CHECK(values(F::select_item(F::cast(a, Dtype::kInt32), ints({1, 0}, {2}))) == std::vector<int32_t>{2, 3});
}
