#pragma once
// NCCL status checks and dtype/op mapping (internal; built only with NCCL).

#include <nccl.h>

#include <chrono>
#include <optional>
#include <string_view>
#include <thread>

#include "core/dtype.h"
#include "distributed/communicator.h"

namespace rensa::distributed::detail {

// Throws MpiError "<call> on rank R: <ncclGetErrorString> (<ncclGetLastError>)" unless
// status is ncclSuccess or ncclInProgress (a non-blocking communicator's "queued").
void check_nccl(ncclResult_t status, std::string_view call, int rank, ncclComm_t comm = nullptr);

// Waits for a call on a non-blocking communicator that answered `status`: while the state is
// ncclInProgress and `deadline` has not passed, yields and reads it again with `query`
// (ncclCommGetAsyncError; a failing query ends the wait with its own status). Returns the
// last state: ncclInProgress only when the deadline passed.
template <class Query>
ncclResult_t wait_in_progress(ncclResult_t status, Query&& query, std::chrono::steady_clock::time_point deadline) {
    while (status == ncclInProgress && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::yield();
        ncclResult_t state = ncclInProgress;
        const ncclResult_t read = query(&state);
        status = read != ncclSuccess ? read : state;
    }
    return status;
}

// The NCCL datatype of `dtype` (bool travels as uint8: max/min of 0/1 are or/and).
ncclDataType_t nccl_datatype(Dtype dtype);
// kMean reduces as a sum (the caller divides, as on the MPI path).
ncclRedOp_t nccl_op(ReduceOp op);

}  // namespace rensa::distributed::detail
