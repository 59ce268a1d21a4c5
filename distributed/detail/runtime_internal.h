#pragma once
// Internals shared by the files of the MPI runtime (distributed/detail/*.cc).

#include <string>

#include "distributed/detail/mpi_runtime.h"

namespace rensa::distributed::detail {

// A signature as text for messages: "allreduce(float32, (3, 4), sum)", "bcast(int64, (2,), root=0)",
// "bcast(root=0)" (no array).
std::string describe(const CallSignature& signature);

// Creates the float16/bfloat16 datatypes and reduction ops. Called once by ensure_initialized.
void init_mpi_types();
// Frees them again (before MPI_Finalize, so MPI reports no leaked objects).
void free_mpi_types();

// MPI_Abort(MPI_COMM_WORLD, 1) after a short pause that lets mpiexec forward what this rank
// just printed (hydra drops a dying rank's last output otherwise: seen about 1 run in 20).
// Without MPI: _Exit(1).
[[noreturn]] void abort_world();

// Whether MPI is up and not yet finalised (safe to call at any time, even before MPI_Init).
bool mpi_alive();

}  // namespace rensa::distributed::detail
