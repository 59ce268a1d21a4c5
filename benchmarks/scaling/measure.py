"""Measurements on this machine for the scaling model: the programs' JSON lines, medians of
repeated runs with the sides alternating (the machine is noisy), one thread per process.

Other work on the two cores (a test suite, a build) slows a run by up to 2x, far more than
what is measured, so each run is judged: the CPU time the machine spent busy during the run
(/proc/stat) minus the CPU time of our own processes (getrusage of the children) is what
others used; a run where others used more than CLEAN_SHARE of the CPUs is repeated (up to
TRIES times, keeping the cleanest), after waiting for the CPUs to go idle."""
import json
import os
import resource
import shutil
import statistics
import subprocess
import time

ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
CLEAN_SHARE = 0.03  # of all CPUs, used by other processes during a run
TRIES = 4
IDLE_WAIT_S = 90
kept_shares = []  # others' share of the CPUs during each run kept (run_clean), for the report


def program(root, build, name):
    for base in (os.path.join(root, build), build):
        for sub in ("", "scaling"):
            path = os.path.join(base, "benchmarks", sub, name)
            if os.path.exists(path):
                return path
    raise SystemExit(f"{name} not found under {build}/benchmarks: build it first "
                     f"(cmake --build {build} --target {name})")


def mpiexec():
    exe = shutil.which("mpiexec")
    if exe is None:
        raise SystemExit("mpiexec not found: install MPICH (scripts/install-deps.sh)")
    return exe


def run_json(cmd, timeout=600):
    """Runs cmd with one thread per process; returns its JSON lines."""
    env = dict(os.environ, **ONE_THREAD)
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed with {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def _busy_seconds():
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    return (sum(values) - values[3] - values[4]) / os.sysconf("SC_CLK_TCK")


def _children_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def wait_idle(log=print):
    """Waits (at most IDLE_WAIT_S) until the CPUs are idle."""
    start = time.monotonic()
    while time.monotonic() - start < IDLE_WAIT_S:
        busy = busy_fraction(0.5)
        if busy is None or busy < 0.1:
            return
    log(f"  (the CPUs stayed busy for {IDLE_WAIT_S} s: measuring anyway)")


def run_clean(cmd, log=print):
    """run_json(cmd) on CPUs that others left alone (see the module's note): the JSON lines of the
    cleanest of up to TRIES runs, and the share of the CPUs others used during it."""
    best = None
    for _ in range(TRIES):
        wait_idle(log)
        busy0, ours0, t0 = _busy_seconds(), _children_seconds(), time.monotonic()
        rows = run_json(cmd)
        wall = time.monotonic() - t0
        others = (_busy_seconds() - busy0) - (_children_seconds() - ours0)
        share = max(0.0, others) / (wall * (os.cpu_count() or 1))
        if best is None or share < best[1]:
            best = (rows, share)
        if share <= CLEAN_SHARE:
            break
        log(f"  (other processes used {share:.0%} of the CPUs during that run: repeating it)")
    kept_shares.append(best[1])
    return best


def comm_times(exe, ranks, sizes, seconds, log=print):
    """{side: [(bytes, seconds)]} at `ranks` processes: one bench_scaling_comm run per size (so
    that a run others disturbed is repeated alone), each figure a median over calls of the
    slowest rank's time."""
    table = {}
    for size in sizes:
        rows, _ = run_clean([mpiexec(), "-n", str(ranks), exe, "--min-bytes", str(size), "--max-bytes", str(size),
                             "--seconds", str(seconds)], log)
        for key, value in rows[-1].items():
            if key.endswith("_s"):
                table.setdefault(key[:-2], []).append((size, value))
    return table


def train_cmd(exe, ranks, communicator, iterations, warmup):
    args = [exe, "--iterations", str(iterations), "--warmup", str(warmup), "--communicator", communicator]
    return args if communicator == "none" else [mpiexec(), "-n", str(ranks)] + args


def training(exe, configs, rounds, iterations, warmup, log=print):
    """{(ranks, communicator): median images/s} over `rounds` rounds, the order of the
    configurations reversed every other round."""
    seen = {config: [] for config in configs}
    for r in range(rounds):
        for ranks, communicator in (configs if r % 2 == 0 else configs[::-1]):
            rows, share = run_clean(train_cmd(exe, ranks, communicator, iterations, warmup), log)
            result = rows[-1]
            seen[(ranks, communicator)].append(result["images_per_s"])
            log(f"  round {r + 1}: {ranks} x {communicator:5s} {result['images_per_s']:9.1f} images/s, "
                f"step {result['step_ms']:.2f} ms (others used {share:.0%} of the CPUs)")
    return {config: statistics.median(values) for config, values in seen.items()}


def step_jitter(exe, ranks, rounds, iterations, warmup, log=print):
    """Per-step compute jitter at `ranks` processes with the dummy communicator (no waiting):
    every step time minus its rank's mean, in seconds, pooled over `rounds` runs of
    bench_scaling_step."""
    jitter = []
    for r in range(rounds):
        rows, share = run_clean([mpiexec(), "-n", str(ranks), exe, "--iterations", str(iterations), "--warmup",
                                 str(warmup), "--communicator", "dummy"], log)
        per_rank = rows[-1]["step_ms"]
        for steps in per_rank:
            mean = statistics.mean(steps)
            jitter += [(t - mean) * 1e-3 for t in steps]
        sd = statistics.mean(statistics.pstdev(steps) for steps in per_rank)
        log(f"  round {r + 1}: {ranks} x dummy, per-step times: standard deviation {sd:.2f} ms "
            f"(others used {share:.0%} of the CPUs)")
    return jitter


def cpu_model():
    """lscpu's "Model name" (or /proc/cpuinfo's), and the number of online CPUs."""
    name = "unknown"
    try:
        out = subprocess.run(["lscpu"], stdout=subprocess.PIPE, text=True, env=dict(os.environ, LC_ALL="C")).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                name = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return name, os.cpu_count() or 1


def busy_fraction(seconds=1.0):
    """The share of CPU time spent busy over `seconds` (from /proc/stat), before measuring:
    other work on the cores makes every figure noisy. None where /proc/stat is missing."""
    def sample():
        with open("/proc/stat") as f:
            values = [int(v) for v in f.readline().split()[1:]]
        return sum(values), values[3] + values[4]  # total, idle + iowait
    try:
        total0, idle0 = sample()
        time.sleep(seconds)
        total1, idle1 = sample()
    except OSError:
        return None
    return 1.0 - (idle1 - idle0) / max(1, total1 - total0)
