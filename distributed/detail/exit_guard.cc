// The exit guard: a watcher process per rank.
//
// Note [Exit guard]: MPICH's mpiexec (hydra; 4.0.2 here) ends a job as soon as one rank is gone:
// when that rank's PMI connection closes before MPI_Finalize, or when hydra reaps it (it polls
// waitpid) with a non-zero status or a signal, it SIGKILLs the other ranks' process groups at once
// and exits with the status the early rank ended with. A rank that called _exit(0) or os._exit(0)
// mid-training (which skips atexit, so rensa's exit protocol of Note [Watchdog protocol] never
// runs) thus made the job succeed within a second with no message, and _exit(1) or a SIGKILL ended
// it with nothing naming the rank (hydra prints a PID); the other ranks are killed before they can
// say anything. So once MPI is up, each rank of a job started by hydra (PMI_FD and MPI_LOCALNRANKS
// set, more than one process) spawns a watcher: /bin/sh running kScript (posix_spawn: vfork and
// exec, no copy of the rank's memory), holding the read end of a pipe from the rank (fd 3), a copy
// of the rank's PMI socket (fd 4) and the rank's stderr, in the rank's process group (hydra's
// cleanup kills it with the rank). While the watcher holds its copy, a rank that exited with
// status 0 does not close the PMI connection, and hydra does not tear the job down.
// The rank writes one word into the pipe when it ends the way rensa expects (mark_exit): "clean"
// once every rank has ended (after the exit protocol, or inside MPI_Finalize when the program
// finalises MPI itself), "reported" when rensa has printed the cause itself and is ending the job
// (abort_job, an uncaught exception, a fatal or termination signal). The watcher then exits
// quietly. When the pipe ends with no word, the rank is gone (its files closed as it exited), and
// the watcher reads how it ended from /proc/<pid>/stat (field 52, exit_code, as waitpid reports it)
// before hydra reaps it, and prints one line naming it:
//   rensa: rank 1: exited with status 0, pid 4711, before the other ranks finished, without ...
//   rensa: rank 1: exited with status 3, pid 4711, before the other ranks finished
//   rensa: rank 1: killed by signal 9 (SIGKILL), pid 4711, before the other ranks finished
//   rensa: rank 1: ended, pid 4711, before the other ranks finished, without rensa's exit (mpiexec
//     reaped it before its status could be read: ...)   (hydra won the race: a few runs in a hundred
//     on a loaded machine; mpiexec's own report of that pid, if any, is about this rank)
// After a non-zero status or a signal it just exits: hydra ends the job with that status, as it
// always did. After status 0, or one it could not read, it sends PMI's "abort" command
// (exitcode=1) on the rank's PMI socket, so that mpiexec kills the job and exits 1.
// Forked children of the rank close their copy of the pipe's write end (pthread_atfork): a worker
// process that outlives the rank does not keep the watcher waiting.
// Not covered: other launchers (no watcher; a rank that waits for a vanished peer is still ended by
// the watchdog after RENSA_WATCHDOG_TIMEOUT), a system without /bin/sh (one line says so), and a
// rank that dies before its first communicator (MPI not started by rensa yet).
// Shown by `mpiexec -n 2 build/tests/rensa_fault_prog _exit0` (also _exit1, sigkill; the fault cases
// in tests/distributed/faults/faults.cmake) and by the soak test (tests/distributed/soak).

#include "distributed/detail/exit_guard.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace rensa::distributed::detail {
namespace {

// $1: the world rank, $2: its pid; fd 3: the pipe, fd 4: the PMI socket. POSIX sh (dash).
constexpr const char* kScript = R"sh(set -f
rank=$1 pid=$2
IFS= read -r mark <&3
case $mark in clean | reported) exit 0 ;; esac
status=
if { IFS= read -r stat </proc/"$pid"/stat; } 2>/dev/null; then
    set -- ${stat##*) }
    if [ $# -ge 50 ]; then shift 49; status=$1; fi
fi
case $status in '' | *[!0-9]*) status=-1 ;; esac
tail="pid $pid, before the other ranks finished"
if [ "$status" -gt 0 ] && [ $((status & 127)) -ne 0 ]; then
    sig=$((status & 127))
    echo "rensa: rank $rank: killed by signal $sig (SIG$(kill -l "$sig" 2>/dev/null)), $tail" >&2
    exit 0
elif [ "$status" -gt 0 ]; then
    echo "rensa: rank $rank: exited with status $((status >> 8)), $tail" >&2
    exit 0
elif [ "$status" -eq 0 ]; then
    echo "rensa: rank $rank: exited with status 0, $tail, without rensa's exit (_exit or os._exit?): the job fails" >&2
else
    echo "rensa: rank $rank: ended, $tail, without rensa's exit (mpiexec reaped it before its status could be read:" \
        "what mpiexec reports of pid $pid is about rank $rank): the job fails" >&2
fi
sleep 0.2
printf 'cmd=abort exitcode=1\n' >&4
)sh";

