"""Shared by the side-by-side runners of benchmarks/ (train_mlp, train_convnet, python,
compare, chainer): the machine header (CPU model, the ISA flags that matter, load
average), the OpenMP settings each side runs at, running a child that must not fail,
the faster-setting-against-faster-setting summary, and the --json file.

Each side runs at every setting of SETTINGS per round: OpenMP as shipped (threads spin
a while after a parallel region) and GOMP_SPINCOUNT=0 (they sleep at once). A side's
figure is the median over rounds at its faster setting; per round, the faster of a
side's settings is compared with the faster of the other's.
"""
import json
import os
import platform
import statistics
import subprocess
import sys

SETTINGS = {"as shipped": {}, "GOMP_SPINCOUNT=0": {"GOMP_SPINCOUNT": "0"}}

# The lscpu flags the kernels' speed depends on (GEMM/convolution in float32 and bfloat16).
ISA_FLAGS = ["avx2", "fma", "avx512f", "avx512bw", "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_tile",
             "amx_bf16", "amx_int8"]


def cpu_info():
    """{"model", "cores", "isa": {flag: bool}} from lscpu (platform's fields without it)."""
    fields = {}
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            key, _, value = line.partition(":")
            fields[key.strip()] = value.strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    flags = set(fields.get("Flags", "").split())
    return {"model": fields.get("Model name", platform.processor() or "unknown"),
            "cpus": os.cpu_count(), "isa": {f: f in flags for f in ISA_FLAGS}}


def loadavg():
    return list(os.getloadavg())


def print_header(title, cpu=None):
    """Prints the title, CPU model, ISA flags and load average; returns the record for --json."""
    cpu = cpu or cpu_info()
    have = " ".join(f for f, v in cpu["isa"].items() if v) or "-"
    lack = " ".join(f for f, v in cpu["isa"].items() if not v) or "-"
    load = loadavg()
    print(title)
    print(f"CPU: {cpu['model']} ({cpu['cpus']} logical CPUs); has: {have}; lacks: {lack}")
    print("load average at start: {:.2f} {:.2f} {:.2f}".format(*load), flush=True)
    return {"title": title, "cpu": cpu, "load_start": load}


def print_footer(record):
    load = loadavg()
    record["load_end"] = load
    print("load average at end: {:.2f} {:.2f} {:.2f}".format(*load), flush=True)


def child_env(threads, setting, extra=None):
    env = dict(os.environ)
    env.pop("GOMP_SPINCOUNT", None)
    env["OMP_NUM_THREADS"] = str(threads)
    env.update(SETTINGS[setting])
    env.update(extra or {})
    return env


def run_json_child(cmd, env, what):
    """Runs cmd, returns (its last stdout line as JSON, peak RSS in MiB). A failing child
    ends the runner with exit code 1, naming the side and its stderr's tail."""
    import tempfile
    with tempfile.TemporaryFile(mode="w+") as err_file:
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=err_file, text=True)
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        err_file.seek(0)
        err = err_file.read()
    if code != 0:
        sys.stderr.write(err[-2000:])
        raise SystemExit(f"{what} failed with exit code {code}: {' '.join(map(str, cmd))}")
    lines = out.strip().splitlines()
    try:
        result = json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        sys.stderr.write(err[-2000:])
        raise SystemExit(f"{what} printed no JSON result line: {' '.join(map(str, cmd))}")
    return result, usage.ru_maxrss / 1024.0


def best_setting(per_setting, higher_is_better=True):
    """per_setting {setting: [per-round values]} -> (best setting, its median, {setting: median})."""
    med = {s: statistics.median(v) for s, v in per_setting.items() if v}
    pick = max if higher_is_better else min
    best = pick(med, key=med.get)
    return best, med[best], med


def per_round_best(per_setting, higher_is_better=True):
    pick = max if higher_is_better else min
    rounds = min(len(v) for v in per_setting.values())
    return [pick(v[i] for v in per_setting.values()) for i in range(rounds)]


def compare_sides(a, b, higher_is_better=True):
    """a, b {setting: [per-round values]} -> {"ratio": a/b of the faster settings' medians,
    "rounds": per-round a/b of the faster settings, "a_setting", "b_setting"}."""
    sa, ma, _ = best_setting(a, higher_is_better)
    sb, mb, _ = best_setting(b, higher_is_better)
    ra, rb = per_round_best(a, higher_is_better), per_round_best(b, higher_is_better)
    return {"ratio": ma / mb, "rounds": [x / y for x, y in zip(ra, rb)], "a_setting": sa, "b_setting": sb,
            "a": ma, "b": mb}


def has_module(name):
    import importlib.util
    return importlib.util.find_spec(name) is not None


def write_json(path, record):
    if path:
        with open(path, "w") as f:
            json.dump(record, f, indent=1)
        print(f"wrote {path}")
