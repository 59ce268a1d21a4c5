"""rensa against real Chainer 7.8.1 on the same machine and data (issue 24): wall time of
whole runs (start-up, data loading, training, evaluation, extensions), 1 epoch by default.

1. demo: `make demo`'s program, `mpiexec -n 2 <build>/examples/mnist` (C++, 2 MPI ranks,
   1 thread each), against ChainerMN's MNIST example on 2 ranks
   (benchmarks/chainer/chainer_train_mnist.py --communicator naive).
2. script: rensa's Chainer-style examples/mnist/train_mnist.py (Python bindings, one
   process, --threads threads) against Chainer's examples/mnist/train_mnist.py
   (benchmarks/chainer/chainer_train_mnist.py, the same script on chainer).
All sides: Fashion-MNIST from Debian's package, MLP 784-1000-1000-10, Adam, batch 100, a
Trainer with the standard extensions, --noplot (matplotlib is no part of the timing).
Each side runs at each OpenMP setting of benchmarks/bench_env.py per round (OpenBLAS's
and MKL's thread counts follow OMP_NUM_THREADS); the ratio is rensa's faster setting
over Chainer's faster one (target <= 0.4).

    python3 benchmarks/chainer/run.py [--build build] [--rounds 1] [--epoch 1] [--threads 2]
        [--only demo,script] [--json FILE]

Chainer's side needs .venv-chainermn (scripts/install-chainermn-bench.sh); without it
that side is skipped with a note. A failing run ends the runner with exit code 1.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import bench_env  # noqa: E402


def run_timed(cmd, env, what):
    """Wall seconds of cmd, run in a fresh temporary folder (its --out); exit 1 when it fails."""
    with tempfile.TemporaryDirectory(prefix="rensa-bench-chainer-") as out:
        start = time.perf_counter()
        proc = subprocess.run(cmd + ["--out", out], env=env, cwd=out, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        seconds = time.perf_counter() - start
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout[-3000:])
        raise SystemExit(f"{what} failed with exit code {proc.returncode}: {' '.join(cmd)}")
    # The last "test accuracy: 0.xxxx" (a progress bar may share its line).
    found = re.findall(r"test accuracy: ([0-9.]+)", proc.stdout)
    return seconds, float(found[-1]) if found else None


def main():
    parser = argparse.ArgumentParser(description="rensa against Chainer 7.8.1: wall time of the MNIST example")
    parser.add_argument("--build", default="build")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--epoch", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2, help="threads of the one-process script runs")
    parser.add_argument("--only", default="demo,script")
    parser.add_argument("--chainer-python", default=os.path.join(ROOT, ".venv-chainermn", "bin", "python"))
    parser.add_argument("--rensa-python", default=sys.executable,
                        help="the Python running rensa's script (needs numpy; the bindings come from --build)")
    parser.add_argument("--json")
    args = parser.parse_args()
    build = args.build if os.path.isabs(args.build) else os.path.join(ROOT, args.build)
    only = args.only.split(",")
    record = bench_env.print_header(f"benchmarks/chainer/run.py: {only}, {args.epoch} epoch(s), {args.rounds} "
                                    f"round(s), OpenMP settings {list(bench_env.SETTINGS)}")
    record["args"] = vars(args)
    have_chainer = os.path.exists(args.chainer_python) and subprocess.run(
        [args.chainer_python, "-c", "import chainer, chainermn, mpi4py"], capture_output=True).returncode == 0
    if not have_chainer:
        print(f"Chainer side skipped: no chainer/chainermn/mpi4py at {args.chainer_python} "
              "(scripts/install-chainermn-bench.sh)")
    mpiexec = shutil.which("mpiexec")
    chainer_script = os.path.join(HERE, "chainer_train_mnist.py")
    common = ["--epoch", str(args.epoch), "--noplot"]

    sides = {}  # (comparison, side) -> (cmd, threads)
    if "demo" in only:
        if mpiexec is None:
            raise SystemExit("mpiexec not found: install MPICH (scripts/install-deps.sh)")
        program = os.path.join(build, "examples", "mnist")
        if not os.path.exists(program):
            raise SystemExit(f"{program} not found: cmake --build {args.build} --target example_mnist")
        sides[("demo", "rensa")] = ([mpiexec, "-n", "2", program] + common, 1)
        if have_chainer:
            sides[("demo", "chainer")] = ([mpiexec, "-n", "2", args.chainer_python, chainer_script,
                                          "--communicator", "naive"] + common, 1)
    if "script" in only:
        sides[("script", "rensa")] = ([args.rensa_python, os.path.join(ROOT, "examples", "mnist", "train_mnist.py")]
                                      + common, args.threads)
        if have_chainer:
            sides[("script", "chainer")] = ([args.chainer_python, chainer_script] + common, args.threads)

    results = {key: {s: [] for s in bench_env.SETTINGS} for key in sides}
    accuracy = {}
    for r in range(args.rounds):
        settings = list(bench_env.SETTINGS)[::-1 if r % 2 else 1]
        for key, (cmd, threads) in sides.items():
            for setting in settings:
                n = str(threads)
                env = bench_env.child_env(threads, setting, {"OPENBLAS_NUM_THREADS": n, "MKL_NUM_THREADS": n,
                                                             "PYTHONPATH": os.path.join(build, "python")})
                seconds, acc = run_timed(cmd, env, f"{key[0]} {key[1]} ({setting})")
                results[key][setting].append(seconds)
                accuracy[key] = acc
                acc_text = "-" if acc is None else f"{acc:.4f}"
                print(f"  round {r + 1} {key[0]:6s} {key[1]:7s} {setting:18s} {seconds:8.2f} s  "
                      f"test accuracy {acc_text}", flush=True)

    record["results"] = [{"comparison": k[0], "side": k[1], "seconds": v, "test_accuracy": accuracy[k]}
                         for k, v in results.items()]
    record["ratios"] = []
    for comparison in ("demo", "script"):
        a, b = (comparison, "rensa"), (comparison, "chainer")
        if a in results and b in results:
            c = bench_env.compare_sides(results[a], results[b], higher_is_better=False)
            rounds = ", ".join(f"{x:.3f}" for x in c["rounds"])
            print(f"{comparison}: wall time rensa / Chainer {c['ratio']:.3f} (target <= 0.4): rensa {c['a']:.2f} s "
                  f"({c['a_setting']}), Chainer {c['b']:.2f} s ({c['b_setting']}); per round {rounds}")
            record["ratios"].append({"comparison": comparison, **c})
    bench_env.print_footer(record)
    bench_env.write_json(args.json, record)


if __name__ == "__main__":
    main()
