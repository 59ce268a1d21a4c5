"""Shared by benchmarks/train_mlp/run.py and benchmarks/train_convnet/run.py.

Runs the rensa program and the same training in PyTorch alternately (rensa, torch as
shipped, torch with GOMP_SPINCOUNT=0, per round), 2 threads each, and prints images/s,
peak RSS of each child (os.wait4's rusage) and the ratio against PyTorch's faster setting.
"""
import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import time


def fashion_mnist_folder():
    # The folder Debian's dataset-fashion-mnist package installs, from its file list.
    with open("/var/lib/dpkg/info/dataset-fashion-mnist.list") as f:
        for line in f:
            line = line.strip()
            if line.endswith("/train-images-idx3-ubyte.gz"):
                return os.path.dirname(line)
    raise SystemExit("Fashion-MNIST not found: install Debian's dataset-fashion-mnist")


def load_train():
    """(images float32 (60000, 784) in [0, 1], labels int64 (60000,)) as numpy arrays."""
    import numpy as np
    d = fashion_mnist_folder()
    with gzip.open(os.path.join(d, "train-images-idx3-ubyte.gz")) as f:
        img = np.frombuffer(f.read(), dtype=np.uint8, offset=16)
    with gzip.open(os.path.join(d, "train-labels-idx1-ubyte.gz")) as f:
        lab = np.frombuffer(f.read(), dtype=np.uint8, offset=8)
    images = img.reshape(-1, 784).astype(np.float32)
    images /= 255.0  # in place: no second 188 MB copy in the peak RSS
    return images, lab.astype(np.int64)


def torch_train(model, optimizer, x_shape, iterations, batch=100):
    """The PyTorch side: shuffle per epoch, gather the batch, train step; prints JSON."""
    import torch
    torch.set_num_threads(2)
    images, labels = load_train()
    x_all = torch.from_numpy(images).reshape((-1,) + tuple(x_shape))
    t_all = torch.from_numpy(labels)
    n = x_all.shape[0]
    loss_fn = torch.nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(0)
    order = None
    start = time.perf_counter()
    for it in range(iterations):
        pos = (it * batch) % n
        if pos == 0:
            order = torch.randperm(n, generator=gen)
        idx = order[pos:pos + batch]
        x = x_all.index_select(0, idx)
        t = t_all.index_select(0, idx)
        loss = loss_fn(model(x), t)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if it + 1 == iterations:
            last = loss.item()
    seconds = time.perf_counter() - start
    print(json.dumps({"images_per_s": iterations * batch / seconds, "seconds": seconds,
                      "iterations": iterations, "last_loss": last}))


def run_child(cmd, env_extra):
    """Runs cmd with 2 threads; returns (parsed JSON line, peak RSS in MiB)."""
    env = dict(os.environ, OMP_NUM_THREADS="2", **env_extra)
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{cmd} failed with {proc.returncode}")
    result = json.loads(out.strip().splitlines()[-1])
    return result, usage.ru_maxrss / 1024.0


def main(name, default_iterations, torch_child):
    parser = argparse.ArgumentParser(description=f"train_{name}: rensa against PyTorch")
    parser.add_argument("--build", default="build", help="the CMake build folder")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=default_iterations)
    parser.add_argument("--loop", choices=("trainer", "iterator", "manual"), default="trainer",
                        help="rensa's loop: Trainer + StandardUpdater, SerialIterator by hand, or hand-written")
    parser.add_argument("--torch-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.torch_child:
        torch_child(args.iterations)
        return
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.abspath(os.path.join(here, "..", ".."))
    program = os.path.join(root, args.build, "benchmarks", f"train_{name}")
    if not os.path.exists(program):
        program = os.path.join(args.build, "benchmarks", f"train_{name}")
    sides = {
        "rensa": ([program, str(args.iterations), "--loop", args.loop], {}),
        "rensa GOMP_SPINCOUNT=0": ([program, str(args.iterations), "--loop", args.loop], {"GOMP_SPINCOUNT": "0"}),
        "torch": ([sys.executable, os.path.abspath(sys.argv[0]), "--torch-child",
                   "--iterations", str(args.iterations)], {}),
        "torch GOMP_SPINCOUNT=0": ([sys.executable, os.path.abspath(sys.argv[0]), "--torch-child",
                                    "--iterations", str(args.iterations)], {"GOMP_SPINCOUNT": "0"}),
    }
    print(f"train_{name}: {args.iterations} iterations of batch 100, 2 threads, rensa's {args.loop} loop, load average "
          f"{os.getloadavg()[0]:.2f} at start", flush=True)
    results = {k: [] for k in sides}
    for r in range(args.rounds):
        for key, (cmd, env) in sides.items():
            res, rss = run_child(cmd, env)
            results[key].append((res["images_per_s"], rss))
            print(f"  round {r + 1} {key:24s} {res['images_per_s']:9.1f} images/s  "
                  f"peak RSS {rss:7.1f} MiB  last loss {res['last_loss']:.4f}", flush=True)
    med = {k: statistics.median(v[0] for v in vals) for k, vals in results.items()}
    rss = {k: max(v[1] for v in vals) for k, vals in results.items()}
    best_rensa = max(("rensa", "rensa GOMP_SPINCOUNT=0"), key=lambda k: med[k])
    best_torch = max(("torch", "torch GOMP_SPINCOUNT=0"), key=lambda k: med[k])
    for k in sides:
        print(f"median {k:24s} {med[k]:9.1f} images/s  peak RSS {rss[k]:7.1f} MiB")

    def best(side, i):
        return max(results[side][i][0], results[side + " GOMP_SPINCOUNT=0"][i][0])

    rounds = [best("rensa", i) / best("torch", i) for i in range(args.rounds)]
    print(f"ratio {best_rensa} / {best_torch}: {med[best_rensa] / med[best_torch]:.2f}x; "
          f"as shipped both: {med['rensa'] / med['torch']:.2f}x "
          f"(per round, faster against faster: {', '.join(f'{x:.2f}' for x in rounds)}; "
          f"load average {os.getloadavg()[0]:.2f} at end)")
