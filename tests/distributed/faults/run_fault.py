#!/usr/bin/env python3
"""Runs one fault case of rensa_fault_prog under mpiexec and checks how the job ended.

run_fault.py --mpiexec MPIEXEC --prog PROG --np N --mode MODE --status {0,nonzero,N}
             --max-seconds S [--expect REGEX]... [--forbid REGEX]... [--env K=V]...

Passes when the job's exit status matches --status, it ended within --max-seconds, every
--expect regex is found and no --forbid regex is found in its output (stdout + stderr).
A job that outlives max-seconds + 30 s is killed and fails the case (never a hang).
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import time


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mpiexec", required=True)
    parser.add_argument("--prog", required=True)
    parser.add_argument("--np", type=int, default=2)
    parser.add_argument("--mode", required=True)
    parser.add_argument("--status", required=True, help="0, nonzero, or an exact code")
    parser.add_argument("--max-seconds", type=float, required=True)
    parser.add_argument("--expect", action="append", default=[])
    parser.add_argument("--forbid", action="append", default=[])
    parser.add_argument("--env", action="append", default=[])
    return parser.parse_args()


def run_job(args):
    env = dict(os.environ)
    env.pop("RENSA_DISTRIBUTED_DEBUG", None)
    for item in args.env:
        key, _, value = item.partition("=")
        env[key] = value
    command = [args.mpiexec, "-n", str(args.np), args.prog, args.mode]
    start = time.monotonic()
    # A session of its own, so a job that hangs is killed whole (mpiexec and its ranks).
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                            start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=args.max_seconds + 30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        output, _ = proc.communicate()
        return None, time.monotonic() - start, output.decode(errors="replace")
    return proc.returncode, time.monotonic() - start, output.decode(errors="replace")


def status_ok(expected, status):
    if expected == "nonzero":
        return status != 0
    return status == int(expected)


# Note [MPICH finalize race]: when the program initialises MPI itself at
# MPI_THREAD_MULTIPLE and calls MPI_Finalize (mode "external"), MPICH 4.0.2's MPI_Finalize
# now and then aborts on a mutex it destroys while it is still held: "Error in system call
# pthread_mutex_destroy: Device or resource busy ... src/mpi/init/mutex.c". rensa's watchdog
# thread is joined by then (MPI_COMM_SELF's delete callback, distributed/detail/mpi_runtime.cc);
# the previous build showed it too (1 run in 30; 6 in 40 under a loaded ctest), and the cause
# is not found yet. That one failure, in that mode, is run again once and reported; any
# other failure, or the same one twice, fails the case.
MPICH_FINALIZE_RACE = "src/mpi/init/mutex.c"


def main():
    args = parse_args()
    status, elapsed, output = run_job(args)
    if args.mode == "external" and status != 0 and MPICH_FINALIZE_RACE in output:
        print(f"$ mpiexec -n {args.np} {os.path.basename(args.prog)} {args.mode}: status {status}, MPICH's "
              f"finalize race (Note [MPICH finalize race]); run again:")
        print(output)
        status, elapsed, output = run_job(args)
    print(f"$ mpiexec -n {args.np} {os.path.basename(args.prog)} {args.mode}: status {status}, {elapsed:.1f} s")
    print(output)
    failures = []
    if status is None:
        failures.append(f"the job hung: killed after {elapsed:.1f} s")
    elif not status_ok(args.status, status):
        failures.append(f"exit status {status}, expected {args.status}")
    if elapsed > args.max_seconds:
        failures.append(f"took {elapsed:.1f} s, limit {args.max_seconds} s")
    failures += [f"output lacks /{regex}/" for regex in args.expect if not re.search(regex, output, re.M)]
    failures += [f"output has /{regex}/" for regex in args.forbid if re.search(regex, output, re.M)]
    for failure in failures:
        print("FAIL:", failure)
    if not failures:
        print("PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
