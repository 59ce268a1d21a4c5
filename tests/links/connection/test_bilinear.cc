// Bilinear: forward against F::bilinear, nobias, initial_bias, gradients, copies, devices,
// serialization and errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "core/random.h"
#include "functions/connection.h"
#include "links/connection/bilinear.h"
#include "links/initializers.h"
#include "tests/links/connection/connection_testing.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("Bilinear: forward matches F::bilinear", "[links][connection]") {
    seed(0);
    L::Bilinear link(2, 3, 4);
    CHECK(link.W.shape() == Shape{2, 3, 4});
    CHECK(link.V1.shape() == Shape{2, 4});
    CHECK(link.V2.shape() == Shape{3, 4});
    check_allclose(link.b.array(), {0, 0, 0, 0}, {4}, {0.0, 0.0});
    link.b.array().assign(random_array({4}));
    const Variable e1(random_array({5, 2})), e2(random_array({5, 3}));
    const Variable y = link(e1, e2);
    CHECK(y.shape() == Shape{5, 4});
    check_allclose(y.array(), F::bilinear(e1, e2, link.W, link.V1, link.V2, link.b).array());
}

TEST_CASE("Bilinear: nobias and initial_bias", "[links][connection]") {
    seed(1);
    L::Bilinear nobias(2, 3, 4, true);
    CHECK(param_names(nobias) == std::vector<std::string>{"/W"});
    const Variable e1(random_array({5, 2})), e2(random_array({5, 3}));
    check_allclose(nobias(e1, e2).array(), F::bilinear(e1, e2, nobias.W).array());
    L::Bilinear given(
        1, 1, 1, false, initializers::constant(2.0),
        L::BilinearInitialBias{initializers::constant(3.0), initializers::constant(4.0), initializers::constant(5.0)});
    const Variable a(make_array({2}, {1, 1}, Dtype::kFloat32)), c(make_array({3}, {1, 1}, Dtype::kFloat32));
    check_allclose(given(a, c).array(), {2 * 2 * 3 + 3 * 2 + 4 * 3 + 5}, {1, 1}, {1e-6, 1e-6});
}

TEST_CASE("Bilinear: gradients", "[links][connection]") {
    seed(2);
    L::Bilinear link(2, 3, 2);
    link.b.array().assign(random_array({2}));
    to_float64(link);
    check_link_gradients(link, {random_array({3, 2}, Dtype::kFloat64), random_array({3, 3}, Dtype::kFloat64)});
}

TEST_CASE("Bilinear: namedparams, copy, device, NPZ round trip and errors", "[links][connection]") {
    seed(3);
    L::Bilinear link(2, 3, 2);
    CHECK(param_names(link) == std::vector<std::string>{"/W", "/V1", "/V2", "/b"});
    CHECK(serialized_keys(link) == std::vector<std::string>{"W", "V1", "V2", "b"});
    const std::vector<Array> xs{random_array({3, 2}), random_array({3, 3})};
    check_copy_shares_arrays(link, xs);
    check_to_device_round_trip(link, xs);
    L::Bilinear dst(2, 3, 2);
    check_npz_round_trip(link, dst, "bilinear");
    const Variable e1(ops::zeros({3, 2})), e2(ops::zeros({3, 4}));
    CHECK_THROWS_AS(link(e1, e2), DimensionError);
    CHECK_THROWS_WITH(link(e1, e2), Catch::Contains("Bilinear") && Catch::Contains("right_size=3"));
    CHECK_THROWS_AS(link(e1), NotImplementedError);  // Bilinear takes (e1, e2)
    CHECK_THROWS_AS(link.forward(std::vector<Variable>{e1}), ValueError);
}
