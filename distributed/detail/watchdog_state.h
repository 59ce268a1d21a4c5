#pragma once
// The watchdog's state (internal to distributed/detail/watchdog*.cc). See Note [Watchdog protocol]
// in distributed/detail/watchdog.h.

#include <mpi.h>

#include <chrono>
#include <condition_variable>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "distributed/detail/mpi_runtime.h"

namespace rensa::distributed::detail::watchdog {

using Clock = std::chrono::steady_clock;
enum Tag : int { kQuery = 7101, kReply = 7102, kExit = 7103, kExitAck = 7104 };
inline constexpr auto kPollInterval = std::chrono::milliseconds(20);
inline constexpr auto kReplyWait = std::chrono::seconds(1);
inline constexpr auto kExitSpin = std::chrono::seconds(2);
// How long a rank waits after an ack that nothing confirms, and how long it polls without sleeping
// (Note [Watchdog protocol]).
inline constexpr auto kExitLinger = std::chrono::milliseconds(50);
// A point-to-point operation with an exited peer is given this long to finish (its message may have
// arrived before the peer left).
inline constexpr auto kPeerGrace = std::chrono::seconds(1);

inline double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

struct ActiveOp {
    int64_t seq = -1;  // -1: point to point
    CallSignature signature;
    Clock::time_point start;
};

struct HandleRecord {
    std::vector<int> world_ranks;
    int64_t entered = 0;
    bool alive = true;
    std::map<const void*, ActiveOp> ops;
};

struct ExitedRank {
    std::map<int, int64_t> entered;  // handle id -> operations entered
    Clock::time_point when;
};

// A stall under investigation: the queries sent and the replies so far.
struct Stall {
    int id = 0;
    ActiveOp op;
    int64_t nonce = 0;
    Clock::time_point deadline;
    std::vector<int> asked;
    std::map<int, int64_t> replies;
};

struct PendingSend {
    MPI_Request request = MPI_REQUEST_NULL;
    std::vector<int64_t> payload;
};

class Watchdog {
public:
    void start();
    void stop();
    void exit_notice_and_stop();
    void register_handle(int id, const std::vector<int>& world_ranks);
    void retire_handle(int id);
    void begin_op(int id, const void* token, int64_t seq, const CallSignature& signature);
    void end_op(int id, const void* token);
    void check_exited(int id, int64_t seq, const CallSignature& signature);

private:
    void loop();
    void poll();
    void receive_all();
    void dispatch(int source, int tag, const std::vector<int64_t>& message);
    void on_exit_notice(int source, const std::vector<int64_t>& message);
    // MPI_Isend kept in `sends` until tested complete; false if MPI refused it (a dead peer).
    bool send(int dest, int tag, std::vector<int64_t> payload, std::list<PendingSend>& sends);
    static void test_sends(std::list<PendingSend>& sends);
    void check_exit_conflicts();
    void check_stalls();
    void start_stall(int id, const HandleRecord& record, const ActiveOp& op);
    void finish_stall_if_ready();
    [[nodiscard]] std::string exit_conflict(int id, const HandleRecord& record, const ActiveOp& op) const;
    [[nodiscard]] bool exit_protocol_done() const;

    std::mutex mutex_;  // guards everything below but the thread-only state
    std::map<int, HandleRecord> records_;
    std::map<int, ExitedRank> exited_;  // by world rank
    bool exiting_ = false;
    bool exit_done_ = false;  // the exit protocol ran (it runs once)
    // By world rank, during exit: our notice sent to it, its ack of our notice received, its notice
    // acked by us after our own notice went out (an ack nothing confirms).
    std::vector<char> notified_, acked_, late_ack_;
    std::list<PendingSend> sends_;  // the thread's sends

    // The thread and its control communicator.
    MPI_Comm control_ = MPI_COMM_NULL;
    int rank_ = 0, size_ = 1;
    std::thread thread_;
    std::mutex wake_mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::optional<Stall> stall_;  // thread only
    int64_t next_nonce_ = 1;      // thread only
};

// The process's watchdog (never destroyed: atexit handlers and static destructors use it).
Watchdog& instance();

}  // namespace rensa::distributed::detail::watchdog
