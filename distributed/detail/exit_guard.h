#pragma once
// The exit guard (internal): a small watcher process beside each rank that names the rank, and
// fails the job, when the rank ends without rensa's exit. See Note [Exit guard] in exit_guard.cc.

namespace rensa::distributed::detail {

// How this rank ends, told to its watcher. kClean: every rank ended together (after the exit
// protocol of Note [Watchdog protocol], or the program finalised MPI itself). kReported: rensa
// printed the cause itself and is ending the job (abort_job, an uncaught exception, a fatal signal).
enum class ExitMark { kClean, kReported };

// Spawns the watcher of world rank `rank` when mpiexec (MPICH's hydra, which sets PMI_FD) started a
// job of `size` > 1 processes; otherwise does nothing. Called once by ensure_initialized. When the
// spawn fails it prints one line and the rank runs without a watcher.
void start_exit_guard(int rank, int size);

// Tells the watcher how this rank ends (the first mark counts; later ones do nothing). Safe to call
// from a signal handler, and without a watcher.
void mark_exit(ExitMark mark);

}  // namespace rensa::distributed::detail
