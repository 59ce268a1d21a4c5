// zoneout: ratio 0 (all x) and 1 (all h) through the harness, gradients and double backprop;
// about `ratio` of the elements from h in training, x itself outside training, errors.

#include <catch2/catch.hpp>

#include "autograd/modes.h"
#include "core/ops/creation.h"
#include "core/random.h"
#include "functions/noise.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("zoneout with ratio 0 and 1", "[functions][noise]") {
    for (const double ratio : {0.0, 1.0}) {
        check_function({
            .name = "zoneout",
            .inputs = {{.shape = {3, 4}}, {.shape = {3, 4}}},
            .func = [ratio](const Vars& xs) { return Vars{F::zoneout(xs[0], xs[1], ratio)}; },
            .reference = [ratio](const Arrays& xs) { return Arrays{ratio == 1.0 ? xs[0] : xs[1]}; },
        });
    }
}

TEST_CASE("zoneout: training mixes h and x, test mode returns x", "[functions][noise]") {
    rensa::seed(4);
    const Variable h(ops::ones({400})), x(ops::zeros({400}));
    const std::vector<double> y = to_doubles(F::zoneout(h, x, 0.3).array());
    int from_h = 0;
    for (double v : y) from_h += v == 1.0;
    CHECK(from_h > 90);
    CHECK(from_h < 150);
    ConfigScope test{&Config::train, false};
    CHECK(F::zoneout(h, x, 0.3).array().raw_data() == x.array().raw_data());
}

TEST_CASE("zoneout: errors", "[functions][noise]") {
    const Variable h(ops::zeros({2, 3}));
    CHECK_THROWS_WITH(F::zoneout(h, h, 1.5), Catch::Contains("zoneout: Expect: 0 <= ratio <= 1, Actual: 1.5"));
    CHECK_THROWS_AS(F::zoneout(h, Variable(ops::zeros({3, 2})), 0.5), DimensionError);
    CHECK_THROWS_AS(F::zoneout(h, Variable(ops::zeros({2, 3}, Dtype::kFloat64)), 0.5), DtypeError);
    CHECK_THROWS_AS(F::zoneout(Variable(ops::zeros({2, 3}, Dtype::kInt32)), h), DtypeError);
}
