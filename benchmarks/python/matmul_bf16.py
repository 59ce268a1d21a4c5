"""F.matmul at the MNIST MLP's GEMM shapes (batch 100, 784-1000-1000-10), float32 and bfloat16
side by side in one process, medians of --rounds rounds (issue 24: bfloat16 matmul on the CPU).

To compare two builds, run it once per build's Python package, alternating:
    OMP_NUM_THREADS=1 PYTHONPATH=build/python .venv/bin/python benchmarks/python/matmul_bf16.py
    OMP_NUM_THREADS=1 PYTHONPATH=<other build>/python .venv/bin/python benchmarks/python/matmul_bf16.py
"""
import argparse
import statistics
import time

import numpy

import rensa
import rensa.functions as F

# name, m, n, k, transa, transb: (m, k) @ (k, n) read through transposes as Linear reads them.
SHAPES = [('y1 = x W1^T', 100, 1000, 784, False, True), ('y2 = h W2^T', 100, 1000, 1000, False, True),
          ('gW1 = gy^T x', 1000, 784, 100, True, False), ('gW2 = gy^T h', 1000, 1000, 100, True, False),
          ('gx2 = gy W2', 100, 1000, 1000, False, False)]


def median_seconds(a, b, transa, transb, rounds, calls=20):
    F.matmul(a, b, transa, transb)  # first call: oneDNN builds its kernel
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            F.matmul(a, b, transa, transb)
        times.append((time.perf_counter() - start) / calls)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--rounds', type=int, default=7)
    args = parser.parse_args()
    rng = numpy.random.default_rng(0)
    with rensa.no_backprop_mode():
        for name, m, n, k, transa, transb in SHAPES:
            a0 = rng.uniform(-1, 1, (k, m) if transa else (m, k)).astype(numpy.float32)
            b0 = rng.uniform(-1, 1, (n, k) if transb else (k, n)).astype(numpy.float32)
            cells = []
            for dtype in ('float32', 'bfloat16'):
                a, b = F.cast(rensa.Variable(a0), dtype), F.cast(rensa.Variable(b0), dtype)
                t = median_seconds(a, b, transa, transb, args.rounds)
                cells.append('{} {:7.0f} us {:6.1f} GFLOP/s'.format(dtype, t * 1e6, 2 * m * n * k / t * 1e-9))
            print('{:<13} {}'.format(name, ' | '.join(cells)), flush=True)


if __name__ == '__main__':
    main()
