"""The scaling model, measured and validated on this machine (README.md in this folder).
Usage, from the repository root (`make bench-scaling`):
    python3 benchmarks/scaling/run.py [--build build] [--out result/scaling] [--rounds 5]
        [--iterations 150] [--warmup 20] [--comm-seconds 0.3]
        [--reuse result/scaling/measured.json] [--self-check]

1. All-reduce: bench_scaling_comm at 2 and 3 processes, 4 KiB..256 MiB: MPI_Allreduce and the
   flat and naive communicators' multi_node_mean_grad; alpha-beta lines fitted per side.
2. Step time: train_mlp_distributed (MLP, Adam, batch 100 per process, one thread each) alone
   (--communicator none), with the gradient path but no communication (dummy) and with the
   flat communicator, at 2 and 3 processes; median images/s over rounds, order alternating;
   and bench_scaling_step's per-step times at 2 processes (dummy): the compute jitter that
   a synchronous all-reduce turns into waiting for the slowest rank.
3. Model: predicted E(N) at N = 1..1024 for the MLP and ResNet-50 (batch 32) on this machine
   and on the GPU cluster profile (profiles.py), ring and hierarchical, bucket overlap where
   the profile has it; the measured 2- and 3-process efficiency against the prediction.
Python standard library only; writes the measurements, the predictions and SVG curves to --out.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)

import measure  # noqa: E402
import model  # noqa: E402
import networks  # noqa: E402
import profiles  # noqa: E402
import svg  # noqa: E402

RANKS = [2 ** k for k in range(11)]  # 1 .. 1024
BUCKET_BYTES = 25 << 20  # the multi-node optimizer's default (--bucket-mib 25)
MEASURED_RANKS = (2, 3)
MLP_BATCH = 100
SIZES = [1 << k for k in range(12, 29)]  # 4 KiB .. 256 MiB


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default="build")
    p.add_argument("--out", default=os.path.join(ROOT, "result", "scaling"))
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--iterations", type=int, default=150)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--comm-seconds", type=float, default=0.3)
    p.add_argument("--reuse", help="measured.json of an earlier run: skip the measurements")
    p.add_argument("--self-check", action="store_true", help="run the model's checks on synthetic data and exit")
    return p.parse_args()


# ---------------------------------------------------------------- measuring


def measure_all(args):
    busy = measure.busy_fraction()
    if busy is not None and busy > 0.1:
        print(f"note: the CPUs were {busy:.0%} busy before measuring: other work shares the cores, "
              "figures will be noisy")
    comm_exe = measure.program(ROOT, args.build, "bench_scaling_comm")
    step_exe = measure.program(ROOT, args.build, "bench_scaling_step")
    train_exe = measure.program(ROOT, args.build, "train_mlp_distributed")
    comm = {}
    for ranks in MEASURED_RANKS:
        print(f"all-reduce at {ranks} processes, 4 KiB .. 256 MiB ...", flush=True)
        comm[ranks] = measure.comm_times(comm_exe, ranks, SIZES, args.comm_seconds,
                                         log=lambda line: print(line, flush=True))
    print(f"training steps, {args.rounds} rounds of {args.iterations} iterations (+{args.warmup} warm-up):", flush=True)
    configs = [(1, "none")] + [(r, c) for r in MEASURED_RANKS for c in ("dummy", "flat")]
    images = measure.training(train_exe, configs, args.rounds, args.iterations, args.warmup,
                              log=lambda line: print(line, flush=True))
    cores = measure.cpu_model()[1]
    jitter = {}
    for ranks in (r for r in MEASURED_RANKS if r <= cores):
        print(f"per-step jitter at {ranks} processes (bench_scaling_step, dummy):", flush=True)
        jitter[str(ranks)] = measure.step_jitter(step_exe, ranks, args.rounds, args.iterations, args.warmup,
                                                 log=lambda line: print(line, flush=True))
    shares = measure.kept_shares
    dirty = [x for x in shares if x > measure.CLEAN_SHARE]
    print(f"{len(shares)} runs kept; {len(dirty)} of them with other processes above {measure.CLEAN_SHARE:.0%} of the"
          f" CPUs{f' (at most {max(dirty):.0%}): their figures are noisy' if dirty else ''}", flush=True)
    return {"comm": {str(r): sides for r, sides in comm.items()},
            "images_per_s": {f"{r}x{c}": v for (r, c), v in images.items()},
            "jitter_s": jitter,
            "disturbed_runs": len(dirty), "runs": len(shares)}


def load_measured(data):
    comm = {int(r): {side: [tuple(p) for p in pts] for side, pts in sides.items()}
            for r, sides in data["comm"].items()}
    images = {(int(k.split("x")[0]), k.split("x")[1]): v for k, v in data["images_per_s"].items()}
    jitter = {int(r): samples for r, samples in data.get("jitter_s", {}).items()}
    return comm, images, jitter


# ---------------------------------------------------------------- this machine


def step_s(images, ranks, communicator):
    """Seconds per step of one process (batch MLP_BATCH each) from images/s over all processes."""
    return MLP_BATCH * ranks / images[(ranks, communicator)]


def machine_compute(images, cores):
    """Per-rank step compute at N ranks: the dummy run (gradient path, no communication) at N
    where it was measured (2 and 3: at 3 on 2 cores it holds the time-sharing); beyond, the
    processes time-share the cores: compute(cores) * N / cores, times the overhead the measured
    oversubscribed run showed over that rule (oversubscription())."""
    def compute(ranks):
        if ranks == 1:
            return step_s(images, 1, "none")
        if ranks in MEASURED_RANKS:
            return step_s(images, ranks, "dummy")
        within = min(ranks, cores, max(MEASURED_RANKS))
        share = max(1.0, ranks / within)
        return step_s(images, within, "dummy") * share * (oversubscription(images, cores) if share > 1 else 1.0)
    return compute


def oversubscription(images, cores):
    """The measured dummy step at the first oversubscribed count against compute(cores) * N / cores:
    what time-sharing costs beyond the shared core time (context switches, caches refilled)."""
    over = [r for r in MEASURED_RANKS if r > cores]
    if not over or cores not in MEASURED_RANKS:
        return 1.0
    return step_s(images, over[0], "dummy") / (step_s(images, cores, "dummy") * over[0] / cores)


def machine_skew(jitter, cores):
    """The wait for the slowest rank per step (model.straggler) on the 2-process jitter, where
    the ranks fit on the cores. Past the cores it is not added: there a rank is always off its
    core, and the all-reduce measured with as many processes already waits for it (its ~2.5 ms
    "latency" at 3 processes on 2 cores is that wait)."""
    samples = jitter.get(2, [])

    def skew(ranks):  # N <= cores, or whole nodes of `cores` processes in the cluster extrapolation
        return model.straggler(samples, ranks) if ranks <= cores or ranks % cores == 0 else 0.0
    return skew


def validate(images, fits, cores, mlp, skew):
    """Measured E(N) = images/s(N) / (N images/s(1)) against t1 / (compute(N) + skew(N) + T_flat(N))."""
    t1 = step_s(images, 1, "none")
    compute = machine_compute(images, cores)
    rows = []
    for ranks in MEASURED_RANKS:
        measured = images[(ranks, "flat")] / (ranks * images[(1, "none")])
        comm = fits[ranks]["flat"](mlp.grad_bytes)
        wait = skew(ranks) if ranks <= cores else 0.0
        predicted = t1 / (compute(ranks) + wait + comm)
        rows.append({"ranks": ranks, "measured": measured, "predicted": predicted, "error": abs(measured - predicted),
                     "t1_ms": t1 * 1e3, "compute_ms": compute(ranks) * 1e3, "comm_ms": comm * 1e3,
                     "skew_ms": wait * 1e3,
                     "dummy_ms": step_s(images, ranks, "dummy") * 1e3, "flat_ms": step_s(images, ranks, "flat") * 1e3})
    return rows


# ---------------------------------------------------------------- profiles


def machine_profile(images, fits, skew, mlp, rn50):
    """This machine as the node of a cluster (2 ranks per node, see profiles.machine_cluster);
    ResNet-50's step here is the measured MLP step scaled by FLOPs (an estimate), its jitter the
    MLP's scaled by the square root of the step (independent hiccups add up that way)."""
    cluster = profiles.machine_cluster(fits[2]["flat"], fits[2]["mpi"])
    t1 = step_s(images, 1, "none")
    # Two processes on the node's cores; never below 1 (a faster pair is noise, not physics).
    sharing = max(1.0, step_s(images, 2, "dummy") / t1)

    def workload(network, t_one):
        return model.Workload(network, t_one, lambda ranks: t_one if ranks == 1 else t_one * sharing,
                              lambda ranks: skew(ranks) * (t_one / t1) ** 0.5)  # jitter ~ sqrt(step)
    rn50_t1 = t1 * rn50.step_flops() / mlp.step_flops()
    return {"name": "this machine (nodes of 2 processes; inter-node = MPI between 2 processes here)",
            "cluster": cluster, "overlap": False,
            "workloads": {"MLP": workload(mlp, t1), "ResNet-50": workload(rn50, rn50_t1)}}


