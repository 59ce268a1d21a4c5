// Creation routines (core/ops/creation.h) against numpy's results, for every dtype.

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "core/error.h"
#include "core/ops/creation.h"
#include "tests/testing/testing.h"

using namespace rensa;
using rensa::testing::check_allclose;
using rensa::testing::to_doubles;

TEST_CASE("creation: zeros, ones, full and empty for every dtype", "[creation]") {
    for (Dtype dtype : kAllDtypes) {
        CAPTURE(dtype);
        const Array z = ops::zeros({2, 3}, dtype);
        CHECK(z.dtype() == dtype);
        CHECK(z.shape() == Shape{2, 3});
        CHECK(z.is_contiguous());
        CHECK(to_doubles(z) == std::vector<double>(6, 0.0));
        CHECK(to_doubles(ops::ones({4}, dtype)) == std::vector<double>(4, 1.0));
        const double three = dtype == Dtype::kBool ? 1.0 : 3.0;
        CHECK(to_doubles(ops::full({2, 2}, 3, dtype)) == std::vector<double>(4, three));
        const Array e = ops::empty({3, 0, 2}, dtype);
        CHECK(e.dtype() == dtype);
        CHECK(e.size() == 0);
        CHECK(ops::zeros({}, dtype).size() == 1);
    }
    CHECK(ops::zeros({2}).dtype() == Dtype::kFloat32);  // rensa's default dtype, as Chainer's
    CHECK_THROWS_AS(ops::zeros({-1}), ValueError);
}

TEST_CASE("creation: full takes the scalar's dtype unless given one", "[creation]") {
    CHECK(ops::full({2}, 7).dtype() == Dtype::kInt64);
    CHECK(ops::full({2}, 2.5).dtype() == Dtype::kFloat64);
    CHECK(ops::full({2}, true).dtype() == Dtype::kBool);
    CHECK(to_doubles(ops::full({2}, 2.5, Dtype::kInt32)) == std::vector<double>{2, 2});  // truncates
    CHECK(to_doubles(ops::full({2}, -2.5, Dtype::kInt8)) == std::vector<double>{-2, -2});
    CHECK(to_doubles(ops::full({2}, 2, Dtype::kBool)) == std::vector<double>{1, 1});
    CHECK(to_doubles(ops::full({1}, 0.1, Dtype::kFloat16)) == std::vector<double>{static_cast<float>(Half(0.1f))});
    CHECK(std::isnan(ops::full({1}, NAN, Dtype::kBFloat16).item<double>()));
}

TEST_CASE("creation: *_like keep shape, dtype and device", "[creation]") {
    const Array a = ops::arange(6, Dtype::kInt32).reshape({2, 3}).transpose();
    for (const Array& b : {ops::empty_like(a), ops::zeros_like(a), ops::ones_like(a), ops::full_like(a, 4)}) {
        CHECK(b.shape() == Shape{3, 2});
        CHECK(b.dtype() == Dtype::kInt32);
        CHECK(b.device() == a.device());
        CHECK(b.is_contiguous());
        CHECK(b.storage() != a.storage());
    }
    CHECK(to_doubles(ops::zeros_like(a)) == std::vector<double>(6, 0.0));
    CHECK(to_doubles(ops::ones_like(a)) == std::vector<double>(6, 1.0));
    CHECK(to_doubles(ops::full_like(a, 4.75)) == std::vector<double>(6, 4.0));  // a's int32 truncates
    CHECK(ops::zeros_like(a, Dtype::kFloat16).dtype() == Dtype::kFloat16);
    CHECK(to_doubles(ops::full_like(a, 1.5, Dtype::kFloat64)) == std::vector<double>(6, 1.5));
    CHECK(ops::empty_like(a, Dtype::kBool).dtype() == Dtype::kBool);
}

TEST_CASE("creation: arange with integers", "[creation]") {
    CHECK(ops::arange(5).dtype() == Dtype::kInt64);
    check_allclose(ops::arange(5), {0, 1, 2, 3, 4}, {5}, {0, 0});
    check_allclose(ops::arange(2, 11, 3), {2, 5, 8}, {3}, {0, 0});
    check_allclose(ops::arange(10, 0, -3), {10, 7, 4, 1}, {4}, {0, 0});
    check_allclose(ops::arange(-2, 2), {-2, -1, 0, 1}, {4}, {0, 0});
    CHECK(ops::arange(5, 1).shape() == Shape{0});
    CHECK(ops::arange(1, 5, -1).shape() == Shape{0});
    CHECK(ops::arange(0).shape() == Shape{0});
    // Counted in integers: exact beyond 2^53.
    const int64_t big = (int64_t{1} << 53) + 1;
    CHECK(ops::arange(big, big + 2).to_vector<int64_t>() == std::vector<int64_t>{big, big + 1});
    CHECK(ops::arange(big, big + 4, 2).to_vector<int64_t>() == std::vector<int64_t>{big, big + 2});
    CHECK_THROWS_AS(ops::arange(0, 5, 0), ValueError);
}

