// Compare cases of the normalization family: batch normalization of a conv-sized NCHW
// batch and softmax cross entropy of 1000 x 1000 logits, each forward + backward.

#include "autograd/variable.h"
#include "benchmarks/compare/cases.h"
#include "core/ops/creation.h"
#include "core/ops/random.h"
#include "functions/loss.h"
#include "functions/normalization.h"

namespace rensa::bench {
namespace {

// x (100, 32, 28, 28), gamma and beta (32), batch statistics; backward w.r.t. all three
// from a gradient of ones.
std::function<void()> batch_normalization_step() {
    const Variable x(ops::normal({100, 32, 28, 28}), true);
    const Variable gamma(ops::ones({32}), true), beta(ops::zeros({32}), true);
    const Array gy = ops::ones(x.shape());
    return [x, gamma, beta, gy] {
        x.cleargrad();
        gamma.cleargrad();
        beta.cleargrad();
        const Variable y = functions::batch_normalization(x, gamma, beta);
        y.set_grad(gy);
        y.backward();
    };
}

// x (1000, 1000) logits, int32 labels in range, mean over the batch.
std::function<void()> softmax_cross_entropy_step() {
    const Variable x(ops::normal({1000, 1000}), true);
    const Variable t(ops::randint(0, 1000, {1000}, Dtype::kInt32), false);
    return [x, t] {
        x.cleargrad();
        const Variable loss = functions::softmax_cross_entropy(x, t);
        loss.backward();
    };
}

}  // namespace

std::vector<CompareCase> normalization_cases() {
    return {{"batch_normalization", batch_normalization_step}, {"softmax_cross_entropy", softmax_cross_entropy_step}};
}

}  // namespace rensa::bench
