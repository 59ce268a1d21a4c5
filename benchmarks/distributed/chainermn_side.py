"""The real ChainerMN 7.8.1 sides of the distributed MLP benchmark, for run.py.

chainermn_sides(args, run) gives {"chainermn 1x1": side, "chainermn 2x1": side}; each side()
starts chainermn_mlp.py in .venv-chainermn (made by scripts/install-chainermn-bench.sh)
through run(cmd) and returns its JSON line as a dict (images_per_s, seconds, step_ms,
iterations, processes, last_loss).
"""
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
PYTHON = os.path.join(ROOT, ".venv-chainermn", "bin", "python")
PROGRAM = os.path.join(HERE, "chainermn_mlp.py")


def chainermn_sides(args, run):
    """The two ChainerMN sides; args has .iterations and .warmup; run(cmd) runs a command on one
    thread per process and returns its last JSON line (run.py's run_json)."""
    if not os.path.exists(PYTHON):
        raise SystemExit(".venv-chainermn not found: run scripts/install-chainermn-bench.sh")
    mpiexec = shutil.which("mpiexec")
    if mpiexec is None:
        raise SystemExit("mpiexec not found: install MPICH (scripts/install-deps.sh)")
    cmd = [PYTHON, PROGRAM, "--iterations", str(args.iterations), "--warmup", str(args.warmup)]
    return {
        # No mpiexec: a singleton MPI job, the multi-node optimizer over one rank.
        "chainermn 1x1": lambda: run(cmd),
        "chainermn 2x1": lambda: run([mpiexec, "-n", "2"] + cmd),
    }