def gpu_profile(mlp, rn50):
    cluster, _ = profiles.gpu_cluster()
    rn50_t1 = profiles.gpu_resnet50_step(rn50.batch)
    mlp_t1 = rn50_t1 * mlp.step_flops() / rn50.step_flops()
    return {"name": "GPU cluster (8 x H100/H200 per node on NVLink, 400 Gb/s NDR per GPU)",
            "cluster": cluster, "overlap": True,
            "workloads": {"MLP": model.Workload(mlp, mlp_t1, lambda ranks: mlp_t1),
                          "ResNet-50": model.Workload(rn50, rn50_t1, lambda ranks: rn50_t1)}}


ALGORITHMS = {"ring": model.flat_ring_time, "hier": model.hierarchical_time}


def curve(profile, net, algorithm, overlap):
    work, time = profile["workloads"][net], ALGORITHMS[algorithm]
    return [(n, model.efficiency(work, n, lambda size, n=n: time(size, n, profile["cluster"]), BUCKET_BYTES, overlap))
            for n in RANKS]


def columns(profile):
    """(label, network, algorithm, overlap) of a profile's table."""
    cols = [(f"{net} {alg}", net, alg, profile["overlap"]) for net in ("MLP", "ResNet-50") for alg in ("ring", "hier")]
    if profile["overlap"]:
        cols.append(("ResNet-50 hier, no overlap", "ResNet-50", "hier", False))
    return cols


