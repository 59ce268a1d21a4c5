// EmbedID: lookups, ignore_label, the Normal(1) default, gradients of W, copies, devices,
// serialization and errors.

#include <catch2/catch.hpp>
#include <cmath>

#include "core/random.h"
#include "functions/connection.h"
#include "links/connection/embed_id.h"
#include "links/initializers.h"
#include "tests/links/connection/connection_testing.h"

using namespace rensa;
using namespace rensa::testing;

namespace {
Array ids(const std::vector<double>& values, const Shape& shape) { return make_array(values, shape, Dtype::kInt32); }
}  // namespace

TEST_CASE("EmbedID: rows of W at the ids", "[links][connection]") {
    L::EmbedID link(5, 3, initializers::from_array(make_array(iota(15), {5, 3}, Dtype::kFloat32)));
    REQUIRE(link.W.shape() == Shape{5, 3});
    const Variable y = link(Variable(ids({0, 4, 2, 2}, {2, 2}), false));
    CHECK(y.shape() == Shape{2, 2, 3});
    check_allclose(y.array(), {0, 1, 2, 12, 13, 14, 6, 7, 8, 6, 7, 8}, {2, 2, 3}, {0.0, 0.0});
}

TEST_CASE("EmbedID: ignore_label gives zero rows", "[links][connection]") {
    seed(0);
    L::EmbedID link(4, 2, nullptr, -1);
    CHECK(link.ignore_label() == -1);
    const Variable x(ids({1, -1, 3}, {3}), false);
    const Variable y = link(x);
    check_allclose(y.array(), F::embed_id(x, link.W, -1).array());
    const std::vector<double> values = to_doubles(y.array());
    CHECK(values[2] == 0.0);
    CHECK(values[3] == 0.0);
    CHECK(values[0] != 0.0);
}

TEST_CASE("EmbedID: default initializer is Normal(1)", "[links][connection]") {
    seed(1);
    L::EmbedID link(100, 50);
    const std::vector<double> w = to_doubles(link.W.array());
    double mean = 0, var = 0;
    for (const double v : w) mean += v;
    mean /= static_cast<double>(w.size());
    for (const double v : w) var += (v - mean) * (v - mean);
    CHECK(std::abs(mean) < 0.06);
    CHECK(std::sqrt(var / static_cast<double>(w.size())) == Approx(1.0).epsilon(0.05));
}

TEST_CASE("EmbedID: gradients", "[links][connection]") {
    seed(2);
    L::EmbedID link(4, 3, nullptr, 0);
    to_float64(link);
    check_link_gradients(link, {ids({1, 3, 0, 3}, {2, 2})});  // 0 is ignored: its row gets no gradient
    link.cleargrads();
    const Variable y = link(Variable(ids({1, 0}, {2}), false));
    y.set_grad(ops::uniform(y.shape(), -1.0, 1.0, Dtype::kFloat64));
    y.backward();
    const std::vector<double> grad = to_doubles(link.W.grad());
    CHECK(grad[0] == 0.0);  // row 0: ignore_label
    CHECK(grad[2] == 0.0);
    CHECK(grad[3] != 0.0);  // row 1
}

TEST_CASE("EmbedID: namedparams, copy, device and NPZ round trip", "[links][connection]") {
    seed(3);
    L::EmbedID link(4, 3);
    CHECK(param_names(link) == std::vector<std::string>{"/W"});
    CHECK(serialized_keys(link) == std::vector<std::string>{"W"});
    const std::vector<Array> xs{ids({1, 2}, {2})};
    check_copy_shares_arrays(link, xs);
    check_to_device_round_trip(link, xs);
    L::EmbedID dst(4, 3);
    check_npz_round_trip(link, dst, "embed_id");
}

TEST_CASE("EmbedID: ids out of range", "[links][connection]") {
    L::EmbedID link(4, 3);
    CHECK_THROWS_AS(link(Variable(ids({1, 4}, {2}), false)), ValueError);
    CHECK_THROWS_AS(link(Variable(ids({-1}, {1}), false)), ValueError);
}
