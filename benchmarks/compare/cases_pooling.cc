// Pooling case: max_pooling_2d of x (100, 32, 28, 28) float32 with ksize 2, stride 2, no
// padding and cover_all=false (PyTorch's default floor mode), forward + backward from a
// gradient of ones; the grad of x is cleared every step (torch_cases.py: F.max_pool2d).

#include "autograd/variable.h"
#include "benchmarks/compare/cases.h"
#include "core/ops/creation.h"
#include "core/ops/random.h"
#include "functions/pooling.h"

namespace rensa::bench {
namespace {

std::function<void()> max_pooling_2d_step() {
    const Variable x(ops::normal({100, 32, 28, 28}), true);
    return [x] {
        x.cleargrad();
        const Variable y = functions::max_pooling_2d(x, 2, {.stride = 2, .pad = 0, .cover_all = false});
        y.set_grad(ops::ones(y.shape()));
        y.backward();
    };
}

}  // namespace

std::vector<CompareCase> pooling_cases() { return {{"max_pooling_2d", max_pooling_2d_step}}; }

}  // namespace rensa::bench
