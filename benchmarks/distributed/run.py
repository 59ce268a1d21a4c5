"""Distributed benchmarks (issues 7 and 18), one script, one run, ratios against baselines
measured in the same run (benchmarks/README.md, "Distributed"). Usage, from the repository root:
    .venv-bench/bin/python benchmarks/distributed/run.py [--build build] [--rounds 3] [--iterations 300]
        [--skip-allreduce] [--skip-train] [--skip-torch] [--skip-chainermn] [--network] [--progress-options]

1. All-reduce: `mpiexec -n 2 <build>/benchmarks/bench_allreduce --json`: the naive communicator's
   allreduce_inplace, the flat one's, the flat multi_node_mean_grad over a model-shaped list (the
   gradient buckets) and the same with allreduce_grad_dtype bfloat16 / float16, each against raw
   MPI_Allreduce (calls alternate inside the program). Targets: mean_grad >= 0.95 of MPI;
   bfloat16 >= 1.8x float32's elements per second.
2. MLP training (784-1000-1000-10, Adam, batch 100 per process, Fashion-MNIST), every process on
   one thread (OMP_NUM_THREADS=1), the sides alternating in each round:
     rensa 1x1            train_mlp_distributed --communicator none (plain Adam, no MPI)
     rensa 2x1 overlap    mpiexec -n 2 train_mlp_distributed (flat, overlap on)
     rensa 2x1 no overlap mpiexec -n 2 train_mlp_distributed --overlap off
     rensa 2x1 dummy      the gradient path (buckets) without communication
     rensa 2 x none       two independent plain-Adam processes side by side (what two
                          processes cost each other on this machine, no gradient path)
     chainermn 1x1, 2x1   real ChainerMN 7.8.1 (.venv-chainermn, naive communicator)
     torch 1x1, DDP 2x1   the same model in PyTorch, DDP over gloo on 127.0.0.1
   Scaling efficiency = images/s at 2 processes / (2 x images/s at 1 process) (target >= 0.85
   and >= ChainerMN's); rensa 2x1 / ChainerMN 2x1 (target >= 1.5); dummy step / "2 x none"
   step (target <= 1.03).
--network: the ranks share no memory (MPICH's MPIR_CVAR_NOLOCAL, UCX over TCP on loopback).
--progress-options: also the buckets over the ring, over MPI_Iallreduce polled from backward,
and over MPI_Iallreduce with MPICH's asynchronous progress thread.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "benchmarks", "train_mlp"))
import bench_common  # noqa: E402  (Fashion-MNIST loading, shared with train_mlp)
from chainermn_side import chainermn_sides  # noqa: E402

ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
# The network path (--network): no shared memory between the ranks, as between machines. MPICH
# treats every rank as a node of its own and UCX sends over TCP on the loopback device (the
# same switches as the "network" CTest variants in tests/CMakeLists.txt).
NETWORK = {"MPIR_CVAR_NOLOCAL": "1", "UCX_TLS": "tcp,self", "UCX_NET_DEVICES": "lo"}


def program(build, name):
    path = os.path.join(ROOT, build, "benchmarks", name)
    if not os.path.exists(path):
        path = os.path.join(build, "benchmarks", name)
    if not os.path.exists(path):
        raise SystemExit(f"{path} not found: build it first (cmake --build {build} --target {name})")
    return path


def mpiexec():
    exe = shutil.which("mpiexec")
    if exe is None:
        raise SystemExit("mpiexec not found: install MPICH (scripts/install-deps.sh)")
    return exe


def run_json(cmd, env_extra, lines=False, expect=1):
    """Runs cmd; returns its last JSON line (or all JSON lines when lines=True).

    Once `expect` JSON lines arrived the program has done its work: if it does not exit within
    20 s it is killed, with a note. rensa's programs exit (Note [Watchdog protocol] in
    distributed/detail/watchdog.h); a program of another side that ends its MPI traffic unevenly
    can hang in MPI_Finalize on the network path (MPICH 4.0.2 over UCX's TCP, openucx/ucx issue
    8738), which says nothing about its figures.
    """
    env = dict(os.environ, **env_extra)
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    found, out = [], []
    deadline = time.monotonic() + 900
    for line in proc.stdout:
        out.append(line)
        if line.startswith("{"):
            found.append(json.loads(line))
            if len(found) >= expect:
                break
        if time.monotonic() > deadline:
            break
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        if len(found) >= expect:
            print(f"  (killed after its result, it did not exit: {' '.join(cmd)[:100]})", flush=True)
            return found if lines else found[-1]
    if proc.returncode != 0 or len(found) < expect:
        raise SystemExit(f"{' '.join(cmd)} failed with {proc.returncode}:\n{''.join(out)}\n{proc.stderr.read()}")
    return found if lines else found[-1]


# ---------------------------------------------------------------- all-reduce


def bench_allreduce(args):
    cmd = [mpiexec(), "-n", "2", program(args.build, "bench_allreduce"), "--json"]
    results = run_json(cmd, ONE_THREAD, lines=True, expect=3)  # 1, 16 and 64 MiB
    print("\nAll-reduce of float32 on 2 processes (median of the slowest rank per call; calls alternate)")
    print(f"{'size':>8}  {'MPI_Allreduce':>14}  {'naive':>14}  {'flat':>14}  {'flat mean_grad':>16}  "
          f"ratios to MPI (target for mean_grad >= 0.95)")
    for r in results:
        cells = [f"{r[k + '_gbps']:8.3f} GB/s" for k in ("mpi", "naive", "flat")]
        ratios = {k: r["mpi_s"] / r[k + "_s"] for k in ("naive", "flat", "mean_grad")}
        met = "met" if ratios["mean_grad"] >= 0.95 else "NOT met"
        print(f"{r['size_mib']:5d} MiB  {cells[0]:>14}  {cells[1]:>14}  {cells[2]:>14}  "
              f"{r['mean_grad_gbps']:10.3f} GB/s  naive {ratios['naive']:.3f}, flat {ratios['flat']:.3f}, "
              f"mean_grad {ratios['mean_grad']:.3f}: {met}", flush=True)
    print("Reduced precision: multi_node_mean_grad of the same float32 grads with allreduce_grad_dtype, "
          "elements per second against float32 (target for bfloat16 >= 1.8 at >= 1 MiB)")
    for r in results:
        bf16 = r["mean_grad_s"] / r["mean_grad_bf16_s"]
        fp16 = r["mean_grad_s"] / r["mean_grad_fp16_s"]
        print(f"{r['size_mib']:5d} MiB  bfloat16 {bf16:.2f}x, float16 {fp16:.2f}x: "
              f"{'met' if bf16 >= 1.8 else 'NOT met'}", flush=True)
    return results


# ---------------------------------------------------------------- PyTorch side


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def torch_child(rank, world, port, iterations, warmup):
    """One PyTorch process: the MLP, Adam, batch 100 of this rank's shard, one thread."""
    import torch
    import torch.distributed as tdist
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(784, 1000), torch.nn.ReLU(), torch.nn.Linear(1000, 1000),
                                torch.nn.ReLU(), torch.nn.Linear(1000, 10))
    if world > 1:
        tdist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
        model = torch.nn.parallel.DistributedDataParallel(model)
    optimizer = torch.optim.Adam(model.parameters())
    images, labels = bench_common.load_train()
    # This rank's shard (DistributedSampler's split of one shared permutation).
    perm = torch.randperm(images.shape[0], generator=torch.Generator().manual_seed(0))[rank::world]
    x_all = torch.from_numpy(images)[perm]
    t_all = torch.from_numpy(labels)[perm]
    n, batch = x_all.shape[0], 100
    loss_fn = torch.nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(rank)
    order = None

    def step(it):
        nonlocal order
        pos = (it * batch) % (n - n % batch)
        if pos == 0:
            order = torch.randperm(n, generator=gen)
        idx = order[pos:pos + batch]
        loss = loss_fn(model(x_all.index_select(0, idx)), t_all.index_select(0, idx))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        return loss

    for it in range(warmup):
        step(it)
    if world > 1:
        tdist.barrier()
    start = time.perf_counter()
    for it in range(warmup, warmup + iterations):
        loss = step(it)
    if world > 1:
        tdist.barrier()
    seconds = time.perf_counter() - start
    if rank == 0:
        print(json.dumps({"images_per_s": iterations * batch * world / seconds, "seconds": seconds,
                          "step_ms": seconds * 1e3 / iterations, "processes": world,
                          "last_loss": float(loss.item())}), flush=True)
    if world > 1:
        tdist.destroy_process_group()


