// relu: forward against a float64 reference, gradients, double backprop, errors.

#include <catch2/catch.hpp>

#include "core/ops/creation.h"
#include "functions/activation.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("relu", "[functions][activation]") {
    for (const Shape& shape : {Shape{3, 4}, Shape{}, Shape{2, 0, 3}}) {
        check_function({
            .name = "relu",
            .inputs = {{.shape = shape, .values = away_from({0.0})}},
            .func = [](const Vars& xs) { return Vars{F::relu(xs[0])}; },
            .reference = [](const Arrays& xs) { return Arrays{map(xs[0], [](double v) { return v > 0 ? v : 0.0; })}; },
            .backward = shape_size(shape) > 0,
            .double_backward = shape_size(shape) > 0,
        });
    }
}

TEST_CASE("relu: integer input is a dtype error", "[functions][activation]") {
    CHECK_THROWS_AS(F::relu(Variable(ops::zeros({2}, Dtype::kInt32))), DtypeError);
}
