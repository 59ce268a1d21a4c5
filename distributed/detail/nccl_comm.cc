// The NCCL communicator and its watch. See Note [NCCL watch] in distributed/detail/nccl_comm.h.
#include "distributed/detail/nccl_comm.h"

#include <cstring>
#include <thread>

#include "core/error.h"
#include "cuda/device_guard.h"
#include "distributed/detail/nccl_check.h"

namespace rensa::distributed::detail {
namespace {

using Clock = std::chrono::steady_clock;

Clock::duration timeout() {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(watchdog_timeout()));
}

ncclResult_t wait_comm(ncclComm_t comm, ncclResult_t status) {
    return wait_in_progress(
        status, [comm](ncclResult_t* state) { return ncclCommGetAsyncError(comm, state); }, Clock::now() + timeout());
}

// Aborts `comm`. On a non-blocking communicator the abort itself may answer ncclInProgress
// and go on in the background: the handle is dropped only after it left that state (or the
// deadline passed), so no NCCL work outlives it half-done.
void abort_comm(ncclComm_t comm) { (void)wait_comm(comm, ncclCommAbort(comm)); }

}  // namespace

NcclComm::NcclComm(CommHandle& handle, int device) : device_{device}, rank_{handle.rank()}, size_{handle.size()} {
    const cuda::DeviceGuard guard{device_};
    stream_ = std::make_unique<cuda::Stream>(device_);
    ready_ = std::make_unique<cuda::Event>(device_);
    // The root tells every rank whether it got an id, so that a failure raises everywhere.
    struct {
        int64_t ok = 0;
        ncclUniqueId id{};
    } message;
    std::string root_error;
    if (rank_ == 0) {
        const ncclResult_t status = ncclGetUniqueId(&message.id);
        message.ok = status == ncclSuccess ? 1 : 0;
        if (status != ncclSuccess) root_error = ncclGetErrorString(status);
    }
    {
        const OpGuard op{handle, {.op = "nccl_init"}};
        check_mpi(MPI_Bcast(&message, static_cast<int>(sizeof(message)), MPI_BYTE, 0, handle.comm()), "MPI_Bcast");
    }
    RENSA_CHECK(message.ok == 1, distributed::MpiError, "ncclGetUniqueId failed on rank 0",
                root_error.empty() ? std::string() : ": " + root_error);
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;  // see Note [NCCL watch]
    settle(ncclCommInitRankConfig(&comm_, size_, message.id, rank_, &config), "nccl_init", "ncclCommInitRankConfig");
}

NcclComm::~NcclComm() {
    int current = 0;
    if (cudaGetDevice(&current) == cudaErrorCudartUnloading) {
        // Static destruction after the CUDA runtime shut down: nothing can be released any
        // more, so the stream, the events and the communicator are left to the process exit.
        (void)stream_.release();
        (void)ready_.release();
        (void)new std::deque<Pending>(std::move(pending_));
        return;
    }
    pending_.clear();
    if (comm_ == nullptr) return;
    try {
        const cuda::DeviceGuard guard{device_};
        // Flush what is queued, with the deadline; a communicator that does not finish is aborted.
        if (wait_comm(comm_, ncclCommFinalize(comm_)) == ncclSuccess) {
            ncclCommDestroy(comm_);
        } else {
            abort_comm(comm_);
        }
    } catch (...) {  // never throw from a destructor; the process may be exiting
    }
    comm_ = nullptr;
}

void NcclComm::check_usable() const {
    RENSA_CHECK(failure_.empty(), distributed::MpiError, "the NCCL communicator was aborted: ", failure_);
}

void NcclComm::fail(const std::string& collective, const std::string& reason) {
    if (comm_ != nullptr) {
        abort_comm(comm_);  // ends the kernels still waiting for peers
        comm_ = nullptr;
    }
    pending_.clear();
    failure_ = rensa::detail::concat(collective, " on rank ", rank_, " (NCCL, cuda:", device_, "): ", reason);
    RENSA_THROW(distributed::MpiError, failure_);
}

void NcclComm::settle(ncclResult_t status, const std::string& collective, const char* call_name) {
    status = wait_comm(comm_, status);
    if (status == ncclInProgress) {
        fail(collective, rensa::detail::concat(call_name, " did not finish within ", watchdog_timeout(),
                                               " s (RENSA_WATCHDOG_TIMEOUT)"));
    }
    if (status != ncclSuccess) {
        const char* last = comm_ != nullptr ? ncclGetLastError(comm_) : nullptr;
        fail(collective, rensa::detail::concat(
                             call_name, ": ", ncclGetErrorString(status),
                             last != nullptr && last[0] != '\0' ? std::string(" (") + last + ")" : std::string()));
    }
}

std::shared_ptr<cuda::Event> NcclComm::run(const std::string& collective, const char* call_name, const Call& call,
                                           bool compute_waits) {
    check_usable();
    const cuda::DeviceGuard guard{device_};
    poll();
    const cudaStream_t compute = cuda::current_stream(device_);
    ready_->record(compute);
    ready_->wait(stream_->get());
    settle(call(comm_, stream_->get()), collective, call_name);
    auto done = std::make_shared<cuda::Event>(device_);
    done->record(stream_->get());
    if (compute_waits) done->wait(compute);
    pending_.push_back({done, collective, Clock::now()});
    return done;
}

void NcclComm::poll() {
    check_usable();
    const cuda::DeviceGuard guard{device_};
    ncclResult_t async = ncclSuccess;
    const ncclResult_t query = ncclCommGetAsyncError(comm_, &async);
    if (query != ncclSuccess) async = query;
    if (async != ncclSuccess && async != ncclInProgress) {
        const std::string collective = pending_.empty() ? std::string("NCCL") : pending_.front().collective;
        fail(collective, rensa::detail::concat("ncclCommGetAsyncError: ", ncclGetErrorString(async)));
    }
    while (!pending_.empty() && pending_.front().done->query()) pending_.pop_front();
    if (!pending_.empty() && Clock::now() - pending_.front().issued > timeout()) {
        fail(pending_.front().collective,
             rensa::detail::concat("not finished after ", watchdog_timeout(),
                                   " s (RENSA_WATCHDOG_TIMEOUT): a rank did not join it or stalled"));
    }
}

void NcclComm::wait(const std::shared_ptr<cuda::Event>& event, const std::string& collective) {
    check_usable();
    for (;;) {
        poll();
        if (event ? event->query() : pending_.empty()) return;
        (void)collective;  // the pending record names the collective that stalls
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
}

}  // namespace rensa::distributed::detail
