// The watchdog thread and its messages. See Note [Faults] and Note [Watchdog protocol].
#include "distributed/detail/watchdog.h"

#include "distributed/detail/runtime_internal.h"
#include "distributed/detail/watchdog_state.h"

namespace rensa::distributed::detail::watchdog {

Watchdog& instance() {
    static auto* watchdog = new Watchdog();  // never destroyed: used by atexit and static destructors
    return *watchdog;
}

void Watchdog::start() {
    check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &control_), "watchdog: MPI_Comm_dup");
    MPI_Comm_set_errhandler(control_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(control_, &rank_);
    MPI_Comm_size(control_, &size_);
    notified_.assign(static_cast<size_t>(size_), 0);
    acked_.assign(static_cast<size_t>(size_), 0);
    late_ack_.assign(static_cast<size_t>(size_), 0);
    thread_ = std::thread([this] { loop(); });
}

void Watchdog::stop() {
    {
        const std::lock_guard<std::mutex> lock(wake_mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

void Watchdog::loop() {
    std::unique_lock<std::mutex> lock(wake_mutex_);
    while (!stopping_) {
        lock.unlock();
        if (!mpi_alive()) return;  // finalised by someone else
        poll();
        lock.lock();
        wake_.wait_for(lock, kPollInterval, [this] { return stopping_; });
    }
}

void Watchdog::poll() {
    receive_all();
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        test_sends(sends_);
    }
    check_exit_conflicts();
    check_stalls();
    finish_stall_if_ready();
}

void Watchdog::receive_all() {
    for (;;) {
        int flag = 0;
        MPI_Message message = MPI_MESSAGE_NULL;
        MPI_Status status;
        if (MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, control_, &flag, &message, &status) != MPI_SUCCESS || !flag) {
            return;
        }
        int count = 0;
        MPI_Get_count(&status, MPI_INT64_T, &count);
        std::vector<int64_t> payload(static_cast<size_t>(count > 0 ? count : 0));
        if (MPI_Mrecv(payload.data(), count, MPI_INT64_T, &message, MPI_STATUS_IGNORE) != MPI_SUCCESS) return;
        dispatch(status.MPI_SOURCE, status.MPI_TAG, payload);
    }
}

void Watchdog::dispatch(int source, int tag, const std::vector<int64_t>& message) {
    if (tag == kQuery && message.size() == 2) {
        const std::lock_guard<std::mutex> lock(mutex_);
        const auto it = records_.find(static_cast<int>(message[1]));
        const int64_t entered = it == records_.end() ? -1 : it->second.entered;
        send(source, kReply, {message[0], message[1], entered}, sends_);
    } else if (tag == kReply && message.size() == 3) {
        if (stall_ && message[0] == stall_->nonce) stall_->replies[source] = message[2];
    } else if (tag == kExit) {
        on_exit_notice(source, message);
    } else if (tag == kExitAck && message.size() == 1) {
        const std::lock_guard<std::mutex> lock(mutex_);
        acked_[static_cast<size_t>(source)] = 1;
    }
}

// Records what the exited rank entered and acks; the ack says whether this rank is exiting too (its
// own notice already sent, under the same lock), and such an ack is the one no later message
// confirms (Note [Watchdog protocol]).
void Watchdog::on_exit_notice(int source, const std::vector<int64_t>& message) {
    ExitedRank exited{.entered = {}, .when = Clock::now()};
    for (size_t i = 1; i + 1 < message.size(); i += 2) {
        exited.entered[static_cast<int>(message[i])] = message[i + 1];
    }
    const std::lock_guard<std::mutex> lock(mutex_);
    exited_[source] = std::move(exited);
    send(source, kExitAck, {exiting_ ? 1 : 0}, sends_);
    if (exiting_) late_ack_[static_cast<size_t>(source)] = 1;
}

bool Watchdog::send(int dest, int tag, std::vector<int64_t> payload, std::list<PendingSend>& sends) {
    PendingSend& pending = sends.emplace_back();
    pending.payload = std::move(payload);
    const int status = MPI_Isend(pending.payload.data(), static_cast<int>(pending.payload.size()), MPI_INT64_T, dest,
                                 tag, control_, &pending.request);
    if (status == MPI_SUCCESS) return true;
    sends.pop_back();  // a dead peer: nothing to wait for
    return false;
}

void Watchdog::test_sends(std::list<PendingSend>& sends) {
    for (auto it = sends.begin(); it != sends.end();) {
        int done = 0;
        if (MPI_Test(&it->request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || done) {
            it = sends.erase(it);
        } else {
            ++it;
        }
    }
}

}  // namespace rensa::distributed::detail::watchdog
