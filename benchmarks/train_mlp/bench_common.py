"""Shared by benchmarks/train_mlp/run.py and benchmarks/train_convnet/run.py.

Per round, at each thread count (--threads) and dtype, runs the rensa program and the
same training in PyTorch, each at every OpenMP setting of benchmarks/bench_env.py
(as shipped, GOMP_SPINCOUNT=0), alternately; prints images/s and the peak RSS of each
child (os.wait4's rusage), and the faster setting of rensa against the faster of PyTorch
(medians over rounds, per-round ratios too).

--dtype mixed_bf16 adds bfloat16 mixed precision to float32: rensa's program with
--dtype mixed_bf16, PyTorch under torch.autocast("cpu", dtype=torch.bfloat16).
The compute bound (gemm_bound / conv_bound, built beside the program) is measured at the
same settings and rensa's images/s printed as a share of it. --accuracy-epochs N trains
N epochs in float32 and in mixed_bf16 (seed 0) on each side and prints the test accuracy.
Without PyTorch (no torch module in this Python) the PyTorch side is skipped with a note.
"""
import argparse
import gzip
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import bench_env  # noqa: E402

DTYPES = ("float32", "mixed_bf16")


def fashion_mnist_folder():
    # The folder Debian's dataset-fashion-mnist package installs, from its file list.
    with open("/var/lib/dpkg/info/dataset-fashion-mnist.list") as f:
        for line in f:
            line = line.strip()
            if line.endswith("/train-images-idx3-ubyte.gz"):
                return os.path.dirname(line)
    raise SystemExit("Fashion-MNIST not found: install Debian's dataset-fashion-mnist")


def load_split(prefix="train"):
    """(images float32 (n, 784) in [0, 1], labels int64 (n,)) as numpy arrays; prefix train or t10k."""
    import numpy as np
    d = fashion_mnist_folder()
    with gzip.open(os.path.join(d, f"{prefix}-images-idx3-ubyte.gz")) as f:
        img = np.frombuffer(f.read(), dtype=np.uint8, offset=16)
    with gzip.open(os.path.join(d, f"{prefix}-labels-idx1-ubyte.gz")) as f:
        lab = np.frombuffer(f.read(), dtype=np.uint8, offset=8)
    images = img.reshape(-1, 784).astype(np.float32)
    images /= 255.0  # in place: no second 188 MB copy in the peak RSS
    return images, lab.astype(np.int64)


def load_train():
    return load_split("train")