TEST_CASE("creation: arange with floats", "[creation]") {
    CHECK(ops::arange(1.5).dtype() == Dtype::kFloat64);
    check_allclose(ops::arange(1.5), {0, 1}, {2}, {0, 0});
    CHECK(ops::arange(0.0, 1.0, 0.1).size() == 10);
    check_allclose(ops::arange(0.0, 1.0, 0.25), {0, 0.25, 0.5, 0.75}, {4}, {0, 0});
    check_allclose(ops::arange(-1, -2.5, -0.5), {-1, -1.5, -2}, {3}, {0, 0});
    CHECK(ops::arange(1.0, 0.0, 0.5).size() == 0);
    CHECK_THROWS_AS(ops::arange(0.0, 1.0, 0.0), ValueError);
}

TEST_CASE("creation: arange for every dtype", "[creation]") {
    for (Dtype dtype : kAllDtypes) {
        if (dtype == Dtype::kBool) continue;
        CAPTURE(dtype);
        const Array a = ops::arange(0, 5, 1, dtype);
        CHECK(a.dtype() == dtype);
        check_allclose(a, {0, 1, 2, 3, 4}, {5}, {0, 0});
    }
    check_allclose(ops::arange(0, 2, 1, Dtype::kBool), {0, 1}, {2}, {0, 0});
}

TEST_CASE("creation: linspace", "[creation]") {
    CHECK(ops::linspace(0, 1, 5).dtype() == Dtype::kFloat64);
    check_allclose(ops::linspace(0, 1, 5), {0, 0.25, 0.5, 0.75, 1}, {5}, {0, 0});
    check_allclose(ops::linspace(0, 1, 4, false), {0, 0.25, 0.5, 0.75}, {4}, {0, 0});
    check_allclose(ops::linspace(2, -2, 3), {2, 0, -2}, {3}, {0, 0});
    check_allclose(ops::linspace(0, 1, 1), {0}, {1}, {0, 0});
    check_allclose(ops::linspace(2, 3, 1, false), {2}, {1}, {0, 0});
    CHECK(ops::linspace(0, 1, 0).shape() == Shape{0});
    // The endpoint is exact even where start + i * step would round below it.
    CHECK(ops::linspace(0.1, 0.7, 7).to_vector<double>().back() == 0.7);
    check_allclose(ops::linspace(0, 10, 5, true, Dtype::kInt32), {0, 2, 5, 7, 10}, {5}, {0, 0});
    for (Dtype dtype : {Dtype::kFloat16, Dtype::kBFloat16, Dtype::kFloat32}) {
        CAPTURE(dtype);
        const Array a = ops::linspace(-1, 1, 9, true, dtype);
        CHECK(a.dtype() == dtype);
        check_allclose(a, {-1, -0.75, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1}, {9}, {0, 0});
    }
    CHECK_THROWS_AS(ops::linspace(0, 1, -1), ValueError);
}

TEST_CASE("creation: eye", "[creation]") {
    check_allclose(ops::eye(2), {1, 0, 0, 1}, {2, 2}, {0, 0});
    check_allclose(ops::eye(3, 4, 1), {0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, {3, 4}, {0, 0});
    check_allclose(ops::eye(3, std::nullopt, -1), {0, 0, 0, 1, 0, 0, 0, 1, 0}, {3, 3}, {0, 0});
    check_allclose(ops::eye(2, 3, 5), {0, 0, 0, 0, 0, 0}, {2, 3}, {0, 0});
    check_allclose(ops::eye(4, 2), {1, 0, 0, 1, 0, 0, 0, 0}, {4, 2}, {0, 0});
    CHECK(ops::eye(0).shape() == Shape{0, 0});
    CHECK(ops::eye(2).dtype() == Dtype::kFloat32);
    for (Dtype dtype : kAllDtypes) {
        CAPTURE(dtype);
        const Array e = ops::eye(3, 3, 0, dtype);
        CHECK(e.dtype() == dtype);
        check_allclose(e, {1, 0, 0, 0, 1, 0, 0, 0, 1}, {3, 3}, {0, 0});
    }
    CHECK_THROWS_AS(ops::eye(-1), ValueError);
    CHECK_THROWS_AS(ops::eye(2, -3), ValueError);
}
