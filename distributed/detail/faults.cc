// Uncaught exceptions, fatal signals and termination signals end the whole job with a line naming
// the rank. See Note [Faults] in distributed/detail/mpi_runtime.h.
#include "distributed/detail/faults.h"

#include <mpi.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "distributed/detail/exit_guard.h"
#include "distributed/detail/runtime_internal.h"

namespace rensa::distributed::detail {
namespace {

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
// Sent from outside (kill, a batch system's time limit); handled only while the program left them at
// their default action. (MPICH's mpiexec ends the other ranks with SIGKILL, never these.)
constexpr int kTerminationSignals[] = {SIGTERM, SIGHUP, SIGQUIT};

// Prepared before any fault: the handler may only use async-signal-safe calls. The pid matches the
// one mpiexec's "BAD TERMINATION" banner shows.
char signal_prefix[64] = "rensa: rank ?: killed by signal ";
size_t signal_prefix_length = 0;
char signal_suffix[32] = "\n";
size_t signal_suffix_length = 1;

void write_all(const char* text, size_t length) {
    while (length > 0) {
        const ssize_t n = ::write(STDERR_FILENO, text, length);
        if (n <= 0) return;
        text += n;
        length -= static_cast<size_t>(n);
    }
}

void on_fatal_signal(int sig) {
    char line[128];
    size_t n = signal_prefix_length;
    for (size_t i = 0; i < n; ++i) line[i] = signal_prefix[i];
    char digits[12];
    int d = 0;
    for (int v = sig; v > 0 && d < 11; v /= 10) digits[d++] = static_cast<char>('0' + v % 10);
    while (d > 0) line[n++] = digits[--d];
    for (size_t i = 0; i < signal_suffix_length; ++i) line[n++] = signal_suffix[i];
    write_all(line, n);
    mark_exit(ExitMark::kReported);  // the line above names the rank: the watcher stays quiet
    // The default action (core dump / termination by the signal) tells mpiexec the rank died.
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

std::string current_exception_text() {
    const std::exception_ptr error = std::current_exception();
    if (!error) return "terminate called without an active exception";
    try {
        std::rethrow_exception(error);
    } catch (const std::exception& e) {
        return std::string("uncaught exception: ") + e.what();
    } catch (...) {
        return "uncaught exception of a type not derived from std::exception";
    }
}

[[noreturn]] void on_terminate() {
    const std::string text = current_exception_text();
    int rank = -1;
    if (mpi_alive()) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::fprintf(stderr, "rensa: rank %d: %s\n", rank, text.c_str());
    std::fflush(stderr);
    // MPI_Abort may raise SIGABRT itself: the job is already going down, stay quiet.
    std::signal(SIGABRT, SIG_DFL);
    abort_world();
}

}  // namespace

void install_fault_handlers(int rank) {
    const int length = std::snprintf(signal_prefix, sizeof signal_prefix, "rensa: rank %d: killed by signal ", rank);
    signal_prefix_length = length > 0 ? static_cast<size_t>(length) : 0;
    const int suffix = std::snprintf(signal_suffix, sizeof signal_suffix, ", pid %d\n", static_cast<int>(::getpid()));
    signal_suffix_length = suffix > 0 ? static_cast<size_t>(suffix) : 0;
    std::set_terminate(on_terminate);
    struct sigaction action {};
    action.sa_handler = on_fatal_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND | SA_NODEFER;
    for (const int sig : kFatalSignals) sigaction(sig, &action, nullptr);
    for (const int sig : kTerminationSignals) {
        struct sigaction current {};
        if (sigaction(sig, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) sigaction(sig, &action, nullptr);
    }
}

}  // namespace rensa::distributed::detail
