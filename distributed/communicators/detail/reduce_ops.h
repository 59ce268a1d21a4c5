#pragma once
// Helpers of the communicators' reductions (internal), shared by the MPI and NCCL ones.

#include "core/array.h"
#include "distributed/communicator.h"
#include "distributed/detail/mpi_runtime.h"

namespace rensa::distributed::detail {

// The MPI reduction of `op` (kMean sums; the division comes after).
MpiReduce mpi_reduce(ReduceOp op);
// ValueError for an undefined array, DtypeError for sum or mean of bool, naming `name`.
void check_reducible(const Array& x, ReduceOp op, const char* name);
// buffer /= size in place (on the device's stream for CUDA arrays): true division for
// floats, floor division for integers.
void divide_inplace(const Array& buffer, int size);

// A request with nothing left to do (empty buffers, local reductions).
class DoneRequest : public Request {
public:
    void wait() override {}
    bool test() override { return true; }
};

}  // namespace rensa::distributed::detail
