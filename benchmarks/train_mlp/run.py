"""train_mlp: MLP 784-1000-1000-10 (ReLU), Adam, batch 100, one epoch of Fashion-MNIST,
rensa (build/benchmarks/train_mlp) against PyTorch. Usage (from the repository root):
    .venv-bench/bin/python benchmarks/train_mlp/run.py [--build build] [--rounds 3] [--iterations 600]
        [--loop trainer|iterator|manual] [--threads 1,2] [--dtype float32|mixed_bf16]
        [--accuracy-epochs N] [--json FILE]
bench_common.py says what each runs and prints.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_common  # noqa: E402


def torch_child(iterations, threads, dtype, epochs):
    import torch
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(784, 1000), torch.nn.ReLU(), torch.nn.Linear(1000, 1000),
                                torch.nn.ReLU(), torch.nn.Linear(1000, 10))
    optimizer = torch.optim.Adam(model.parameters())
    bench_common.torch_train(model, optimizer, (784,), iterations, threads=threads, dtype=dtype, epochs=epochs)


if __name__ == "__main__":
    bench_common.main("mlp", 600, torch_child, "gemm_bound")
