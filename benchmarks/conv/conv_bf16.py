"""bfloat16 against float32 convolutions on the CPU, between two rensa builds, side by side.

Each case is F.convolution_2d forward + backward (grads of x, W and b; gradient of ones) at
batch 100: conv_1_32_k5_28 (x (100, 1, 28, 28), W (32, 1, 5, 5), pad 2), conv_32_64_k5_14
(x (100, 32, 14, 14), W (64, 32, 5, 5), pad 2: the ConvNet of benchmarks/train_convnet) and
conv_64_64_k3_32 (x (100, 64, 32, 32), W (64, 64, 3, 3), pad 1). Every measurement runs in
its own child process with one thread (OMP_NUM_THREADS=1) and reports the median CPU time
(time.process_time) of --iters steps after 3 warm-up steps: on a loaded machine the CPU time
of one thread moves far less than wall time. The builds alternate within each round, and the
table shows the median over --rounds rounds.

Usage (from the repository root):
    .venv/bin/python benchmarks/conv/conv_bf16.py --python OLD/python NEW/python [--rounds 3] [--iters 5]
where each argument is a directory holding the built rensa package (build/python).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

CASES = {
    "conv_1_32_k5_28": ((100, 1, 28, 28), (32, 1, 5, 5), 2),
    "conv_32_64_k5_14": ((100, 32, 14, 14), (64, 32, 5, 5), 2),
    "conv_64_64_k3_32": ((100, 64, 32, 32), (64, 64, 3, 3), 1),
}


def child(case, dtype, iters):
    import time

    import numpy as np

    import rensa
    import rensa.functions as F

    xs, ws, pad = CASES[case]
    rng = np.random.default_rng(0)

    def array(values):
        return F.cast(rensa.Variable(values.astype(np.float32)), dtype).array

    x = rensa.Variable(array(rng.uniform(-1, 1, xs)))
    W = rensa.Variable(array(rng.normal(0, 0.1, ws)))
    b = rensa.Variable(array(rng.uniform(-1, 1, ws[0])))
    times = []
    for _ in range(iters + 3):
        start = time.process_time()
        x.cleargrad()
        W.cleargrad()
        b.cleargrad()
        y = F.convolution_2d(x, W, b, stride=1, pad=pad)
        y.grad = array(np.ones(y.shape))
        y.backward()
        times.append(time.process_time() - start)
    print(json.dumps({"ms": statistics.median(times[3:]) * 1e3}))


def measure(python_dir, case, dtype, iters):
    env = dict(os.environ, PYTHONPATH=python_dir, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    out = subprocess.run([sys.executable, __file__, "--child", case, dtype, str(iters)], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])["ms"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--python", nargs="+", help="rensa package directories to compare (build/python)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iters", type=int, default=5)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args.child[0], args.child[1], int(args.child[2]))
    results = {}
    for _ in range(args.rounds):
        for case in CASES:
            for dtype in ("float32", "bfloat16"):
                for python_dir in args.python:
                    results.setdefault((case, dtype, python_dir), []).append(
                        measure(python_dir, case, dtype, args.iters))
    print(f"load: {os.getloadavg()[0]:.1f}; median CPU ms per step (1 thread) over {args.rounds} rounds")
    print("case".ljust(20) + "dtype".ljust(10) + "".join(d[-40:].rjust(42) for d in args.python))
    for case in CASES:
        for dtype in ("float32", "bfloat16"):
            row = [statistics.median(results[(case, dtype, d)]) for d in args.python]
            print(case.ljust(20) + dtype.ljust(10) + "".join(f"{v:42.2f}" for v in row))


if __name__ == "__main__":
    main()
