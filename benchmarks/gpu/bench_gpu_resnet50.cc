// ResNet-50 training step on one GPU (benchmarks/README.md, "GPU"): links::ResNet50
// (Chainer's ImageNet example), batch 64 of 224x224 random images, softmax cross
// entropy, MomentumSGD(lr 0.1, momentum 0.9). bfloat16: convolution and linear weights
// and the input in bfloat16, batch normalization parameters in float32 (the
// BatchNormalization link's rule for half inputs). PyTorch runs the same in run.py.
// Prints one JSON line with images/s over the timed steps (after warm-up, the device
// synchronised around the timed steps). Without a GPU it prints "no GPU" and exits 0.
//   bench_gpu_resnet50 [--dtype float32|bfloat16] [--batch 64] [--steps 20] [--warmup 3]

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "core/backend.h"
#include "core/ops/random.h"
#include "core/random.h"
#include "cuda/cuda_backend.h"
#include "cuda/handles.h"
#include "functions/functions.h"
#include "links/model/vision/resnet50.h"
#include "optimizers/momentum_sgd.h"

using namespace rensa;

int main(int argc, char** argv) {
    std::string dtype_name = "float32";
    int64_t batch = 64;
    int steps = 20, warmup = 3;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--dtype") == 0) dtype_name = argv[i + 1];
        if (std::strcmp(argv[i], "--batch") == 0) batch = std::atoll(argv[i + 1]);
        if (std::strcmp(argv[i], "--steps") == 0) steps = std::atoi(argv[i + 1]);
        if (std::strcmp(argv[i], "--warmup") == 0) warmup = std::atoi(argv[i + 1]);
    }
    if (cuda::install_backend() == 0) {
        std::printf("no GPU\n");
        return 0;
    }
    const Device gpu = Device::cuda(0);
    const Dtype dtype = dtype_name == "bfloat16" ? Dtype::kBFloat16 : Dtype::kFloat32;
    cuda::set_allow_tf32(false);  // PyTorch's default for convolutions is TF32 on; run.py turns it off to match

    seed(0);
    auto model = std::make_shared<L::ResNet50>(1000);
    model->to_device(gpu);
    if (dtype != Dtype::kFloat32) {
        for (const auto& [name, param] : model->namedparams()) {
            if (name.find("bn") == std::string::npos) param.set_array(param.array().astype(dtype));
        }
    }
    auto optimizer =
        std::make_shared<optimizers::MomentumSGD>(optimizers::MomentumSGDOptions{.lr = 0.1, .momentum = 0.9});
    optimizer->setup(model);

    const Variable x(ops::uniform({batch, 3, 224, 224}, -1.0, 1.0, Dtype::kFloat32, gpu).astype(dtype), false);
    const Variable t(ops::uniform({batch}, 0.0, 1000.0, Dtype::kFloat32, gpu).astype(Dtype::kInt32), false);
    Backend& backend = global_context().backend(gpu);
    double loss = 0;
    auto step = [&] {
        model->cleargrads();
        const Variable l = F::softmax_cross_entropy((*model)(x), t);
        l.backward();
        optimizer->update();
        return l;
    };
    for (int i = 0; i < warmup; ++i) (void)step();
    backend.synchronize(gpu.index);
    const auto start = std::chrono::steady_clock::now();
    Variable last;
    for (int i = 0; i < steps; ++i) last = step();
    backend.synchronize(gpu.index);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    loss = last.array().astype(Dtype::kFloat64).item<double>();
    std::printf(
        "{\"bench\": \"resnet50_train\", \"framework\": \"rensa\", \"dtype\": \"%s\", \"batch\": %lld, \"steps\": %d, "
        "\"step_ms\": %.2f, \"images_per_s\": %.1f, \"loss\": %.4f}\n",
        dtype_name.c_str(), static_cast<long long>(batch), steps, seconds * 1e3 / steps,
        static_cast<double>(batch) * steps / seconds, loss);
    return 0;
}