def run_torch(args, world):
    port = free_port()
    env = dict(os.environ, **ONE_THREAD)
    procs = [subprocess.Popen([sys.executable, os.path.abspath(__file__), "--torch-child", "--rank", str(r),
                               "--world", str(world), "--port", str(port), "--iterations", str(args.iterations),
                               "--warmup", str(args.warmup)], env=env, stdout=subprocess.PIPE, text=True)
             for r in range(world)]
    outs = [p.communicate(timeout=900)[0] for p in procs]
    if any(p.returncode != 0 for p in procs):
        raise SystemExit(f"torch with {world} processes failed: {[p.returncode for p in procs]}")
    return json.loads([x for x in outs[0].splitlines() if x.startswith("{")][-1])


# ---------------------------------------------------------------- training


def training_sides(args):
    prog = program(args.build, "train_mlp_distributed")
    common = ["--iterations", str(args.iterations), "--warmup", str(args.warmup)]
    sides = {
        "rensa 1x1": lambda: run_json([prog, "--communicator", "none"] + common, ONE_THREAD),
        "rensa 2x1 overlap": lambda: run_json([mpiexec(), "-n", "2", prog, "--overlap", "on"] + common, ONE_THREAD),
        "rensa 2x1 no overlap": lambda: run_json([mpiexec(), "-n", "2", prog, "--overlap", "off"] + common,
                                                 ONE_THREAD),
        # The dummy communicator runs the gradient path (buckets) without communicating; "2 x
        # none" is two independent plain-Adam processes side by side: what 2 processes cost
        # each other (cores, memory bandwidth) without any gradient path.
        "rensa 2x1 dummy": lambda: run_json([mpiexec(), "-n", "2", prog, "--communicator", "dummy"] + common,
                                            ONE_THREAD),
        "rensa 2 x none": lambda: run_json([mpiexec(), "-n", "2", prog, "--communicator", "none"] + common,
                                           ONE_THREAD),
    }
    if args.progress_options:
        # Other ways of progressing the buckets during backward (benchmarks/README.md,
        # "Distributed"): the default polls shared-memory buckets from the leaf-grad hook.
        two = [mpiexec(), "-n", "2", prog] + common
        ring = dict(ONE_THREAD, RENSA_BUCKET_TRANSPORT="ring")
        mpi = dict(ONE_THREAD, RENSA_BUCKET_TRANSPORT="mpi")
        sides["rensa 2x1 ring (p2p polled)"] = lambda: run_json(two, ring)
        sides["rensa 2x1 MPI_Iallreduce polled"] = lambda: run_json(two, mpi)
        sides["rensa 2x1 MPI_Iallreduce + async progress thread"] = lambda: run_json(
            two, dict(mpi, MPIR_CVAR_ASYNC_PROGRESS="1"))
    if not args.skip_chainermn:
        sides.update(chainermn_sides(args, lambda cmd: run_json(cmd, ONE_THREAD)))
    if not args.skip_torch:
        sides["torch 1x1"] = lambda: run_torch(args, 1)
        sides["torch DDP 2x1"] = lambda: run_torch(args, 2)
    return sides


