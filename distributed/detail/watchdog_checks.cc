// What the watchdog watches: the handle registry, stalls, exited ranks, the exit protocol. See Note
// [Faults] in distributed/detail/mpi_runtime.h and Note [Watchdog protocol].
#include <iomanip>
#include <sstream>

#include "distributed/detail/runtime_internal.h"
#include "distributed/detail/watchdog.h"
#include "distributed/detail/watchdog_state.h"

namespace rensa::distributed::detail::watchdog {
namespace {

// "allreduce #57" for collectives, "recv (peer 1)" for point to point.
std::string op_text(const ActiveOp& op) {
    std::ostringstream os;
    os << op.signature.op;
    if (op.seq >= 0) {
        os << " #" << op.seq;
    } else if (op.signature.root >= 0) {
        os << " (peer " << op.signature.root << ")";
    }
    return os.str();
}

bool contains(const std::vector<int>& ranks, int rank) {
    for (const int r : ranks) {
        if (r == rank) return true;
    }
    return false;
}

}  // namespace

void Watchdog::register_handle(int id, const std::vector<int>& world_ranks) {
    const std::lock_guard<std::mutex> lock(mutex_);
    records_[id] = HandleRecord{.world_ranks = world_ranks, .entered = 0, .alive = true, .ops = {}};
}

void Watchdog::retire_handle(int id) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto it = records_.find(id);
    if (it == records_.end()) return;
    it->second.alive = false;
    it->second.ops.clear();
}

void Watchdog::begin_op(int id, const void* token, int64_t seq, const CallSignature& signature) {
    const std::lock_guard<std::mutex> lock(mutex_);
    HandleRecord& record = records_[id];
    if (seq >= 0 && seq + 1 > record.entered) record.entered = seq + 1;
    record.ops[token] = ActiveOp{.seq = seq, .signature = signature, .start = Clock::now()};
}

void Watchdog::end_op(int id, const void* token) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto it = records_.find(id);
    if (it != records_.end()) it->second.ops.erase(token);
}

// Empty unless a member of the handle exited before reaching `op` (the job can never finish it).
std::string Watchdog::exit_conflict(int id, const HandleRecord& record, const ActiveOp& op) const {
    for (const auto& [rank, exited] : exited_) {
        if (!contains(record.world_ranks, rank)) continue;
        const auto found = exited.entered.find(id);
        const int64_t entered = found == exited.entered.end() ? 0 : found->second;
        bool conflict = op.seq >= 0 && op.seq >= entered;
        // Point to point: only with that peer, and only if the op outlives a grace period.
        if (op.seq < 0) {
            const int64_t peer = op.signature.root;
            conflict = peer >= 0 && peer < static_cast<int64_t>(record.world_ranks.size()) &&
                       record.world_ranks[static_cast<size_t>(peer)] == rank &&
                       Clock::now() - std::max(exited.when, op.start) > kPeerGrace;
        }
        if (!conflict) continue;
        std::ostringstream os;
        os << "rank " << rank << " exited after entering " << entered << " operations on communicator " << id
           << " while rank " << rank_ << " waits in " << op_text(op);
        return os.str();
    }
    return {};
}

void Watchdog::check_exited(int id, int64_t seq, const CallSignature& signature) {
    std::string message;
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (exited_.empty()) return;
        const auto it = records_.find(id);
        if (it == records_.end()) return;
        message = exit_conflict(id, it->second, ActiveOp{.seq = seq, .signature = signature, .start = Clock::now()});
    }
    if (!message.empty()) abort_job(message);
}

void Watchdog::check_exit_conflicts() {
    std::string message;
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (exited_.empty()) return;
        for (const auto& [id, record] : records_) {
            for (const auto& [token, op] : record.ops) {
                message = exit_conflict(id, record, op);
                if (!message.empty()) break;
            }
            if (!message.empty()) break;
        }
    }
    if (!message.empty()) abort_job(message);
}

void Watchdog::check_stalls() {
    if (stall_) return;
    const auto limit = std::chrono::duration<double>(watchdog_timeout());
    const std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [id, record] : records_) {
        for (const auto& [token, op] : record.ops) {
            if (Clock::now() - op.start > limit) return start_stall(id, record, op);
        }
    }
}

