// Gradient destinations (Note [Gradient destinations] in autograd/backward.cc): a leaf's
// grad lands in the array it names; a function is offered the destination only when it may
// write there (no grad yet, not repeated, no double backprop, not grad()).

#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <vector>

#include "autograd/autograd.h"
#include "core/ops/creation.h"
#include "core/ops/elementwise.h"
#include "tests/autograd/test_functions.h"
#include "tests/testing/testing.h"

using namespace rensa;
using rensa::test::var;
using rensa::testing::check_allclose;

namespace {

// y = 3 x; its backward writes 3 gy into the destination it is offered, and says so.
class TripleNode : public FunctionNode {
public:
    explicit TripleNode(std::vector<bool>* offered) : offered_{offered} {}
    std::vector<Array> forward(const std::vector<Array>& xs) override { return {ops::multiply(xs[0], Scalar(3.0))}; }
    std::vector<Variable> backward(const Indexes&, const std::vector<Variable>& gys) override {
        const Array& destination = grad_destination(0);
        offered_->push_back(destination.defined());
        if (!destination.defined() || gys[0].creator()) return {gys[0] * 3.0};
        destination.assign(ops::multiply(gys[0].array(), Scalar(3.0)));
        return {Variable(destination, false)};
    }

private:
    std::vector<bool>* offered_;
};

Variable triple(const Variable& x, std::vector<bool>& offered) {
    return std::make_shared<TripleNode>(&offered)->apply({x})[0];
}

bool aliases(const Array& a, const Array& b) { return a.raw_data() == b.raw_data(); }

}  // namespace

TEST_CASE("grad destination: a function writes the grad there and nothing is copied", "[autograd]") {
    const Variable x = var({1.0, 2.0, 3.0}, {3});
    const Array destination = ops::zeros({3}, Dtype::kFloat64);
    x.set_grad_destination(destination);
    std::vector<bool> offered;
    sum(triple(x, offered) * 2.0).backward();
    REQUIRE(offered.size() == 1);
    CHECK(offered[0]);
    CHECK(aliases(x.grad(), destination));
    check_allclose(destination, {6.0, 6.0, 6.0}, {3}, {0, 0});
}

TEST_CASE("grad destination: other grads are copied in, and it is the grad", "[autograd]") {
    const Variable x = var({0.5, 1.0}, {2});
    const Array destination = ops::zeros({2}, Dtype::kFloat64);
    x.set_grad_destination(destination);
    sum(test::sin(x)).backward();
    CHECK(aliases(x.grad(), destination));
    check_allclose(destination, {std::cos(0.5), std::cos(1.0)}, {2}, {1e-15, 1e-15});
    // The next backward (after cleargrad) writes the same array again.
    x.cleargrad();
    sum(x * 4.0).backward();
    CHECK(aliases(x.grad(), destination));
    check_allclose(destination, {4.0, 4.0}, {2}, {0, 0});
}

TEST_CASE("grad destination: not offered when the function may not write there", "[autograd]") {
    std::vector<bool> offered;
    const Array destination = ops::zeros({2}, Dtype::kFloat64);
    SECTION("the variable already has a grad: it accumulates") {
        const Variable x = var({1.0, 2.0}, {2});
        x.set_grad_destination(destination);
        x.set_grad(ops::full({2}, Scalar(10.0), Dtype::kFloat64));
        sum(triple(x, offered)).backward();
        CHECK(x.grad().to_vector<double>() == std::vector<double>{13.0, 13.0});
        CHECK(aliases(x.grad(), destination));
    }
    SECTION("a second consumer in the same backward: the sum is right") {
        const Variable x = var({1.0, 2.0}, {2});
        x.set_grad_destination(destination);
        sum(triple(x, offered) + triple(x, offered)).backward();
        CHECK(x.grad().to_vector<double>() == std::vector<double>{6.0, 6.0});
        REQUIRE(offered.size() == 2);
        CHECK_FALSE((offered[0] && offered[1]));  // at most the first one may write there
    }
    SECTION("double backprop: the grad stays a graph, not the destination") {
        const Variable x = var({1.0, 2.0}, {2});
        x.set_grad_destination(destination);
        sum(triple(x, offered) * x).backward({.enable_double_backprop = true});
        REQUIRE(offered.size() == 1);
        CHECK_FALSE(offered[0]);
        CHECK(x.grad_var().creator() != nullptr);
        check_allclose(x.grad(), {6.0, 12.0}, {2}, {0, 0});
    }
    SECTION("grad() leaves destinations alone") {
        const Variable x = var({1.0, 2.0}, {2});
        x.set_grad_destination(destination);
        const auto gx = grad({sum(triple(x, offered))}, {x});
        REQUIRE(offered.size() == 1);
        CHECK_FALSE(offered[0]);
        CHECK_FALSE(aliases(gx[0].array(), destination));
        CHECK(destination.to_vector<double>() == std::vector<double>{0.0, 0.0});
    }
}

TEST_CASE("grad destination: a mismatched destination is refused", "[autograd]") {
    const Variable x = var({1.0, 2.0}, {2});
    CHECK_THROWS_AS(x.set_grad_destination(ops::zeros({3}, Dtype::kFloat64)), DimensionError);
    CHECK_THROWS_AS(x.set_grad_destination(ops::zeros({2}, Dtype::kFloat32)), DtypeError);
    CHECK_FALSE(x.grad_destination().defined());
    x.set_grad_destination(ops::zeros({2}, Dtype::kFloat64));
    x.set_grad_destination({});  // turned off again
    CHECK_FALSE(x.grad_destination().defined());
}
