"""Distributed benchmarks (issue 7, "Speed"), one script, one run, ratios against baselines
measured in the same run (benchmarks/README.md, "Distributed"). Usage, from the repository root:
    .venv-bench/bin/python benchmarks/distributed/run.py [--build build] [--rounds 3] [--iterations 300]
        [--skip-allreduce] [--skip-train] [--skip-torch]

1. All-reduce: `mpiexec -n 2 <build>/benchmarks/bench_allreduce --json`: the naive communicator's
   allreduce_inplace, the flat one's and the flat multi_node_mean_grad over a model-shaped list,
   each against raw MPI_Allreduce (calls alternate inside the program). Target: >= 0.95.
2. MLP training (784-1000-1000-10, Adam, batch 100 per process, Fashion-MNIST), every process on
   one thread (OMP_NUM_THREADS=1), the sides alternating in each round:
     rensa 1x1            train_mlp_distributed --communicator none (plain Adam, no MPI)
     rensa 2x1 overlap    mpiexec -n 2 train_mlp_distributed (flat, overlap on)
     rensa 2x1 no overlap mpiexec -n 2 train_mlp_distributed --overlap off
     rensa 2x1 dummy      mpiexec -n 2 train_mlp_distributed --communicator dummy (packs, no
                          all-reduce: the cost of 2 processes sharing the machine, no communication)
     torch 1x1            the same model/optimizer/batch in PyTorch, one thread
     torch DDP 2x1        DistributedDataParallel, gloo on 127.0.0.1, 2 processes x 1 thread
   Scaling efficiency = images/s at 2 processes / (2 x images/s at 1 process) (target >= 0.95);
   rensa 2x1 / torch DDP 2x1 (target >= 1.5).
"""
import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "benchmarks", "train_mlp"))
import bench_common  # noqa: E402  (Fashion-MNIST loading, shared with train_mlp)

ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


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


def run_json(cmd, env_extra, lines=False):
    """Runs cmd; returns its last JSON line (or all JSON lines when lines=True)."""
    env = dict(os.environ, **env_extra)
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=900)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed with {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    found = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith("{")]
    return found if lines else found[-1]


# ---------------------------------------------------------------- all-reduce


def bench_allreduce(args):
    cmd = [mpiexec(), "-n", "2", program(args.build, "bench_allreduce"), "--json"]
    results = run_json(cmd, ONE_THREAD, lines=True)
    print("\nAll-reduce of float32 on 2 processes (median of the slowest rank per call; calls alternate)")
    print(f"{'size':>8}  {'MPI_Allreduce':>14}  {'naive':>14}  {'flat':>14}  {'flat mean_grad':>16}  "
          f"ratios to MPI (target >= 0.95)")
    for r in results:
        cells = [f"{r[k + '_gbps']:8.3f} GB/s" for k in ("mpi", "naive", "flat")]
        ratios = {k: r["mpi_s"] / r[k + "_s"] for k in ("naive", "flat", "mean_grad")}
        met = "met" if min(ratios["naive"], ratios["flat"]) >= 0.95 else "NOT met"
        print(f"{r['size_mib']:5d} MiB  {cells[0]:>14}  {cells[1]:>14}  {cells[2]:>14}  "
              f"{r['mean_grad_gbps']:10.3f} GB/s  naive {ratios['naive']:.3f}, flat {ratios['flat']:.3f}, "
              f"mean_grad {ratios['mean_grad']:.3f}: {met}", flush=True)
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
        # The dummy communicator packs the grads and does not communicate: what 2 processes
        # cost each other (cores, memory bandwidth, packing) without the all-reduce.
        "rensa 2x1 dummy": lambda: run_json([mpiexec(), "-n", "2", prog, "--communicator", "dummy"] + common,
                                            ONE_THREAD),
    }
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
            print(f"  round {r + 1} {key:22s} {res['images_per_s']:9.1f} images/s  step {res['step_ms']:7.2f} ms  "
                  f"last loss {res['last_loss']:.4f}", flush=True)
    med = {k: statistics.median(x["images_per_s"] for x in v) for k, v in results.items()}
    step = {k: statistics.median(x["step_ms"] for x in v) for k, v in results.items()}
    print()
    for k in sides:
        print(f"median {k:22s} {med[k]:9.1f} images/s  step {step[k]:7.2f} ms")
    best2 = max(med["rensa 2x1 overlap"], med["rensa 2x1 no overlap"])
    eff = best2 / (2 * med["rensa 1x1"])
    print(f"scaling efficiency rensa 2x1 / (2 x 1x1): {eff:.3f} (overlap {med['rensa 2x1 overlap'] / (2 * med['rensa 1x1']):.3f}, "
          f"no overlap {med['rensa 2x1 no overlap'] / (2 * med['rensa 1x1']):.3f}); target >= 0.95: "
          f"{'met' if eff >= 0.95 else 'NOT met'}")
    print(f"step time with overlap {step['rensa 2x1 overlap']:.2f} ms, without {step['rensa 2x1 no overlap']:.2f} ms, "
          f"without communication (dummy) {step['rensa 2x1 dummy']:.2f} ms, 1 process {step['rensa 1x1']:.2f} ms")
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
        if not args.skip_torch:
            cell += f", rensa/DDP {two / x['torch DDP 2x1']:.2f}x"
        per_round.append(cell)
    print("per round: " + "; ".join(per_round))
    print(f"load average {os.getloadavg()[0]:.2f} at end")
    return med


def main():
    parser = argparse.ArgumentParser(description="distributed benchmarks: all-reduce and MLP training over MPI")
    parser.add_argument("--build", default="build", help="the CMake build folder")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--skip-allreduce", action="store_true")
    parser.add_argument("--skip-train", action="store_true")
    parser.add_argument("--skip-torch", action="store_true", help="rensa only (no .venv-bench needed)")
    parser.add_argument("--torch-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--rank", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--world", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.torch_child:
        torch_child(args.rank, args.world, args.port, args.iterations, args.warmup)
        return
    print(f"distributed benchmarks, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start")
    if not args.skip_allreduce:
        bench_allreduce(args)
    if not args.skip_train:
        bench_train(args)


if __name__ == "__main__":
    main()
