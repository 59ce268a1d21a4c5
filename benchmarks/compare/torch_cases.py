"""PyTorch equivalents of bench_compare's cases (benchmarks/compare/cases.h).

Each case builds its inputs once and returns one step: forward, then backward with
gradients of ones, clearing the input grads first (as the rensa side does).

Run as a worker by compare.py: ``python torch_cases.py --serve`` reads lines
``CASE ITERS WARMUP`` on stdin and answers one JSON line each
(``{"case": ..., "times": [...], "median": ...}``); ``--list`` prints the names.
"""

import argparse
import json
import statistics
import sys
import time

import torch
import torch.nn.functional as F


def _leaf(*shape, scale=1.0):
    return (torch.randn(*shape) * scale).requires_grad_()


def _step(leaves, forward):
    """A step: clear grads, forward, backward with a gradient of ones."""

    def step():
        for v in leaves:
            v.grad = None
        y = forward()
        y.backward(torch.ones_like(y))

    return step


def linear(n_in, n_out):
    def setup():
        x, W, b = _leaf(100, n_in), _leaf(n_out, n_in, scale=0.05), _leaf(n_out, scale=0.0)
        return _step([x, W, b], lambda: F.linear(x, W, b))

    return setup


def conv(c_in, c_out, k, size, pad=0):
    def setup():
        x = _leaf(100, c_in, size, size)
        W = _leaf(c_out, c_in, k, k, scale=0.05)
        b = _leaf(c_out, scale=0.0)
        return _step([x, W, b], lambda: F.conv2d(x, W, b, padding=pad))

    return setup


def max_pooling_2d():
    x = _leaf(100, 32, 28, 28)
    return _step([x], lambda: F.max_pool2d(x, 2, 2))


def batch_normalization():
    x = _leaf(100, 32, 28, 28)
    gamma, beta = _leaf(32, scale=0.0).detach().add_(1).requires_grad_(), _leaf(32, scale=0.0)
    return _step([x, gamma, beta], lambda: F.batch_norm(x, None, None, gamma, beta, training=True, eps=2e-5))


def softmax_cross_entropy():
    logits = _leaf(1000, 1000)
    labels = torch.randint(0, 1000, (1000,))
    return _step([logits], lambda: F.cross_entropy(logits, labels))


def relu():
    x = _leaf(100, 32, 28, 28)
    return _step([x], lambda: F.relu(x))


CASES = {
    "linear_784_1000": linear(784, 1000),
    "linear_1000_1000": linear(1000, 1000),
    "conv_1_32_k5_28": conv(1, 32, 5, 28),
    "conv_32_64_k5_12": conv(32, 64, 5, 12),
    "conv_64_64_k3_32": conv(64, 64, 3, 32, pad=1),
    "max_pooling_2d": max_pooling_2d,
    "batch_normalization": batch_normalization,
    "softmax_cross_entropy": softmax_cross_entropy,
    "relu": relu,
}


def time_case(name, iters, warmup):
    step = CASES[name]()
    for _ in range(warmup):
        step()
    times = []
    for _ in range(iters):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return {"case": name, "times": times, "median": statistics.median(times)}


def serve(threads):
    torch.set_num_threads(threads)
    print(json.dumps({"ready": True, "threads": torch.get_num_threads()}), flush=True)
    for line in sys.stdin:
        name, iters, warmup = line.split()
        print(json.dumps(time_case(name, int(iters), int(warmup))), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--serve", action="store_true")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    if args.list:
        print("\n".join(CASES))
    elif args.serve:
        serve(args.threads)
    else:
        parser.error("--list or --serve")


if __name__ == "__main__":
    main()