def bench_train(args):
    sides = training_sides(args)
    print(f"\nMLP 784-1000-1000-10, Adam, batch 100 per process, {args.iterations} timed steps after "
          f"{args.warmup}, 1 thread per process; load average {os.getloadavg()[0]:.2f} at start", flush=True)
    results = {k: [] for k in sides}
    for r in range(args.rounds):
        for key, run in sides.items():
            res = run()
            results[key].append(res)
            print(f"  round {r + 1} {key:32s} {res['images_per_s']:9.1f} images/s  step {res['step_ms']:7.2f} ms  "
                  f"last loss {res['last_loss']:.4f}", flush=True)
    med = {k: statistics.median(x["images_per_s"] for x in v) for k, v in results.items()}
    step = {k: statistics.median(x["step_ms"] for x in v) for k, v in results.items()}
    print()
    for k in sides:
        print(f"median {k:32s} {med[k]:9.1f} images/s  step {step[k]:7.2f} ms")
    best2 = max(med["rensa 2x1 overlap"], med["rensa 2x1 no overlap"])
    eff = best2 / (2 * med["rensa 1x1"])
    print(f"scaling efficiency rensa 2x1 / (2 x 1x1): {eff:.3f} (overlap {med['rensa 2x1 overlap'] / (2 * med['rensa 1x1']):.3f}, "
          f"no overlap {med['rensa 2x1 no overlap'] / (2 * med['rensa 1x1']):.3f}); target >= 0.85: "
          f"{'met' if eff >= 0.85 else 'NOT met'}")
    print(f"step time with overlap {step['rensa 2x1 overlap']:.2f} ms, without {step['rensa 2x1 no overlap']:.2f} ms, "
          f"without communication (dummy) {step['rensa 2x1 dummy']:.2f} ms, 2 processes without a communicator "
          f"{step['rensa 2 x none']:.2f} ms, 1 process {step['rensa 1x1']:.2f} ms")
    dummy = step["rensa 2x1 dummy"] / step["rensa 2 x none"]
    print(f"dummy step / step without a communicator: {dummy:.3f}; target <= 1.03: {'met' if dummy <= 1.03 else 'NOT met'}")
    if not args.skip_chainermn:
        ceff = med["chainermn 2x1"] / (2 * med["chainermn 1x1"])
        cratio = best2 / med["chainermn 2x1"]
        print(f"ChainerMN scaling efficiency: {ceff:.3f}; rensa {eff:.3f}: target >= 0.85 and >= ChainerMN's: "
              f"{'met' if eff >= 0.85 and eff >= ceff else 'NOT met'}")
        print(f"rensa 2x1 / ChainerMN 2x1: {cratio:.2f}x; target >= 1.5: {'met' if cratio >= 1.5 else 'NOT met'}")
    if not args.skip_torch:
        teff = med["torch DDP 2x1"] / (2 * med["torch 1x1"])
        ratio = best2 / med["torch DDP 2x1"]
        print(f"torch DDP scaling efficiency: {teff:.3f}; rensa 1x1 / torch 1x1: "
              f"{med['rensa 1x1'] / med['torch 1x1']:.2f}x")
        print(f"rensa 2x1 / torch DDP 2x1: {ratio:.2f}x; target >= 1.5: {'met' if ratio >= 1.5 else 'NOT met'}")
    # Per round (the sides of one round ran back to back, under about the same load).
    per_round = []
    for i in range(args.rounds):
        x = {k: v[i]["images_per_s"] for k, v in results.items()}
        two = max(x["rensa 2x1 overlap"], x["rensa 2x1 no overlap"])
        cell = f"efficiency {two / (2 * x['rensa 1x1']):.3f}"
        if not args.skip_chainermn:
            cell += f" (ChainerMN {x['chainermn 2x1'] / (2 * x['chainermn 1x1']):.3f})"
        if not args.skip_torch:
            cell += f", rensa/DDP {two / x['torch DDP 2x1']:.2f}x"
        per_round.append(cell)
    print("per round: " + "; ".join(per_round))
    print(f"load average {os.getloadavg()[0]:.2f} at end")
    return med


