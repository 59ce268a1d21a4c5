// grad(): results without touching .grad, set_grad, retain_grad, paths that stop at
// the inputs, and double backprop through grad().

#include <catch2/catch.hpp>

#include "autograd/autograd.h"
#include "core/ops/creation.h"
#include "tests/autograd/test_functions.h"
#include "tests/testing/testing.h"

using namespace rensa;
using rensa::test::scalar;
using rensa::test::var;
using rensa::testing::check_allclose;

TEST_CASE("grad: returns grads and leaves .grad alone without set_grad", "[autograd]") {
    const Variable x = scalar(3.0), w = scalar(2.0);
    const Variable y = x * x * w;  // dy/dx = 2xw = 12, dy/dw = x^2 = 9
    const std::vector<Variable> g = grad({y}, {x, w});
    CHECK(g[0].item() == 12.0);
    CHECK(g[1].item() == 9.0);
    CHECK_FALSE(x.grad().defined());
    CHECK_FALSE(w.grad().defined());
    CHECK_FALSE(y.grad().defined());
}

TEST_CASE("grad: set_grad replaces the inputs' grads", "[autograd]") {
    const Variable x = scalar(3.0);
    x.set_grad(Array::from_vector<double>({100.0}, {}));
    const std::vector<Variable> g = grad({x * 5.0}, {x}, {}, {.set_grad = true});
    CHECK(x.grad().item<double>() == 5.0);  // replaced, not accumulated
    CHECK(x.grad_var() == g[0]);
}

TEST_CASE("grad: gradients flow only along paths from the inputs", "[autograd]") {
    const Variable x = scalar(2.0), w = scalar(3.0);
    const Variable h = x * w;  // an intermediate input
    const Variable y = h * h;
    const std::vector<Variable> g = grad({y}, {h});
    CHECK(g[0].item() == 12.0);  // 2h
    CHECK_FALSE(x.grad().defined());
    const std::vector<Variable> both = grad({y}, {h, x});
    CHECK(both[0].item() == 12.0);
    CHECK(both[1].item() == 36.0);  // 2h * w
    const Variable unrelated = scalar(1.0);
    CHECK_FALSE(grad({y}, {unrelated})[0].defined());
}

TEST_CASE("grad: explicit grad outputs, retain_grad and errors", "[autograd]") {
    const Variable x = var({1, 2}, {2});
    const Variable h = x * 3.0;
    const Variable y = h * h;
    const Variable gy(Array::from_vector<double>({1, -1}, {2}), false);
    const std::vector<Variable> g = grad({y}, {x}, {gy}, {.retain_grad = true});
    check_allclose(g[0].array(), {18, -36}, {2}, {0, 0});  // 2h * 3 * gy
    check_allclose(h.grad(), {6, -12}, {2}, {0, 0});
    CHECK_THROWS_AS(grad({y}, {x}), ValueError);
    CHECK_THROWS_AS(grad({y}, {x}, {Variable(ops::ones({3}, Dtype::kFloat64), false)}), DimensionError);
}

TEST_CASE("grad: the input itself as output", "[autograd]") {
    const Variable x = scalar(4.0);
    CHECK(grad({x}, {x})[0].item() == 1.0);
}

TEST_CASE("grad: double backprop through grad() (x^3 and tanh)", "[autograd]") {
    const Variable x = scalar(0.5);
    const Variable y = pow(x, 3) + test::tanh(x);
    const Variable gx = grad({y}, {x}, {}, {.enable_double_backprop = true})[0];
    const double t = std::tanh(0.5);
    CHECK(gx.item() == Approx(3 * 0.25 + 1 - t * t));
    const Variable ggx = grad({gx}, {x})[0];
    CHECK(ggx.item() == Approx(6 * 0.5 - 2 * t * (1 - t * t)));
}