def predict(profile):
    return {label: curve(profile, net, alg, overlap) for label, net, alg, overlap in columns(profile)}


# ---------------------------------------------------------------- printing


def print_fits(fits):
    print("\nAll-reduce fits t(n) = a + b n (least squares on relative error, 4 KiB..256 MiB; two lines where"
          " two fit far better),\nas ring terms per hop: alpha = a / 2(N-1), beta = b N / 2(N-1)")
    print(f"{'procs':>5}  {'side':6}  {'sizes':>10}  {'a (us)':>9}  {'1/b (GB/s)':>10}  {'alpha (us)':>10}"
          f"  {'1/beta (GB/s)':>13}  {'median err':>10}")
    for ranks, sides in fits.items():
        for side, (curve, err) in sides.items():
            for i, (label, line) in enumerate(curve.regimes()):
                link = model.ring_link(line, ranks)
                shown = f"{err:10.3f}" if i == 0 else ""
                print(f"{ranks:5d}  {side:6}  {label:>10}  {line.a * 1e6:9.2f}  {line.gbps:10.3f}  "
                      f"{link.alpha * 1e6:10.2f}  {1e-9 / link.beta:13.3f}  {shown}")


def print_gpu_terms():
    cluster, curve = profiles.gpu_cluster()
    err = model.fit_error(curve, profiles.gpu_intra_points())
    print("\nGPU cluster profile terms (sources in benchmarks/scaling/profiles.py):")
    for label, line in curve.regimes():
        link = model.ring_link(line, profiles.GPU_PER_NODE)
        print(f"  NVLink all-reduce over 8 (nccl-tests, ND H200 v5), {label}: a = {line.a * 1e6:.2f} us, "
              f"1/b = {line.gbps:.1f} GB/s; per hop alpha = {link.alpha * 1e6:.2f} us, "
              f"1/beta = {1e-9 / link.beta:.1f} GB/s")
    print(f"  (median err of the NVLink fit {err:.3f})")
    print(f"  InfiniBand per GPU: alpha = {cluster.inter.alpha * 1e6:.1f} us, 1/beta = {1e-9 / cluster.inter.beta:.1f}"
          f" GB/s; ResNet-50 step (batch 32) = {profiles.gpu_resnet50_step(32) * 1e3:.2f} ms")


def print_table(profile, table):
    labels = list(table)
    print(f"\nPredicted efficiency, {profile['name']}"
          f"{', bucket overlap' if profile['overlap'] else ', no overlap (the reduction runs on the compute cores)'}"
          f"; t1: MLP {profile['workloads']['MLP'].t1 * 1e3:.3f} ms, "
          f"ResNet-50 {profile['workloads']['ResNet-50'].t1 * 1e3:.1f} ms")
    print(f"{'N':>5}  " + "  ".join(f"{label:>{max(9, len(label))}}" for label in labels))
    for i, ranks in enumerate(RANKS):
        print(f"{ranks:5d}  " + "  ".join(f"{table[label][i][1]:>{max(9, len(label))}.3f}" for label in labels))