def cpu_model():
    try:
        out = subprocess.run(["lscpu"], stdout=subprocess.PIPE, text=True).stdout
    except OSError:
        return "lscpu not found"
    model = [x.split(":", 1)[1].strip() for x in out.splitlines() if x.startswith("Model name")]
    flags = [x.split(":", 1)[1].split() for x in out.splitlines() if x.startswith("Flags")]
    isa = [f for f in (flags[0] if flags else []) if f.startswith(("avx512", "amx")) or f in ("avx2", "fma")]
    return f"CPU {model[0] if model else '?'} ({' '.join(isa)})"


def main():
    parser = argparse.ArgumentParser(description="distributed benchmarks: all-reduce and MLP training over MPI")
    parser.add_argument("--build", default="build", help="the CMake build folder")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--skip-allreduce", action="store_true")
    parser.add_argument("--skip-train", action="store_true")
    parser.add_argument("--skip-torch", action="store_true", help="no PyTorch side (no .venv-bench needed)")
    parser.add_argument("--skip-chainermn", action="store_true", help="no ChainerMN side (no .venv-chainermn needed)")
    parser.add_argument("--progress-options", action="store_true",
                        help="also the ring, MPI_Iallreduce and MPICH's async progress thread for the buckets")
    parser.add_argument("--network", action="store_true",
                        help="the ranks share no memory: MPI over TCP on loopback (PyTorch's gloo is TCP anyway)")
    parser.add_argument("--torch-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--rank", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--world", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.torch_child:
        torch_child(args.rank, args.world, args.port, args.iterations, args.warmup)
        return
    if args.network:
        os.environ.update(NETWORK)
    print(f"distributed benchmarks, {os.cpu_count()} cores, {cpu_model()}, load average "
          f"{os.getloadavg()[0]:.2f} at start{'; network path: ' + str(NETWORK) if args.network else ''}")
    if not args.skip_allreduce:
        bench_allreduce(args)
    if not args.skip_train:
        bench_train(args)


if __name__ == "__main__":
    main()
