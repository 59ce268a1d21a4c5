// Differentiable send / recv / pseudo_connect between ranks 0 and 1 (ranks >= 2 take part
// in each test case but exchange nothing). Every rank computes first, checks last.

#include <catch2/catch.hpp>

#include "autograd/basic_math.h"
#include "autograd/shape_ops.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "distributed/communicator.h"
#include "distributed/functions/point_to_point.h"
#include "tests/distributed/distributed_testing.h"
#include "tests/testing/testing.h"

namespace {

using rensa::Array;
using rensa::Dtype;
using rensa::Shape;
using rensa::Variable;
namespace dist = rensa::distributed;
namespace testing = rensa::testing;

const dist::CommunicatorPtr& comm() { return testing::shared_comm("naive"); }

Array input(Dtype dtype, const Shape& shape) {
    return testing::make_array(testing::sample(dtype, rensa::shape_size(shape), 7), shape, dtype);
}

}  // namespace

TEST_CASE("distributed/p2p: send and recv forward and backward", "[distributed][links]") {
    const auto& c = comm();
    for (const Dtype dtype : {Dtype::kFloat32, Dtype::kFloat64}) {
        const Array x0 = input(dtype, Shape{2, 3, 2});
        Array got, grad;
        if (c->size() >= 2 && c->rank() == 0) {
            const Variable x{x0};
            const Variable delegate = dist::send(x, c, 1);
            delegate.backward();  // receives d(sum(y*y))/dy = 2y from rank 1
            got = delegate.array();
            grad = x.grad();
        } else if (c->size() >= 2 && c->rank() == 1) {
            const Variable y = dist::recv(c, 0);
            got = y.array();
            rensa::sum(y * y).backward();
        }
        if (c->size() >= 2 && c->rank() == 0) {
            CHECK(got.shape() == Shape{});
            testing::check_allclose(grad, rensa::ops::multiply(x0, 2.0));
        } else if (c->size() >= 2 && c->rank() == 1) {
            REQUIRE(got.dtype() == dtype);
            testing::check_allclose(got, x0);
        }
    }
}

TEST_CASE("distributed/p2p: round trip through delegates", "[distributed][links]") {
    // rank 0: x -> send(1) -> recv(1, delegate) -> z, loss = sum(z*z); rank 1: y = recv(0),
    // send(3y, 0). d loss / dx = 18x.
    const auto& c = comm();
    const Array x0 = input(Dtype::kFloat32, Shape{4, 5});
    Array grad, z_array;
    if (c->size() >= 2 && c->rank() == 0) {
        const Variable x{x0};
        const Variable z = dist::recv(c, 1, dist::send(x, c, 1));
        rensa::sum(z * z).backward();
        grad = x.grad();
        z_array = z.array();
    } else if (c->size() >= 2 && c->rank() == 1) {
        const Variable y = dist::recv(c, 0);
        dist::send(y * 3.0, c, 0).backward();
    }
    if (c->size() >= 2 && c->rank() == 0) {
        testing::check_allclose(z_array, rensa::ops::multiply(x0, 3.0));
        testing::check_allclose(grad, rensa::ops::multiply(x0, 18.0));
    }
}

TEST_CASE("distributed/p2p: backward exchanges even without gradients", "[distributed][links]") {
    // x needs no grad on rank 0 and rank 1 does not use y: both backward passes must still
    // exchange (rank 1 sends zeros) instead of leaving the peer waiting.
    const auto& c = comm();
    bool x_has_grad = true;
    if (c->size() >= 2 && c->rank() == 0) {
        const Variable x{input(Dtype::kFloat32, Shape{3}), false};
        dist::send(x, c, 1).backward();
        x_has_grad = x.grad().defined();
    } else if (c->size() >= 2 && c->rank() == 1) {
        const Variable y = dist::recv(c, 0);
        const Variable w{rensa::ops::ones(Shape{3}), true};
        rensa::sum(dist::pseudo_connect(y, w)).backward();  // y gets a zero grad only
    }
    if (c->size() >= 2 && c->rank() == 0) CHECK_FALSE(x_has_grad);
}

TEST_CASE("distributed/p2p: pseudo_connect passes values and gradients", "[distributed][links]") {
    const Variable delegate{rensa::ops::zeros(Shape{}), true};
    const Variable a{input(Dtype::kFloat32, Shape{2, 2})}, b{input(Dtype::kFloat64, Shape{3})};
    const std::vector<Variable> ys = dist::pseudo_connect(delegate, {a, b});
    REQUIRE(ys.size() == 2);
    testing::check_allclose(ys[0].array(), a.array());
    testing::check_allclose(ys[1].array(), b.array());
    rensa::sum(ys[0] * 2.0).backward();
    testing::check_allclose(a.grad(), rensa::ops::full(Shape{2, 2}, 2.0));
    testing::check_allclose(delegate.grad(), rensa::ops::zeros(Shape{}));
    CHECK_THROWS_AS(dist::pseudo_connect(Variable{}, a), rensa::ValueError);
    CHECK_THROWS_AS(dist::pseudo_connect(delegate, std::vector<Variable>{}), rensa::ValueError);
}

TEST_CASE("distributed/p2p: bad ranks are rejected before communicating", "[distributed][links]") {
    const auto& c = comm();
    const Variable x{input(Dtype::kFloat32, Shape{2})};
    CHECK_THROWS_AS(dist::send(x, c, c->size()), rensa::ValueError);
    CHECK_THROWS_AS(dist::send(x, c, -1), rensa::ValueError);
    CHECK_THROWS_AS(dist::send(x, c, c->rank()), rensa::ValueError);
    CHECK_THROWS_AS(dist::recv(c, c->rank()), rensa::ValueError);
    CHECK_THROWS_AS(dist::recv(c, c->size() + 3), rensa::ValueError);
    CHECK_THROWS_AS(dist::send(x, nullptr, 0), rensa::ValueError);
    CHECK_THROWS_WITH(dist::send(x, c, c->rank()), Catch::Contains("deadlock"));
}