def print_validation(rows, images, cores):
    print("\nValidation on this machine (MLP, flat communicator, 25 MiB buckets: one bucket of "
          f"{networks.mlp().grad_bytes} bytes):")
    factor = oversubscription(images, cores)
    if factor != 1.0:
        print(f"  time-sharing: the oversubscribed dummy step is {factor:.3f} x compute({cores}) * N / {cores}")
    for r in rows:
        print(f"  {r['ranks']} processes: t1 {r['t1_ms']:.2f} ms, compute (dummy) {r['compute_ms']:.2f} ms, "
              f"wait for the slowest rank {r['skew_ms']:.2f} ms, "
              f"all-reduce (fit) {r['comm_ms']:.2f} ms, predicted step "
              f"{r['compute_ms'] + r['skew_ms'] + r['comm_ms']:.2f} ms, measured step {r['flat_ms']:.2f} ms")
    for r in rows:
        print(f"validation: measured E at {r['ranks']} ranks {r['measured']:.3f}, predicted {r['predicted']:.3f}, "
              f"error {r['error']:.3f}")


# ---------------------------------------------------------------- output


def write_svgs(out, machine_table, gpu_table, rows):
    os.makedirs(out, exist_ok=True)
    points = [(f"{r['ranks']} procs: measured (filled), predicted", r["ranks"], r["measured"], True) for r in rows]
    points += [("", r["ranks"], r["predicted"], False) for r in rows]
    for net, name in (("MLP", "mlp"), ("ResNet-50", "resnet50")):
        series = [(f"GPU {label.split(' ', 1)[1]}", curve) for label, curve in gpu_table.items()
                  if label.startswith(net)]
        series += [(f"this machine {label.split(' ', 1)[1]}", curve) for label, curve in machine_table.items()
                   if label.startswith(net)]
        title = f"{net}: predicted efficiency (weak scaling, 25 MiB buckets; GPU with bucket overlap)"
        with open(os.path.join(out, f"{name}.svg"), "w") as f:
            f.write(svg.plot(title, series, points if net == "MLP" else ()))


def main():
    args = parse_args()
    if args.self_check:
        import test_model
        sys.exit(test_model.main())
    name, cores = measure.cpu_model()
    print(f"Model name: {name} ({cores} CPUs online)")
    data = json.load(open(args.reuse)) if args.reuse else measure_all(args)
    comm, images, jitter = load_measured(data)
    mlp, rn50 = networks.mlp(MLP_BATCH), networks.resnet50(32)
    fits = {r: {side: (model.fit_curve(pts), model.fit_error(model.fit_curve(pts), pts)) for side, pts in sides.items()}
            for r, sides in comm.items()}
    print_fits(fits)
    print_gpu_terms()
    lines = {r: {side: line for side, (line, _) in sides.items()} for r, sides in fits.items()}
    skew = machine_skew(jitter, cores)
    machine, gpu = machine_profile(images, lines, skew, mlp, rn50), gpu_profile(mlp, rn50)
    machine_table, gpu_table = predict(machine), predict(gpu)
    print_table(machine, machine_table)
    print_table(gpu, gpu_table)
    rows = validate(images, lines, cores, mlp, skew)
    print_validation(rows, images, cores)
    e512 = dict(gpu_table["ResNet-50 hier"])[512]
    print(f"predicted efficiency ResNet-50 N=512: {e512:.3f}")
    write_svgs(args.out, machine_table, gpu_table, rows)
    with open(os.path.join(args.out, "measured.json"), "w") as f:
        json.dump(data, f, indent=1)
    with open(os.path.join(args.out, "predicted.json"), "w") as f:
        json.dump({"cpu": name, "validation": rows, "this_machine": machine_table, "gpu_cluster": gpu_table}, f,
                  indent=1)
    shown = os.path.relpath(args.out, ROOT) if os.path.abspath(args.out).startswith(ROOT + os.sep) else args.out
    print(f"\nwrote {shown}/: mlp.svg, resnet50.svg, measured.json, predicted.json")
    return 0 if max(r["error"] for r in rows) <= 0.05 else 1


if __name__ == "__main__":
    sys.exit(main())
