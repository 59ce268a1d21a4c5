// DecorrelatedBatchNormalization (issue 23): initial statistics, training mode is
// F::decorrelated_batch_normalization updating avg_mean / avg_projection in place, test mode
// the fixed form, fine-tuning, NPZ keys, errors.

#include <catch2/catch.hpp>

#include "autograd/modes.h"
#include "core/ops/creation.h"
#include "core/ops/random.h"
#include "core/random.h"
#include "functions/normalization.h"
#include "links/normalization/decorrelated_batch_normalization.h"
#include "tests/links/link_check.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("DecorrelatedBatchNormalization: modes and statistics", "[links][normalization]") {
    L::DecorrelatedBatchNormalization dbn(4, 2, 0.9, 2e-5, Dtype::kFloat64);
    CHECK(dbn.avg_mean.shape() == Shape{2, 2});
    CHECK(to_doubles(dbn.avg_projection) == std::vector<double>{1, 0, 0, 1, 1, 0, 0, 1});
    seed(8);
    const Array x = ops::uniform({6, 4, 3}, -1, 1, Dtype::kFloat64);
    const Array rm = dbn.avg_mean.copy(), rp = dbn.avg_projection.copy();
    const Variable expected = F::decorrelated_batch_normalization(
        Variable(x), {.groups = 2, .running_mean = rm, .running_projection = rp, .decay = 0.9});
    CHECK(to_doubles(dbn(Variable(x)).array()) == to_doubles(expected.array()));
    CHECK(to_doubles(dbn.avg_mean) == to_doubles(rm));
    CHECK(to_doubles(dbn.avg_projection) == to_doubles(rp));
    {
        ConfigScope test{&Config::train, false};
        const Variable fixed = F::fixed_decorrelated_batch_normalization(Variable(x), Variable(dbn.avg_mean),
                                                                         Variable(dbn.avg_projection), 2);
        CHECK(to_doubles(dbn(Variable(x)).array()) == to_doubles(fixed.array()));
    }
    // Fine-tuning from N = 0: decay 0, so avg_mean becomes the batch mean.
    dbn.start_finetuning();
    (void)dbn.forward(Variable(x), {.finetune = true});
    CHECK(dbn.N == 1);
    const std::vector<double> mean = to_doubles(ops::mean(x, Axes{0, 2}));
    const std::vector<double> m = to_doubles(dbn.avg_mean);
    for (size_t i = 0; i < 4; ++i) CHECK(m[i] == Approx(mean[i]));

    L::DecorrelatedBatchNormalization target(4, 2, 0.9, 2e-5, Dtype::kFloat64);
    CHECK(npz_round_trip(dbn, target) == std::vector<std::string>{"N", "avg_mean", "avg_projection"});
    CHECK(to_doubles(target.avg_projection) == to_doubles(dbn.avg_projection));
    CHECK(target.N == 1);
    CHECK_THROWS_WITH(L::DecorrelatedBatchNormalization(6, 4), Catch::Contains("Expect: size % groups == 0"));
}
