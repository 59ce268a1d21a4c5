// L::Swish and L::SimplifiedDropconnect: their parameters (Chainer's names, defaults and lazy
// shapes), values against F, gradients, NPZ keys.

#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <vector>

#include "core/ops/creation.h"
#include "core/ops/random.h"
#include "core/random.h"
#include "functions/activation.h"
#include "functions/connection.h"
#include "functions/noise.h"
#include "links/activation/simplified_dropconnect.h"
#include "links/activation/swish.h"
#include "links/initializers.h"
#include "tests/links/link_check.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("Swish: beta of a given shape, or x.shape[1:] at the first call", "[links][activation]") {
    L::Swish swish(Shape{3}, 0.5);
    REQUIRE(swish.namedparams().size() == 1);
    CHECK(swish.namedparams()[0].first == "/beta");
    CHECK(to_doubles(swish.beta.array()) == std::vector<double>{0.5, 0.5, 0.5});
    const Variable x(ops::uniform({2, 3}, -1, 1));
    check_allclose(swish(x).array(), F::swish(x, swish.beta).array());
    L::Swish lazy(std::nullopt, 2.0);
    CHECK_FALSE(lazy.beta.is_initialized());
    const Variable x3(ops::uniform({2, 3, 4}, -1, 1));
    check_allclose(lazy(x3).array(), F::swish(x3, Variable(ops::full({3, 4}, Scalar(2.0), Dtype::kFloat32))).array());
    CHECK(lazy.beta.shape() == Shape{3, 4});
    CHECK_THROWS_AS(swish(Variable(ops::uniform({2, 4}))), DimensionError);

    seed(3);
    L::Swish g(Shape{3}, 1.0);
    g.beta.set_array(ops::uniform({3}, 0.5, 1.5, Dtype::kFloat64));
    const auto f = [&g](const std::vector<Variable>& xs) { return g(xs[0]); };
    check_link_backward(f, {ops::uniform({2, 3}, -1, 1, Dtype::kFloat64)}, {g.beta},
                        ops::uniform({2, 3}, -1, 1, Dtype::kFloat64));
    L::Swish loaded(Shape{3});
    CHECK(npz_round_trip(g, loaded) == std::vector<std::string>{"beta"});
    check_allclose(loaded.beta.array(), g.beta.array());  // float64 saved, float32 loaded
}

TEST_CASE("SimplifiedDropconnect: parameters, values with a mask, train=false, lazy in_size", "[links][activation]") {
    seed(1);
    L::SimplifiedDropconnect l(6, 4, 0.25);
    const auto params = l.namedparams();
    REQUIRE(params.size() == 2);
    CHECK(params[0].first == "/W");
    CHECK(params[1].first == "/b");
    CHECK(l.W.shape() == Shape{4, 6});
    CHECK(to_doubles(l.b.array()) == std::vector<double>(4, 0.0));
    // HeNormal(1 / sqrt(2)): standard deviation sqrt(2 / in_size) / sqrt(2) = sqrt(1 / 6).
    L::SimplifiedDropconnect big(600, 100);
    const std::vector<double> w = to_doubles(big.W.array());
    double sq = 0;
    for (double v : w) sq += v * v;
    CHECK(std::sqrt(sq / double(w.size())) == Approx(std::sqrt(1.0 / 600)).epsilon(0.05));

    const Variable x(ops::uniform({3, 2, 3}, -1, 1));
    const Array mask = ops::bernoulli({3, 4, 6}, 0.5);
    check_allclose(l.forward(x, true, mask).array(), F::simplified_dropconnect(x, l.W, l.b, 0.25, true, mask).array());
    check_allclose(l.forward(x, false).array(), F::linear(x, l.W, l.b).array());
    L::SimplifiedDropconnect nobias(std::nullopt, 4, 0.5, true);
    CHECK_FALSE(nobias.W.is_initialized());
    CHECK(nobias(x).shape() == Shape{3, 4});
    CHECK(nobias.W.shape() == Shape{4, 6});
    CHECK(nobias.namedparams().size() == 1);

    L::SimplifiedDropconnect g(6, 4, 0.25, false, nullptr, initializers::constant(0.5));
    g.W.set_array(g.W.array().astype(Dtype::kFloat64));
    g.b.set_array(g.b.array().astype(Dtype::kFloat64));
    const Array fixed = ops::bernoulli({2, 4, 6}, 0.5);
    const auto f = [&g, fixed](const std::vector<Variable>& xs) { return g.forward(xs[0], true, fixed); };
    check_link_backward(f, {ops::uniform({2, 6}, -1, 1, Dtype::kFloat64)}, {g.W, g.b},
                        ops::uniform({2, 4}, -1, 1, Dtype::kFloat64));
    // The first mask given is a persistent, as in Chainer (a file without it loads too).
    L::SimplifiedDropconnect loaded(6, 4);
    CHECK(npz_round_trip(g, loaded) == std::vector<std::string>{"W", "b", "mask"});
    L::SimplifiedDropconnect plain(6, 4);
    CHECK(npz_round_trip(plain, loaded) == std::vector<std::string>{"W", "b"});
}
