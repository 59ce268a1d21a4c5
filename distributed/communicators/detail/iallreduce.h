#pragma once
// iallreduce_inplace of the MPI communicators (internal), with and without the signature check.
// See Note [Checked iallreduce] in iallreduce.cc.

#include <memory>

#include "core/array.h"
#include "distributed/communicator.h"
#include "distributed/detail/mpi_runtime.h"

namespace rensa::distributed::detail {

class IallreduceLane;

// Starts the in-place reduction of `buffer` (contiguous, native) over `handle`. With the signature
// check on and more than one rank, through `lane`, which the first call makes (collective over
// `handle`: every rank's first iallreduce_inplace on this communicator); else one MPI_Iallreduce
// per chunk. The request's guard lives until it finished.
[[nodiscard]] std::unique_ptr<Request> start_iallreduce(const std::shared_ptr<CommHandle>& handle,
                                                        std::shared_ptr<IallreduceLane>& lane, const Array& buffer,
                                                        ReduceOp op);

}  // namespace rensa::distributed::detail
