#pragma once
// Fault handlers of a process running under MPI (internal): std::terminate prints the
// uncaught exception and aborts the job; fatal signals print the signal and re-raise it.
// See Note [Faults] in distributed/detail/mpi_runtime.h.

namespace rensa::distributed::detail {

// Installs the terminate handler and the SIGSEGV/SIGBUS/SIGFPE/SIGILL/SIGABRT handlers
// for world rank `rank`. Called once by ensure_initialized after MPI is up.
void install_fault_handlers(int rank);

}  // namespace rensa::distributed::detail
