// L::Maxout: its child "linear" (Chainer's keys), values against Linear + F::maxout, lazy
// in_size, no bias, gradients and NPZ keys.

#include <catch2/catch.hpp>
#include <memory>
#include <vector>

#include "core/ops/random.h"
#include "core/random.h"
#include "functions/activation.h"
#include "functions/connection.h"
#include "links/activation/maxout.h"
#include "tests/links/link_check.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("Maxout holds a Linear named linear", "[links][activation]") {
    L::Maxout maxout(4, 3, 2);
    const auto params = maxout.namedparams();
    REQUIRE(params.size() == 2);
    CHECK(params[0].first == "/linear/W");
    CHECK(params[1].first == "/linear/b");
    CHECK(maxout.linear->W.shape() == Shape{6, 4});
    CHECK(maxout.linear->b.shape() == Shape{6});
    CHECK(to_doubles(maxout.linear->b.array()) == std::vector<double>(6, 0.0));
    CHECK(&maxout.child("linear") == maxout.linear.get());
    CHECK(maxout.out_size == 3);
    CHECK(maxout.pool_size == 2);
    L::Maxout nobias(4, 3, 2, nullptr, nullptr);
    REQUIRE(nobias.namedparams().size() == 1);
    CHECK_FALSE(nobias.linear->b.defined());
}

TEST_CASE("Maxout takes the maximum over consecutive units", "[links][activation]") {
    // W rows o * pool + p: unit 0 from rows {0, 1}, unit 1 from rows {2, 3}.
    L::Maxout maxout(2, 2, 2, initializers::from_array(f64({1, 0, 0, 1, -1, 0, 0, -1}, {4, 2}).astype(Dtype::kFloat32)),
                     initializers::constant(0.5));
    const Variable y = maxout(Variable(f64({3, -2, -1, 4}, {2, 2}).astype(Dtype::kFloat32)));
    CHECK(y.shape() == Shape{2, 2});
    CHECK(to_doubles(y.array()) == std::vector<double>{3.5, 2.5, 4.5, 1.5});
    seed(2);
    L::Maxout random(5, 3, 4);
    const Array x = ops::uniform({2, 5});
    check_allclose(random(Variable(x)).array(),
                   F::maxout(F::linear(Variable(x), random.linear->W, random.linear->b), 4).array());
}

TEST_CASE("Maxout learns in_size lazily and checks its sizes", "[links][activation]") {
    L::Maxout maxout(std::nullopt, 2, 3);
    CHECK_FALSE(maxout.linear->W.is_initialized());
    const Variable y = maxout(Variable(ops::uniform({4, 7})));
    CHECK(y.shape() == Shape{4, 2});
    CHECK(maxout.linear->W.shape() == Shape{6, 7});
    CHECK_THROWS_AS(L::Maxout(3, 0, 2), ValueError);
    CHECK_THROWS_AS(L::Maxout(3, 2, 0), ValueError);
    CHECK_THROWS_AS(maxout(Variable(ops::uniform({4, 5}))), DimensionError);
}

TEST_CASE("Maxout gradients", "[links][activation]") {
    seed(19);
    L::Maxout maxout(3, 2, 3, std::make_shared<initializers::Normal>(1.0, Dtype::kFloat64),
                     std::make_shared<initializers::Uniform>(1.0, Dtype::kFloat64));
    const auto f = [&maxout](const std::vector<Variable>& xs) { return maxout(xs[0]); };
    check_link_backward(f, {ops::uniform({4, 3}, -1, 1, Dtype::kFloat64)}, {maxout.linear->W, maxout.linear->b},
                        ops::uniform({4, 2}, -1, 1, Dtype::kFloat64));
}

TEST_CASE("Maxout saves the keys of Chainer and copies its child", "[links][activation]") {
    L::Maxout maxout(3, 2, 2);
    L::Maxout target(3, 2, 2);
    CHECK(npz_round_trip(maxout, target) == std::vector<std::string>{"linear/W", "linear/b"});
    check_allclose(target.linear->W.array(), maxout.linear->W.array());
    const auto copy = std::dynamic_pointer_cast<L::Maxout>(maxout.copy(L::CopyMode::kCopy));
    REQUIRE(copy);
    REQUIRE(copy->linear);
    CHECK(copy->linear != maxout.linear);
    CHECK(copy->linear->W.array().storage() != maxout.linear->W.array().storage());
    CHECK(copy->namedparams()[0].second == copy->linear->W);
    CHECK(copy->pool_size == 2);
}

TEST_CASE("Maxout on CUDA matches the CPU", "[links][activation][cuda]") {
    if (!has_cuda()) return;
    L::Maxout maxout(3, 2, 2);
    const Array x = ops::uniform({4, 3}, -1, 1);
    const Variable y = maxout(Variable(x));
    maxout.to_device(Device::cuda(0));
    CHECK(maxout.linear->W.device() == Device::cuda(0));
    check_allclose(maxout(Variable(x.to_device(Device::cuda(0)))).array().to_device(Device::native()), y.array());
    maxout.to_device(Device::native());
    CHECK(maxout.linear->b.device() == Device::native());
}