std::atomic<int> guard_fd{-1};    // the pipe's write end in the rank, -1 without a watcher
std::atomic<bool> marked{false};  // a mark was written

// In a forked child: it is not the rank, its copy must not keep the pipe open.
void close_in_child() {
    const int fd = guard_fd.exchange(-1);
    if (fd >= 0) ::close(fd);
}

// The rank's PMI socket under hydra (PMI_FD, with hydra's MPI_LOCALNRANKS: Slurm's PMI-2 also sets
// PMI_FD but speaks another protocol); -1 otherwise.
int pmi_fd_from_env() {
    if (std::getenv("MPI_LOCALNRANKS") == nullptr) return -1;
    const char* text = std::getenv("PMI_FD");
    if (text == nullptr || *text == '\0') return -1;
    char* end = nullptr;
    const long fd = std::strtol(text, &end, 10);
    return (*end == '\0' && fd >= 0 && ::fcntl(static_cast<int>(fd), F_GETFD) != -1) ? static_cast<int>(fd) : -1;
}

// The watcher's file descriptors: 0 and 1 from /dev/null, 2 the rank's stderr, 3 the pipe, 4 the PMI
// socket, nothing else. The sources are close-on-exec copies numbered 10 and up, so that no dup2
// overwrites another source.
int spawn_watcher(int rank, int pipe_read, int pmi_fd, pid_t& child) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, pipe_read, 3);
    posix_spawn_file_actions_adddup2(&actions, pmi_fd, 4);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    posix_spawn_file_actions_addclosefrom_np(&actions, 5);  // older C libraries: it keeps the rest until it ends
#endif
    // Default dispositions and an empty mask: the program may ignore or block signals (Python
    // ignores SIGPIPE), and ignored signals would stay ignored across exec.
    sigset_t all, none;
    sigfillset(&all);
    sigdelset(&all, SIGKILL);
    sigdelset(&all, SIGSTOP);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    std::string rank_text = std::to_string(rank), pid_text = std::to_string(::getpid());
    // argv[0] and $0 name it in ps and in the shell's own messages.
    std::string name = "rensa-exit-guard", c = "-c", script = kScript;
    char* argv[] = {name.data(), c.data(), script.data(), name.data(), rank_text.data(), pid_text.data(), nullptr};
    std::string path = "PATH=/usr/bin:/bin";
    char* envp[] = {path.data(), nullptr};
    const int status = posix_spawn(&child, "/bin/sh", &actions, &attributes, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    return status;
}

}  // namespace

void start_exit_guard(int rank, int size) {
    const int pmi_fd = pmi_fd_from_env();
    if (size <= 1 || pmi_fd < 0 || guard_fd.load() >= 0) return;
    int fds[2] = {-1, -1};
    if (::pipe2(fds, O_CLOEXEC) != 0) return;
    const int pipe_read = ::fcntl(fds[0], F_DUPFD_CLOEXEC, 10);
    const int pmi_copy = ::fcntl(pmi_fd, F_DUPFD_CLOEXEC, 10);
    ::close(fds[0]);
    pid_t child = -1;
    const int status = (pipe_read < 0 || pmi_copy < 0) ? errno : spawn_watcher(rank, pipe_read, pmi_copy, child);
    if (pipe_read >= 0) ::close(pipe_read);
    if (pmi_copy >= 0) ::close(pmi_copy);
    if (status != 0) {
        ::close(fds[1]);
        std::fprintf(stderr,
                     "rensa: rank %d: no exit guard (posix_spawn /bin/sh: %s): a rank that ends without rensa's "
                     "exit may end the job without a message\n",
                     rank, std::strerror(status));
        return;
    }
    guard_fd.store(fds[1]);
    static const bool registered = [] { return ::pthread_atfork(nullptr, nullptr, close_in_child) == 0; }();
    (void)registered;
}

void mark_exit(ExitMark mark) {
    const int fd = guard_fd.load();
    if (fd < 0 || marked.exchange(true)) return;
    const char* word = mark == ExitMark::kClean ? "clean\n" : "reported\n";
    const ssize_t written = ::write(fd, word, std::strlen(word));
    (void)written;
}

}  // namespace rensa::distributed::detail
