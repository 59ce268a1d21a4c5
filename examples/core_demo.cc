// The core demo (`make demo` until training lands): fits a linear regression with
// hand-written gradient descent on rensa arrays, using random numbers, matmul,
// broadcasting and reductions, and prints the loss as it falls.

#include <iostream>

#include "core/ops/creation.h"
#include "core/ops/linalg.h"
#include "core/ops/operators.h"
#include "core/ops/random.h"
#include "core/ops/reduction.h"
#include "core/random.h"

using rensa::Array;
namespace ops = rensa::ops;

int main() {
    rensa::seed(0);
    constexpr int64_t kSamples = 4096, kFeatures = 32;
    const Array x = ops::normal({kSamples, kFeatures});
    const Array w_true = ops::uniform({kFeatures, 1}, -1.0, 1.0);
    const Array y = ops::matmul(x, w_true) + 0.01 * ops::normal({kSamples, 1});
    std::cout << "x " << x.shape() << ", y " << y.shape() << "\n"
              << "true weights (first 4): " << w_true.index({rensa::Slice{0, 4, 1}}).transpose() << "\n";

    Array w = ops::zeros({kFeatures, 1});
    const double lr = 0.1;
    for (int step = 0; step <= 50; ++step) {
        const Array residual = ops::matmul(x, w) - y;
        const double loss = ops::mean(residual * residual).item<double>();
        if (step % 10 == 0) std::cout << "step " << step << "  mse " << loss << "\n";
        const Array grad = ops::matmul(x.transpose(), residual) * (2.0 / kSamples);
        w = w - lr * grad;
    }
    const double err = ops::max(ops::abs(w - w_true)).item<double>();
    std::cout << "fitted weights (first 4):    " << w.index({rensa::Slice{0, 4, 1}}).transpose() << "\n"
              << "largest weight error: " << err << "\n";
    return err < 0.01 ? 0 : 1;
}
