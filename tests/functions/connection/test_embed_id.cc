// embed_id: forward against a float64 loop reference, gradients of W, ignore_label, errors.

#include <catch2/catch.hpp>

#include <optional>

#include "core/ops/creation.h"
#include "functions/connection.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

namespace {

// y[..., u] = W[x[...], u], zeros where x == ignore_label.
Array embed_reference(const Arrays& xs, std::optional<int64_t> ignore_label) {
    const std::vector<double> ids = to_doubles(xs[0]), W = to_doubles(xs[1]);
    const int64_t units = xs[1].shape()[1];
    std::vector<double> y;
    for (const double id : ids) {
        const auto row = static_cast<int64_t>(id);
        for (int64_t u = 0; u < units; ++u) {
            y.push_back(ignore_label && row == *ignore_label ? 0.0 : W[static_cast<size_t>(row * units + u)]);
        }
    }
    Shape shape = xs[0].shape();
    shape.push_back(units);
    return f64(y, shape);
}

void check_embed(const Shape& x_shape, Dtype id_dtype, std::optional<int64_t> ignore_label) {
    const int64_t low = ignore_label ? -1 : 0;
    check_function({
        .name = "embed_id",
        .inputs = {{.shape = x_shape, .values = integers(low, 4), .dtype = id_dtype}, {.shape = {4, 3}}},
        .func = [ignore_label](const Vars& xs) { return Vars{F::embed_id(xs[0], xs[1], ignore_label)}; },
        .reference = [ignore_label](const Arrays& xs) { return Arrays{embed_reference(xs, ignore_label)}; },
        .backward = shape_size(x_shape) > 0,
        .double_backward = shape_size(x_shape) > 0,
    });
}

}  // namespace

TEST_CASE("embed_id", "[functions][connection]") {
    check_embed({5}, Dtype::kInt32, std::nullopt);
    check_embed({2, 3}, Dtype::kInt64, std::nullopt);
    check_embed({}, Dtype::kInt32, std::nullopt);
    check_embed({0}, Dtype::kInt32, std::nullopt);
}

TEST_CASE("embed_id: ignore_label", "[functions][connection]") {
    check_embed({2, 4}, Dtype::kInt32, -1);
    // Repeated ids accumulate their gradients; ignored ones add nothing.
    const Variable x(Array::from_vector<int32_t>({1, -1, 1, 0}, {4}), false);
    const Variable W(ops::ones({2, 2}));
    const Variable y = F::embed_id(x, W, -1);
    y.set_grad(ops::ones({4, 2}));
    y.backward();
    CHECK(W.grad().to_vector<float>() == std::vector<float>{1, 1, 2, 2});
    CHECK(y.array().to_vector<float>() == std::vector<float>{1, 1, 0, 0, 1, 1, 1, 1});
}

TEST_CASE("embed_id: errors", "[functions][connection]") {
    const Variable W(ops::zeros({3, 2}));
    const Variable x(Array::from_vector<int32_t>({0, 2, 1, 3}, {2, 2}), false);
    CHECK_THROWS_AS(F::embed_id(x, W), ValueError);
    CHECK_THROWS_WITH(F::embed_id(x, W), Catch::Contains("x(1, 1) = 3") && Catch::Contains("len(W) = 3"));
    const Variable neg(Array::from_vector<int32_t>({0, -1}, {2}), false);
    CHECK_THROWS_WITH(F::embed_id(neg, W), Catch::Contains("x(1,) = -1"));
    CHECK_THROWS_WITH(F::embed_id(neg, W, -2), Catch::Contains("x(1,) = -1"));
    CHECK_NOTHROW(F::embed_id(neg, W, -1));
    CHECK_THROWS_AS(F::embed_id(Variable(ops::zeros({2})), W), DtypeError);
    CHECK_THROWS_AS(F::embed_id(neg, Variable(ops::zeros({3, 2}, Dtype::kInt32))), DtypeError);
    CHECK_THROWS_AS(F::embed_id(neg, Variable(ops::zeros({3}))), DimensionError);
}
