#pragma once
// An NCCL communicator over a CommHandle's ranks, on one GPU (internal; built with NCCL).
//
// Note [NCCL watch]: the communicator is non-blocking (config.blocking = 0), so no NCCL call
// can hang the host: every call that answers ncclInProgress is settled by polling
// ncclCommGetAsyncError with a deadline (watchdog_timeout(), RENSA_WATCHDOG_TIMEOUT). Each
// collective runs on the communication stream, ordered after the work queued so far on the
// device's current (compute) stream by an event; a second event recorded after it is kept
// as "pending" and, for blocking-style calls, the compute stream waits on it (no host
// synchronisation, so backward keeps overlapping). Pending collectives are checked where
// the host looks: at the next NCCL call (poll: cudaEventQuery + ncclCommGetAsyncError),
// Request::test, and wait_all (barrier, the hierarchical staging copy), which blocks with
// the deadline. On an NCCL error or a collective older than the timeout the communicator
// is aborted (ncclCommAbort) and MpiError names the rank, the collective and the error;
// every later call raises the same error. Not covered: a host sync of the compute stream
// outside rensa's collectives (a .to_device(native)) waits without a deadline.

#include <nccl.h>

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <string>

#include "cuda/stream.h"
#include "distributed/detail/mpi_runtime.h"

namespace rensa::distributed::detail {

class NcclComm {
public:
    // Collective over `handle` (a guarded "nccl_init"): rank 0 calls ncclGetUniqueId, the id
    // goes out by MPI_Bcast, then ncclCommInitRankConfig on GPU `device`.
    NcclComm(CommHandle& handle, int device);
    ~NcclComm();
    NcclComm(const NcclComm&) = delete;
    NcclComm& operator=(const NcclComm&) = delete;

    int device() const { return device_; }
    int rank() const { return rank_; }
    int size() const { return size_; }

    // One NCCL call: (comm, comm stream) -> status.
    using Call = std::function<ncclResult_t(ncclComm_t, cudaStream_t)>;
    // Runs `call` (named `call_name`, e.g. "ncclAllReduce") for `collective` on the
    // communication stream as Note [NCCL watch] says; with compute_waits the device's
    // current stream waits for it. Returns the event recorded after it.
    std::shared_ptr<cuda::Event> run(const std::string& collective, const char* call_name, const Call& call,
                                     bool compute_waits = true);
    // Pops finished collectives; raises (after aborting) on an NCCL error or a stall.
    void poll();
    // poll() until `event` finished (all pending ones when null), sleeping between polls.
    void wait(const std::shared_ptr<cuda::Event>& event, const std::string& collective);
    void wait_all(const std::string& collective) { wait(nullptr, collective); }

private:
    struct Pending {
        std::shared_ptr<cuda::Event> done;
        std::string collective;
        std::chrono::steady_clock::time_point issued;
    };
    void check_usable() const;
    // Waits until a non-blocking call left ncclInProgress; aborts and raises on error.
    void settle(ncclResult_t status, const std::string& collective, const char* call_name);
    [[noreturn]] void fail(const std::string& collective, const std::string& reason);

    int device_;
    int rank_ = 0, size_ = 1;
    // Declared before comm_: destroyed after it.
    std::unique_ptr<cuda::Stream> stream_;
    std::unique_ptr<cuda::Event> ready_;
    ncclComm_t comm_ = nullptr;
    std::deque<Pending> pending_;
    std::string failure_;  // set once aborted
};

}  // namespace rensa::distributed::detail
