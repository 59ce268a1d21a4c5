// Activation cases: forward + backward of relu on float32 (100, 32, 28, 28), grad ones;
// x's grad cleared every step (torch_cases.py times the same with PyTorch).

#include "benchmarks/compare/cases.h"
#include "core/ops/creation.h"
#include "core/ops/random.h"
#include "functions/activation.h"

namespace rensa::bench {

std::vector<CompareCase> activation_cases() {
    return {{"relu", [] {
                 const Variable x(ops::normal({100, 32, 28, 28}));
                 return std::function<void()>([=] {
                     x.cleargrad();
                     const Variable y = F::relu(x);
                     y.set_grad(ops::ones(y.shape()));
                     y.backward();
                 });
             }}};
}

}  // namespace rensa::bench
