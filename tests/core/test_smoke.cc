#include <catch2/catch.hpp>
#include "core/ops/creation.h"
#include "tests/testing/testing.h"
using namespace rensa;
TEST_CASE("smoke: arange reshape transpose copy") {
    Array a = ops::arange(12).reshape({3, 4});
    testing::check_allclose(a.transpose().copy(), {0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}, {4, 3}, {0, 0});
}
