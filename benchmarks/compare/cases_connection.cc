// linear cases: batch 100, float32, forward + backward with respect to x, W and b.

#include "autograd/variable.h"
#include "benchmarks/compare/cases.h"
#include "core/ops/creation.h"
#include "core/ops/random.h"
#include "functions/connection.h"

namespace rensa::bench {
namespace {

CompareCase linear_case(int64_t in, int64_t out) {
    return {"linear_" + std::to_string(in) + "_" + std::to_string(out), [in, out] {
                const Variable x(ops::normal({100, in}));
                const Variable W(ops::normal({out, in}, 0.0, 0.05));
                const Variable b(ops::zeros({out}));
                const Array gy = ops::ones({100, out});
                return std::function<void()>([x, W, b, gy] {
                    for (const Variable& v : {x, W, b}) v.cleargrad();
                    const Variable y = F::linear(x, W, b);
                    y.set_grad(gy);
                    y.backward();
                });
            }};
}

}  // namespace

std::vector<CompareCase> connection_cases() { return {linear_case(784, 1000), linear_case(1000, 1000)}; }

}  // namespace rensa::bench
