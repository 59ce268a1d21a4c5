#pragma once
// NCCL status checks and dtype/op mapping (internal; built only with NCCL).

#include <nccl.h>

#include <optional>
#include <string_view>

#include "core/dtype.h"
#include "distributed/communicator.h"

namespace rensa::distributed::detail {

// Throws MpiError "<call> on rank R: <ncclGetErrorString> (<ncclGetLastError>)" unless
// status is ncclSuccess or ncclInProgress (a non-blocking communicator's "queued").
void check_nccl(ncclResult_t status, std::string_view call, int rank, ncclComm_t comm = nullptr);

// The NCCL datatype of `dtype` (bool travels as uint8: max/min of 0/1 are or/and).
ncclDataType_t nccl_datatype(Dtype dtype);
// kMean reduces as a sum (the caller divides, as on the MPI path).
ncclRedOp_t nccl_op(ReduceOp op);

}  // namespace rensa::distributed::detail