// Asks every other member's watchdog how many operations it entered on the handle.
void Watchdog::start_stall(int id, const HandleRecord& record, const ActiveOp& op) {
    Stall& stall = stall_.emplace();
    stall.id = id;
    stall.op = op;
    stall.nonce = next_nonce_++;
    stall.deadline = Clock::now() + kReplyWait;
    if (op.seq < 0) return;  // point to point: arrival counts mean nothing
    for (const int rank : record.world_ranks) {
        if (rank == rank_) continue;
        stall.asked.push_back(rank);
        send(rank, kQuery, {stall.nonce, id}, sends_);
    }
}

void Watchdog::finish_stall_if_ready() {
    if (!stall_ || (stall_->replies.size() < stall_->asked.size() && Clock::now() < stall_->deadline)) return;
    const Stall& stall = *stall_;
    std::ostringstream os, late, silent;
    os << "watchdog: " << op_text(stall.op) << " on communicator " << stall.id << " has waited " << std::fixed
       << std::setprecision(1) << seconds_since(stall.op.start) << " s";
    for (const int rank : stall.asked) {
        const auto it = stall.replies.find(rank);
        if (it == stall.replies.end()) {
            silent << (silent.tellp() > 0 ? ", " : "") << rank;
        } else if (it->second <= stall.op.seq) {
            late << (late.tellp() > 0 ? ", " : "") << rank << " (entered " << it->second << ")";
        }
    }
    if (late.tellp() > 0) os << "; ranks that did not arrive: " << late.str();
    if (silent.tellp() > 0) os << "; ranks whose watchdog did not answer (unresponsive): " << silent.str();
    if (stall.op.seq >= 0 && late.tellp() <= 0 && silent.tellp() <= 0) os << "; every rank arrived (stuck in MPI)";
    abort_job(os.str());
}

// Every reachable peer acked our notice and sent its own (acked by us, the ack sent).
bool Watchdog::exit_protocol_done() const {
    for (int r = 0; r < size_; ++r) {
        const auto i = static_cast<size_t>(r);
        if (r == rank_ || !notified_[i]) continue;  // MPI refused the notice: a dead peer
        if (!acked_[i] || exited_.count(r) == 0) return false;
    }
    return sends_.empty();
}

// Note [Watchdog protocol]: see distributed/detail/watchdog.h.
void Watchdog::exit_notice_and_stop() {
    stop();
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (exit_done_ || control_ == MPI_COMM_NULL) return;
        exit_done_ = true;
    }
    std::list<PendingSend> notices;
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        std::vector<int64_t> payload{1};
        for (const auto& [id, record] : records_) {
            payload.push_back(id);
            payload.push_back(record.entered);
        }
        for (int r = 0; r < size_; ++r) {
            if (r != rank_) notified_[static_cast<size_t>(r)] = send(r, kExit, payload, notices) ? 1 : 0;
        }
        exiting_ = true;
    }
    const auto spin_until = Clock::now() + kExitSpin;
    bool late_ack = false;
    for (;;) {
        receive_all();
        test_sends(notices);
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            test_sends(sends_);
            if (exit_protocol_done() && notices.empty()) {
                for (const char late : late_ack_) late_ack = late_ack || late != 0;
                break;
            }
        }
        if (Clock::now() < spin_until) {
            std::this_thread::yield();
        } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }
    if (late_ack) std::this_thread::sleep_for(kExitLinger);
}

void start() { instance().start(); }
void register_handle(int id, const std::vector<int>& world_ranks) { instance().register_handle(id, world_ranks); }
void retire_handle(int id) { instance().retire_handle(id); }
void begin_op(int id, const void* token, int64_t seq, const CallSignature& signature) {
    instance().begin_op(id, token, seq, signature);
}
void end_op(int id, const void* token) { instance().end_op(id, token); }
void check_exited(int id, int64_t seq, const CallSignature& signature) { instance().check_exited(id, seq, signature); }
void exit_notice_and_stop() { instance().exit_notice_and_stop(); }
void stop() { instance().stop(); }

}  // namespace rensa::distributed::detail::watchdog
