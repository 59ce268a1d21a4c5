// The GEMM bound of train_mlp: times the GEMMs of one training step of the MLP
// 784-1000-1000-10 at batch 100, as rensa's linear (functions/connection/linear.cc) runs
// them, and prints the images/s a step made of nothing else would reach. run.py prints
// rensa's images/s as a percentage of it.
//   gemm_bound [--iters N] [--warmup N] [--dtype float32|bfloat16]
//
// Per layer, the calls and views of linear.cc (bound_common.h, add_linear_layer); l1 has
// no gx, as in training, where the data needs no gradient.

#include <memory>
#include <string>

#include "benchmarks/train_mlp/bound_common.h"

using namespace rensa;

int main(int argc, char** argv) {
    const bench::BoundArgs args = bench::parse_bound_args(argc, argv);
    const int64_t batch = 100;
    bench::StepTimer timer;
    bench::add_linear_layer(timer, "l1 784x1000", batch, 784, 1000, false, args.dtype);
    bench::add_linear_layer(timer, "l2 1000x1000", batch, 1000, 1000, true, args.dtype);
    bench::add_linear_layer(timer, "l3 1000x10", batch, 1000, 10, true, args.dtype);
    timer.run(args, "mlp gemm bound", batch);
    return 0;
}
