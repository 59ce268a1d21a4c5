// The compute bound of train_convnet: times what one training step of its ConvNet at
// batch 100 must compute, each piece alone, and prints the images/s a step made of
// nothing else would reach (run.py prints rensa's images/s as a percentage of it):
//   conv1 x (100, 1, 28, 28) W (32, 1, 5, 5) pad 2: F::convolution_2d forward, and its
//         backward (filter and bias only: the data needs no gradient);
//   conv2 x (100, 32, 14, 14) W (64, 32, 5, 5) pad 2: forward, backward (data, filter, bias);
//   fc1 3136 -> 1024 and fc2 1024 -> 10: the GEMMs of linear (bound_common.h).
// The convolutions run through F::convolution_2d (oneDNN's convolution underneath in the
// default build); relu, pooling and the loss are left out.
//   conv_bound [--iters N] [--warmup N] [--dtype float32|bfloat16]

#include <memory>
#include <string>

#include "autograd/variable.h"
#include "benchmarks/train_mlp/bound_common.h"
#include "functions/connection/convolution.h"

using namespace rensa;

namespace {

void add_conv(bench::StepTimer& timer, const std::string& name, const Shape& x_shape, const Shape& w_shape,
              bool need_gx, Dtype dtype) {
    const Variable x(ops::uniform(x_shape, 0.0, 1.0, dtype), need_gx);
    const Variable W(ops::normal(w_shape, 0.0, 0.05, dtype));
    const Variable b(ops::normal({w_shape[0]}, 0.0, 0.05, dtype));
    auto y = std::make_shared<Variable>();
    const Shape y_shape{x_shape[0], w_shape[0], x_shape[2], x_shape[3]};  // 5x5, pad 2, stride 1
    const Array gy = ops::normal(y_shape, 0.0, 0.05, dtype);
    timer.add(name + " forward", [=] { *y = functions::convolution_2d(x, W, b, {.stride = 1, .pad = 2}); });
    timer.add(name + " backward", [=] {
        x.cleargrad();
        W.cleargrad();
        b.cleargrad();
        y->set_grad(gy);
        y->backward();
    });
}

}  // namespace

int main(int argc, char** argv) {
    const bench::BoundArgs args = bench::parse_bound_args(argc, argv);
    const int64_t batch = 100;
    bench::StepTimer timer;
    add_conv(timer, "conv1 1->32 k5 28x28", {batch, 1, 28, 28}, {32, 1, 5, 5}, false, args.dtype);
    add_conv(timer, "conv2 32->64 k5 14x14", {batch, 32, 14, 14}, {64, 32, 5, 5}, true, args.dtype);
    bench::add_linear_layer(timer, "fc1 3136x1024", batch, 7 * 7 * 64, 1024, true, args.dtype);
    bench::add_linear_layer(timer, "fc2 1024x10", batch, 1024, 10, true, args.dtype);
    timer.run(args, "convnet conv+gemm bound", batch);
    return 0;
}
