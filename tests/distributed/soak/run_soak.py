#!/usr/bin/env python3
"""The soak test: training killed and restarted from its multi-node checkpoint, again and again.

run_soak.py --mpiexec MPIEXEC --prog PROG [--np 2] [--iterations 60] [--checkpoint-every 5]
            [--kills 5] [--seed S] [--max-seconds 170] [--env K=V]...

1. A straight job (`mpiexec -n NP PROG --dir straight ...`) trains for --iterations and writes
   every rank's final parameters.
2. Then, --kills times, a job in another folder resumes from its newest common checkpoint (the
   driver predicts which from the files and checks the job's "resumed at") and one rank ends
   itself at a random iteration of the next 4 checkpoint intervals (random rank, phase and way:
   SIGKILL, SIGTERM, _exit(0), _exit(1), an uncaught exception). Each such job must fail
   (non-zero status) with a line naming that rank (issue 20, item 2).
3. A last job resumes and completes: every rank's final parameters (and Adam's t) must equal the
   straight job's bit for bit.

Every job has a hard time limit; the whole test stops with a failure after --max-seconds. The seed
(random unless given) is printed so that a failure can be replayed.
"""
import argparse
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time

WAYS = ["sigkill", "sigterm", "_exit0", "_exit1", "exception"]
# What the job's output must say about the rank that ended: rensa's own line, or its watcher's (which
# says "ended" when mpiexec reaped the rank before the watcher could read its status).
REAPED = r"rensa: rank {r}: ended, pid \d+, before the other ranks finished, without rensa's exit"
NAMED = {
    "sigkill": r"rensa: rank {r}: killed by signal 9 \(SIGKILL\)|" + REAPED,
    "sigterm": r"rensa: rank {r}: killed by signal 15, pid \d+$",
    "_exit0": r"rensa: rank {r}: exited with status 0,|" + REAPED,
    "_exit1": r"rensa: rank {r}: exited with status 1,|" + REAPED,
    "exception": r"rensa: rank {r}: uncaught exception: soak: planned failure",
}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mpiexec", required=True)
    parser.add_argument("--prog", required=True)
    parser.add_argument("--np", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=60)
    parser.add_argument("--checkpoint-every", type=int, default=5)
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--max-seconds", type=float, default=170)
    parser.add_argument("--env", action="append", default=[])
    return parser.parse_args()


class Soak:
    def __init__(self, args):
        self.args = args
        self.deadline = time.monotonic() + args.max_seconds
        self.env = dict(os.environ)
        self.env.pop("RENSA_DISTRIBUTED_DEBUG", None)
        self.env.setdefault("OMP_NUM_THREADS", "1")
        self.env.setdefault("RENSA_WATCHDOG_TIMEOUT", "20")
        for item in args.env:
            key, _, value = item.partition("=")
            self.env[key] = value

    def job(self, folder, extra):
        """Runs one job; returns (status, output). Fails the test on a hang or the overall deadline."""
        command = [self.args.mpiexec, "-n", str(self.args.np), self.args.prog, "--dir", folder,
                   "--iterations", str(self.args.iterations),
                   "--checkpoint-every", str(self.args.checkpoint_every)] + extra
        limit = min(60.0, self.deadline - time.monotonic())
        if limit <= 0:
            raise SystemExit(f"FAIL: over {self.args.max_seconds} s before `{' '.join(command)}`")
        start = time.monotonic()
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=self.env,
                                start_new_session=True)
        try:
            output, _ = proc.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            output, _ = proc.communicate()
            print(output.decode(errors="replace"))
            raise SystemExit(f"FAIL: `{' '.join(command)}` hung: killed after {limit:.0f} s")
        text = output.decode(errors="replace")
        print(f"$ {' '.join(extra) or '(no kill)'}: status {proc.returncode}, {time.monotonic() - start:.1f} s")
        return proc.returncode, text

    def finals(self, folder):
        out = []
        for r in range(self.args.np):
            with open(os.path.join(folder, f"final.{r}.bin"), "rb") as f:
                out.append(f.read())
        return out


def newest_common_checkpoint(folder, np):
    """The iteration a job in `folder` resumes at: the newest checkpoint every rank has (0: none)."""
    per_rank = [set() for _ in range(np)]
    for name in os.listdir(folder) if os.path.isdir(folder) else []:
        found = re.fullmatch(r"soak\.(\d+)\.(\d+)", name)
        if found and int(found.group(1)) < np:
            per_rank[int(found.group(1))].add(int(found.group(2)))
    common = set.intersection(*per_rank)
    return max(common) if common else 0


def resumed_at(text):
    found = re.findall(r"^resumed at iteration (\d+)$", text, re.M)
    return int(found[-1]) if found else 0


def main():
    args = parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
    rng = random.Random(seed)
    print(f"soak: seed {seed}, {args.np} ranks, {args.iterations} iterations, {args.kills} kills")
    soak = Soak(args)
    failures = []
    with tempfile.TemporaryDirectory(prefix="rensa_soak_") as root:
        straight, killed = os.path.join(root, "straight"), os.path.join(root, "killed")
        status, text = soak.job(straight, [])
        if status != 0:
            print(text)
            raise SystemExit(f"FAIL: the straight job ended with status {status}")
        reference = soak.finals(straight)
        if len(set(reference)) != 1:
            failures.append("the straight job's ranks ended with different parameters")
        for k in range(args.kills):
            start = newest_common_checkpoint(killed, args.np)
            if start + 1 > args.iterations - 1:
                break
            # Somewhere in the next few checkpoint intervals, so that the kills spread over the run.
            kill_at = rng.randint(start + 1, min(args.iterations - 1, start + 4 * args.checkpoint_every))
            rank = rng.randrange(args.np)
            way = rng.choice(WAYS)
            phase = rng.choice(["forward", "update"])
            status, text = soak.job(killed, ["--kill-at", str(kill_at), "--kill-rank", str(rank), "--kill-how", way,
                                             "--kill-phase", phase])
            if resumed_at(text) != start:
                failures.append(f"kill {k}: resumed at {resumed_at(text)}, expected {start}")
            if status == 0:
                failures.append(f"kill {k}: rank {rank} ended by {way} at {kill_at} ({phase}) and the job exited 0")
            if not re.search(NAMED[way].format(r=rank), text, re.M):
                failures.append(f"kill {k}: no line names rank {rank} ended by {way}: /{NAMED[way].format(r=rank)}/")
            if failures:
                print(text)
                break
        start = newest_common_checkpoint(killed, args.np)
        if not failures:
            status, text = soak.job(killed, [])
            if status != 0:
                print(text)
                failures.append(f"the last job ended with status {status}")
            elif resumed_at(text) != start:
                failures.append(f"the last job resumed at {resumed_at(text)}, expected {start}")
            elif soak.finals(killed) != reference:
                failures.append("the final parameters differ from the straight job's")
    for failure in failures:
        print("FAIL:", failure)
    if failures:
        print(f"(replay with --seed {seed})")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
