"""train_convnet: conv5x5 32 (pad 2), relu, max pool 2, conv5x5 64 (pad 2), relu, max pool 2,
linear 1024, relu, linear 10; MomentumSGD(lr 0.01, momentum 0.9), batch 100, Fashion-MNIST,
rensa (build/benchmarks/train_convnet) against PyTorch. Usage (from the repository root):
    .venv-bench/bin/python benchmarks/train_convnet/run.py [--build build] [--rounds 3] [--iterations 200]
        [--loop trainer|iterator|manual] [--threads 1,2] [--dtype float32|mixed_bf16]
        [--accuracy-epochs N] [--json FILE]
bench_common.py says what each runs and prints.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "train_mlp"))
import bench_common  # noqa: E402


def torch_child(iterations, threads, dtype, epochs):
    import torch
    from torch import nn
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(7 * 7 * 64, 1024), nn.ReLU(), nn.Linear(1024, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    bench_common.torch_train(model, optimizer, (1, 28, 28), iterations, threads=threads, dtype=dtype,
                             epochs=epochs)


if __name__ == "__main__":
    bench_common.main("convnet", 200, torch_child, "conv_bound")