def torch_train(model, optimizer, x_shape, iterations, batch=100, threads=2, dtype="float32", epochs=0):
    """The PyTorch side: shuffle per epoch, gather the batch, train step (under
    torch.autocast for mixed_bf16); prints JSON (with the test accuracy when epochs > 0)."""
    import contextlib
    import torch
    torch.set_num_threads(threads)
    images, labels = load_train()
    x_all = torch.from_numpy(images).reshape((-1,) + tuple(x_shape))
    t_all = torch.from_numpy(labels)
    n = x_all.shape[0]
    if epochs > 0:
        iterations = epochs * (n // batch)

    def autocast():
        if dtype == "mixed_bf16":
            return torch.autocast("cpu", dtype=torch.bfloat16)
        return contextlib.nullcontext()

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
        with autocast():
            loss = loss_fn(model(x), t)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if it + 1 == iterations:
            last = loss.item()
    seconds = time.perf_counter() - start
    result = {"images_per_s": iterations * batch / seconds, "seconds": seconds, "iterations": iterations,
              "last_loss": last, "dtype": dtype}
    if epochs > 0:
        test_x, test_t = load_split("t10k")
        test_x = torch.from_numpy(test_x).reshape((-1,) + tuple(x_shape))
        correct = 0
        model.eval()
        with torch.no_grad(), autocast():
            for i in range(0, test_x.shape[0], batch):
                correct += (model(test_x[i:i + batch]).argmax(1) == torch.from_numpy(test_t[i:i + batch])).sum().item()
        result["test_accuracy"] = correct / test_x.shape[0]
    print(json.dumps(result))


def parse_threads(text):
    try:
        threads = [int(t) for t in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--threads takes a list like 1,2, got {text!r}")
    if not threads or min(threads) < 1:
        raise argparse.ArgumentTypeError(f"--threads takes counts >= 1, got {text!r}")
    return threads


def main(name, default_iterations, torch_child, bound_program):
    parser = argparse.ArgumentParser(description=f"train_{name}: rensa against PyTorch")
    parser.add_argument("--build", default="build", help="the CMake build folder")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=default_iterations)
    parser.add_argument("--threads", type=parse_threads, default=[1, 2], help="thread counts, e.g. 1,2")
    parser.add_argument("--dtype", choices=DTYPES, default="float32",
                        help="mixed_bf16: also run bfloat16 mixed precision beside float32")
    parser.add_argument("--loop", choices=("trainer", "iterator", "manual"), default="trainer",
                        help="rensa's loop: Trainer + StandardUpdater, SerialIterator by hand, or hand-written")
    parser.add_argument("--no-bound", action="store_true", help="skip the compute bound")
    parser.add_argument("--bound-iters", type=int, default=50)
    parser.add_argument("--accuracy-epochs", type=int, default=0,
                        help="also train N epochs in float32 and mixed_bf16 and print the test accuracy")
    parser.add_argument("--skip-torch", action="store_true", help="run rensa only")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--torch-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child-threads", type=int, default=2, help=argparse.SUPPRESS)
    parser.add_argument("--child-dtype", default="float32", help=argparse.SUPPRESS)
    parser.add_argument("--child-epochs", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.torch_child:
        torch_child(args.iterations, args.child_threads, args.child_dtype, args.child_epochs)
        return
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.abspath(os.path.join(here, "..", ".."))
    build = args.build if os.path.isabs(args.build) else os.path.join(root, args.build)
    program = os.path.join(build, "benchmarks", f"train_{name}")
    bound = os.path.join(build, "benchmarks", bound_program)
    if not os.path.exists(program):
        raise SystemExit(f"{program} not found: cmake --build {args.build} --target train_{name} {bound_program}")
    use_torch = not args.skip_torch and bench_env.has_module("torch")
    use_bound = not args.no_bound and os.path.exists(bound)
    dtypes = ["float32"] if args.dtype == "float32" else ["float32", "mixed_bf16"]
    record = bench_env.print_header(
        f"train_{name}: {args.iterations} iterations of batch 100, threads {args.threads}, dtypes {dtypes}, "
        f"rensa's {args.loop} loop, {args.rounds} rounds, OpenMP settings {list(bench_env.SETTINGS)}")
    if not use_torch:
        print(f"PyTorch side skipped: {'--skip-torch' if args.skip_torch else f'no torch in {sys.executable}'}")
    if not use_bound:
        print(f"compute bound skipped: {'--no-bound' if args.no_bound else f'{bound} not built'}")
    record["args"] = vars(args)

    def rensa_cmd(dtype, epochs=0):
        cmd = [program, str(args.iterations), "--loop", args.loop, "--dtype", dtype]
        return cmd + (["--epochs", str(epochs)] if epochs else [])

    def torch_cmd(threads, dtype, epochs=0):
        return [sys.executable, os.path.abspath(sys.argv[0]), "--torch-child", "--iterations", str(args.iterations),
                "--child-threads", str(threads), "--child-dtype", dtype, "--child-epochs", str(epochs)]

    # results[key][setting] = per-round images/s; key = (side, dtype, threads).
    results, rss = {}, {}
    runs = []
    for t in args.threads:
        for d in dtypes:
            runs.append((("rensa", d, t), rensa_cmd(d)))
            if use_torch:
                runs.append((("torch", d, t), torch_cmd(t, d)))
            if use_bound:
                runs.append((("bound", d, t), [bound, "--iters", str(args.bound_iters), "--dtype",
                                               "float32" if d == "float32" else "bfloat16"]))
    for r in range(args.rounds):
        settings = list(bench_env.SETTINGS)
        if r % 2:  # alternate which setting goes first
            settings.reverse()
        for key, cmd in runs:
            for setting in settings:
                what = f"{key[0]} {key[1]} {key[2]}t {setting}"
                res, peak = bench_env.run_json_child(cmd, bench_env.child_env(key[2], setting), what)
                results.setdefault(key, {s: [] for s in bench_env.SETTINGS})[setting].append(res["images_per_s"])
                rss[key] = max(rss.get(key, 0.0), peak)
                loss = f"  last loss {res['last_loss']:.4f}" if "last_loss" in res else ""
                print(f"  round {r + 1} {what:36s} {res['images_per_s']:9.1f} images/s  peak RSS {peak:7.1f} MiB{loss}",
                      flush=True)

    summary = []
    print("median images/s over rounds (faster setting marked *):")
    for key, per in results.items():
        best, _, med = bench_env.best_setting(per)
        cells = "  ".join(f"{'*' if s == best else ' '}{s} {m:9.1f}" for s, m in med.items())
        print(f"  {key[0]:6s} {key[1]:10s} {key[2]}t  {cells}  peak RSS {rss[key]:7.1f} MiB")

    def line(label, a, b, target=None, percent=False):
        if a not in results or b not in results:
            return
        c = bench_env.compare_sides(results[a], results[b])
        value = f"{100 * c['ratio']:.0f}%" if percent else f"{c['ratio']:.2f}x"
        rounds = ", ".join(f"{100 * x:.0f}%" if percent else f"{x:.2f}" for x in c["rounds"])
        tgt = f"  (target {target})" if target else ""
        print(f"  {label:44s} {value:>7s}{tgt}  [{c['a_setting']} vs {c['b_setting']}; per round {rounds}]")
        summary.append({"label": label, "a": list(a), "b": list(b), "target": target, **c})

    print("ratios (faster setting against faster setting, medians over rounds):")
    for t in args.threads:
        line(f"{t}t rensa float32 / torch float32", ("rensa", "float32", t), ("torch", "float32", t), ">= 2.0x")
        line(f"{t}t rensa float32 / float32 compute bound", ("rensa", "float32", t), ("bound", "float32", t),
             ">= 80%", percent=True)
        if "mixed_bf16" in dtypes:
            line(f"{t}t rensa mixed_bf16 / rensa float32", ("rensa", "mixed_bf16", t), ("rensa", "float32", t),
                 ">= 2.5x on AMX")
            line(f"{t}t rensa mixed_bf16 / torch autocast bf16", ("rensa", "mixed_bf16", t),
                 ("torch", "mixed_bf16", t), ">= 1.5x")
            line(f"{t}t torch autocast bf16 / torch float32", ("torch", "mixed_bf16", t), ("torch", "float32", t))
            line(f"{t}t rensa mixed_bf16 / bfloat16 compute bound", ("rensa", "mixed_bf16", t),
                 ("bound", "mixed_bf16", t), percent=True)
    record["results"] = [{"side": k[0], "dtype": k[1], "threads": k[2], "images_per_s": v, "peak_rss_mib": rss[k]}
                         for k, v in results.items()]
    record["ratios"] = summary

    if args.accuracy_epochs > 0:
        t = max(args.threads)
        print(f"test accuracy after {args.accuracy_epochs} epochs (seed 0, {t} threads, each side at its faster "
              "OpenMP setting of the rounds):")
        acc = {}
        for side in ["rensa"] + (["torch"] if use_torch else []):
            timed = results.get((side, "float32", t))
            setting = bench_env.best_setting(timed)[0] if timed else "GOMP_SPINCOUNT=0"
            for d in DTYPES:
                cmd = rensa_cmd(d, args.accuracy_epochs) if side == "rensa" else torch_cmd(t, d, args.accuracy_epochs)
                res, _ = bench_env.run_json_child(cmd, bench_env.child_env(t, setting), f"{side} {d} accuracy")
                acc[(side, d)] = res["test_accuracy"]
                print(f"  {side:6s} {d:10s} {100 * res['test_accuracy']:6.2f}%  ({res['images_per_s']:.1f} images/s)",
                      flush=True)
            diff = 100 * (acc[(side, "mixed_bf16")] - acc[(side, "float32")])
            print(f"  {side:6s} mixed_bf16 - float32: {diff:+.2f} points (target within 0.5)")
        record["accuracy"] = [{"side": s, "dtype": d, "epochs": args.accuracy_epochs, "test_accuracy": a}
                              for (s, d), a in acc.items()]
    bench_env.print_footer(record)
    bench_env.write_json(args.json, record)
