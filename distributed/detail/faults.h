#pragma once
// Fault handlers of a process running under MPI (internal): std::terminate prints the
// uncaught exception and aborts the job; fatal signals, and termination signals left at their
// default action, print the rank, the signal and the pid and re-raise it.
// See Note [Faults] in distributed/detail/mpi_runtime.h.

namespace rensa::distributed::detail {

// Installs the terminate handler and the SIGSEGV/SIGBUS/SIGFPE/SIGILL/SIGABRT handlers (and
// SIGTERM/SIGHUP/SIGQUIT where they have their default action) for world rank `rank`.
// Called once by ensure_initialized after MPI is up.
void install_fault_handlers(int rank);

}  // namespace rensa::distributed::detail
