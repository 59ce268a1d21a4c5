"""Side by side: each case in rensa (bench_compare) and in PyTorch on the CPU.

Rounds alternate between the sides: in every round each case runs in rensa (a
bench_compare subprocess) and in PyTorch (two long-lived torch_cases.py workers,
torch.set_num_threads(2)), each side once as shipped and once with GOMP_SPINCOUNT=0
(benchmarks/bench_env.py). Each run reports the median of its timed steps; a side's
figure is the median over the rounds at its faster setting, and the ratio compares the
faster setting of each side (per-round ratios in --json). Prints the CPU, ISA flags and
load, one table, and exits 1 when a case with a target misses it.

    cmake --build build --target bench_compare
    .venv-bench/bin/python benchmarks/compare/compare.py --build build
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import bench_env  # noqa: E402

# Cases in the order of the table (the names of cases.h and torch_cases.py).
CASES = [
    "linear_784_1000",
    "linear_1000_1000",
    "conv_1_32_k5_28",
    "conv_32_64_k5_12",
    "conv_64_64_k3_32",
    "max_pooling_2d",
    "batch_normalization",
    "softmax_cross_entropy",
    "relu",
]

# Largest allowed rensa / PyTorch time ratio per case; None: measured, no target.
# The targets: rensa's time at most this many times PyTorch's.
TARGETS = {
    "linear_784_1000": 1.0,
    "linear_1000_1000": 1.0,
    "conv_1_32_k5_28": 1.2,
    "conv_32_64_k5_12": 1.2,
    "conv_64_64_k3_32": 1.2,
    "max_pooling_2d": 1.2,
    "batch_normalization": 1.2,
    "softmax_cross_entropy": 1.2,
    "relu": 1.2,
}

TORCH_SETTINGS = bench_env.SETTINGS
RENSA_SETTINGS = {"rensa " + k: v for k, v in bench_env.SETTINGS.items()}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build", help="CMake build folder holding bench_compare")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iters", type=int, default=20, help="timed steps per run")
    parser.add_argument("--warmup", type=int, default=3, help="untimed steps per run")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--cases", nargs="*", default=None, help="a subset of the cases")
    parser.add_argument("--rensa-env", action="append", default=[], metavar="KEY=VALUE",
                        help="extra environment for the rensa runs (reported in the output)")
    parser.add_argument("--json", type=Path, help="also write every measurement here")
    return parser.parse_args()


def base_env(threads):
    env = dict(os.environ)
    env.pop("GOMP_SPINCOUNT", None)
    env["OMP_NUM_THREADS"] = str(threads)
    return env


class RensaSide:
    def __init__(self, build, threads, extra_env, setting_env=None):
        self.exe = Path(build) / "benchmarks" / "compare" / "bench_compare"
        if not self.exe.exists():
            sys.exit(f"compare.py: {self.exe} not found; run cmake --build {build} --target bench_compare")
        self.threads = threads
        self.env = base_env(threads)
        self.env.update(setting_env or {})
        self.env.update(extra_env)
        out = subprocess.run([self.exe, "--list"], env=self.env, check=True, capture_output=True, text=True)
        self.cases = set(out.stdout.split())

    def run(self, case, iters, warmup):
        cmd = [self.exe, case, "--iters", str(iters), "--warmup", str(warmup), "--threads", str(self.threads)]
        out = subprocess.run(cmd, env=self.env, capture_output=True, text=True)
        if out.returncode != 0:
            print(f"compare.py: rensa {case} failed: {out.stderr.strip()}", file=sys.stderr)
            return None
        return json.loads(out.stdout.strip().splitlines()[-1])["median"]


class TorchWorker:
    def __init__(self, python, threads, extra_env):
        env = base_env(threads)
        env.update(extra_env)
        cmd = [python, str(HERE / "torch_cases.py"), "--serve", "--threads", str(threads)]
        self.proc = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        json.loads(self.proc.stdout.readline())  # {"ready": true, ...}

    def run(self, case, iters, warmup):
        self.proc.stdin.write(f"{case} {iters} {warmup}\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            sys.exit(f"compare.py: the torch worker died on {case}")
        return json.loads(line)["median"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def measure(args, rensa, workers, cases):
    """{case: {"rensa <setting>": [per-round medians], <torch setting>: [...]}} with the order
    rotated per round."""
    results = {case: {**{name: [] for name in rensa}, **{name: [] for name in workers}} for case in cases}
    runners = [(name, r.run) for name, r in rensa.items()] + [(name, w.run) for name, w in workers.items()]
    known = next(iter(rensa.values())).cases
    for r in range(args.rounds):
        order = runners[r % len(runners):] + runners[:r % len(runners)]
        for case in cases:
            for name, run in order:
                if name in rensa and case not in known:
                    continue
                t = run(case, args.iters, args.warmup)
                if t is not None:
                    results[case][name].append(t)
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    return results


def summarize(case, per_side):
    torch_times = {name: statistics.median(v) for name, v in per_side.items() if name in TORCH_SETTINGS and v}
    setting = min(torch_times, key=torch_times.get) if torch_times else None
    row = {"case": case, "torch_ms": torch_times[setting] * 1e3 if setting else None, "torch_setting": setting or "-",
           "torch_all_ms": {k: v * 1e3 for k, v in torch_times.items()}, "target": TARGETS.get(case)}
    rensa_times = {name: statistics.median(v) for name, v in per_side.items() if name in RENSA_SETTINGS and v}
    if not rensa_times:
        return {**row, "rensa_ms": None, "ratio": None, "result": "missing"}
    rensa_setting = min(rensa_times, key=rensa_times.get)
    rensa_ms = rensa_times[rensa_setting] * 1e3
    if setting is None:  # no PyTorch side
        return {**row, "rensa_ms": rensa_ms, "rensa_setting": rensa_setting[len("rensa "):],
                "rensa_all_ms": {k: v * 1e3 for k, v in rensa_times.items()}, "ratio": None, "result": "-"}
    ratio = rensa_ms / row["torch_ms"]
    rounds = bench_env.compare_sides({k: v for k, v in per_side.items() if k in RENSA_SETTINGS},
                                     {k: v for k, v in per_side.items() if k in TORCH_SETTINGS},
                                     higher_is_better=False)["rounds"]
    result = "-" if row["target"] is None else ("pass" if ratio <= row["target"] else "miss")
    return {**row, "rensa_ms": rensa_ms, "rensa_setting": rensa_setting[len("rensa "):],
            "rensa_all_ms": {k: v * 1e3 for k, v in rensa_times.items()}, "ratio": ratio, "round_ratios": rounds,
            "result": result}


def print_table(rows):
    header = (f"{'case':<24}{'rensa ms':>10}  {'rensa setting':<18}{'torch ms':>10}  {'torch setting':<18}{'ratio':>7}"
              f"{'target':>8}  result")
    print(header)
    print("-" * len(header))
    for row in rows:
        rensa = "-" if row["rensa_ms"] is None else f"{row['rensa_ms']:.3f}"
        ratio = "-" if row["ratio"] is None else f"{row['ratio']:.2f}x"
        target = "-" if row["target"] is None else f"<={row['target']:.2f}x"
        torch = "-" if row["torch_ms"] is None else f"{row['torch_ms']:.3f}"
        print(f"{row['case']:<24}{rensa:>10}  {row.get('rensa_setting', '-'):<18}{torch:>10}  "
              f"{row['torch_setting']:<18}{ratio:>7}"
              f"{target:>8}  {row['result']}")


def main():
    args = parse_args()
    cases = args.cases or CASES
    unknown = sorted(set(cases) - set(CASES))
    if unknown:
        sys.exit(f"compare.py: unknown cases {unknown}; known: {CASES}")
    rensa_env = dict(kv.split("=", 1) for kv in args.rensa_env)
    record = bench_env.print_header(f"compare.py: {len(cases)} cases, threads {args.threads}, {args.rounds} rounds x "
                                    f"{args.iters} steps, OpenMP settings {list(bench_env.SETTINGS)}")
    use_torch = bench_env.has_module("torch")
    if not use_torch:
        print(f"PyTorch side skipped: no torch in {sys.executable} (make bench-compare runs "
              ".venv-bench/bin/python from scripts/install-bench-deps.sh); rensa's times only")
    rensa = {name: RensaSide(args.build, args.threads, rensa_env, env) for name, env in RENSA_SETTINGS.items()}
    workers = {name: TorchWorker(sys.executable, args.threads, env) for name, env in TORCH_SETTINGS.items()
               if use_torch}
    try:
        results = measure(args, rensa, workers, cases)
    finally:
        for w in workers.values():
            w.close()
    rows = [summarize(case, results[case]) for case in cases]
    print(f"threads {args.threads}, {args.rounds} rounds x {args.iters} steps (median of medians); "
          f"rensa env {rensa_env or 'as shipped'}; load average {os.getloadavg()[0]:.2f}")
    print_table(rows)
    bench_env.print_footer(record)
    if args.json:
        args.json.write_text(json.dumps({**record, "rows": rows, "raw": results}, indent=1))
    # A case rensa failed on (its stderr printed above) is "missing": a failure too.
    return 1 if any(row["result"] in ("miss", "missing") for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
