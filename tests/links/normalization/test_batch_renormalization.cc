// BatchRenormalization (issue 23): training mode is F::batch_renormalization with the
// running statistics updated in place (fine-tuning included), test mode is
// fixed_batch_normalization; gradients through gamma and beta; Chainer's NPZ keys.

#include <catch2/catch.hpp>

#include "autograd/modes.h"
#include "core/ops/creation.h"
#include "core/ops/random.h"
#include "core/random.h"
#include "functions/normalization.h"
#include "links/normalization/batch_renormalization.h"
#include "tests/links/link_check.h"
#include "tests/testing/function_check.h"

using namespace rensa;
using namespace rensa::testing;

TEST_CASE("BatchRenormalization: training, test mode, fine-tuning", "[links][normalization]") {
    L::BatchRenormalization br(3, 1.5, 0.5, {.dtype = Dtype::kFloat64});
    seed(3);
    br.gamma.array().assign(ops::uniform({3}, 0.5, 1.5, Dtype::kFloat64));
    br.beta.array().assign(ops::uniform({3}, -1, 1, Dtype::kFloat64));
    br.avg_mean.assign(ops::uniform({3}, -1, 1, Dtype::kFloat64));
    br.avg_var.assign(ops::uniform({3}, 0.5, 1.5, Dtype::kFloat64));
    const Array x = ops::uniform({5, 3, 2}, -1, 1, Dtype::kFloat64);
    const Array mean0 = br.avg_mean.copy(), var0 = br.avg_var.copy();
    // The function on copies of the statistics gives the same output and the same update.
    const F::BatchRenormalizationOptions o{
        .running_mean = mean0.copy(), .running_var = var0.copy(), .update_statistics = true};
    const Variable expected = F::batch_renormalization(Variable(x), br.gamma, br.beta, 1.5, 0.5, o);
    const Variable y = br(Variable(x));
    CHECK(to_doubles(y.array()) == to_doubles(expected.array()));
    CHECK(to_doubles(br.avg_mean) == to_doubles(o.running_mean));
    CHECK(to_doubles(br.avg_var) == to_doubles(o.running_var));
    CHECK(to_doubles(br.avg_mean) != to_doubles(mean0));
    {
        ConfigScope test{&Config::train, false};
        const Variable fixed = F::fixed_batch_normalization(Variable(x), br.gamma, br.beta, Variable(br.avg_mean),
                                                            Variable(br.avg_var), br.eps);
        CHECK(to_doubles(br(Variable(x)).array()) == to_doubles(fixed.array()));
    }
    // Fine-tuning: N counts the batches and decay = 1 - 1 / N, so the first batch replaces
    // the statistics.
    br.start_finetuning();
    (void)br.forward(Variable(x), {.finetune = true});
    CHECK(br.N == 1);
    const std::vector<double> m = to_doubles(br.avg_mean);
    const std::vector<double> batch_mean = to_doubles(ops::mean(x, Axes{0, 2}));
    for (size_t c = 0; c < 3; ++c) CHECK(m[c] == Approx(batch_mean[c]));
}

TEST_CASE("BatchRenormalization: gradients and NPZ keys", "[links][normalization]") {
    L::BatchRenormalization br(3, 1.0, 0.0, {.dtype = Dtype::kFloat64});
    seed(4);
    br.gamma.array().assign(ops::uniform({3}, 0.5, 1.5, Dtype::kFloat64));
    const auto f = [&br](const std::vector<Variable>& xs) {
        const Array m = br.avg_mean.copy(), v = br.avg_var.copy();
        const Variable y = br(xs[0]);
        br.avg_mean.assign(m), br.avg_var.assign(v);  // every evaluation sees the same statistics
        return y;
    };
    check_link_backward(f, {ops::uniform({4, 3}, -1, 1, Dtype::kFloat64)}, {br.gamma, br.beta},
                        ops::uniform({4, 3}, -1, 1, Dtype::kFloat64));
    L::BatchRenormalization target(3);
    CHECK(npz_round_trip(br, target) == std::vector<std::string>{"N", "avg_mean", "avg_var", "beta", "gamma"});
    const auto copy = std::dynamic_pointer_cast<L::BatchRenormalization>(br.copy());
    REQUIRE(copy);
    CHECK(copy->rmax == 1.0);
    CHECK_THROWS_AS(L::BatchRenormalization(3, 1, 0, {.axis = Axes{0}}), ValueError);
}
