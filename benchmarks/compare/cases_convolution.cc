// Convolution cases: forward + backward (x, W, b) of convolution_2d, float32, with bias,
// grad ones; grads cleared every step (torch_cases.py times the same with PyTorch).

#include "benchmarks/compare/cases.h"
#include "core/ops/creation.h"
#include "core/ops/random.h"
#include "functions/connection.h"

namespace rensa::bench {
namespace {

CompareCase conv_case(std::string name, Shape x_shape, Shape w_shape, int64_t pad) {
    return {std::move(name), [=] {
                const Variable x(ops::uniform(x_shape, -1.0, 1.0));
                const Variable W(ops::normal(w_shape, 0.0, 0.1));
                const Variable b(ops::uniform({w_shape[0]}, -1.0, 1.0));
                return std::function<void()>([=] {
                    x.cleargrad();
                    W.cleargrad();
                    b.cleargrad();
                    const Variable y = F::convolution_2d(x, W, b, {.stride = 1, .pad = pad});
                    y.set_grad(ops::ones(y.shape()));
                    y.backward();
                });
            }};
}

}  // namespace

std::vector<CompareCase> convolution_cases() {
    return {
        conv_case("conv_1_32_k5_28", {100, 1, 28, 28}, {32, 1, 5, 5}, 0),
        conv_case("conv_32_64_k5_12", {100, 32, 12, 12}, {64, 32, 5, 5}, 0),
        conv_case("conv_64_64_k3_32", {100, 64, 32, 32}, {64, 64, 3, 3}, 1),
    };
}

}  // namespace rensa::bench
