#pragma once
// The MPI runtime under every communicator (internal): one initialisation, guarded
// communicators, the watchdog and the fault handling.
//
// Note [MPI lifetime]: MPI is initialised (MPI_THREAD_MULTIPLE: the watchdog thread calls
// MPI too) by the first ensure_initialized(), i.e. when the first communicator is created,
// never at load time, and finalised once by an atexit handler. A program that never creates
// a communicator never touches MPI. When mpiexec did not start the process, MPI runs as a
// single process (size 1).
//
// Note [Collective order]: every guarded operation on a CommHandle gets the next sequence
// number of that handle. Ranks issue the same operations in the same order, so the numbers
// agree across ranks; the watchdog and the fault notices talk in these numbers.
//
// Note [Faults]: (1) a rank that stays in one guarded operation longer than the timeout
// (default 300 s; RENSA_WATCHDOG_TIMEOUT=<seconds> or set_watchdog_timeout) makes its
// watchdog ask the other ranks how far they got, print which ranks did not arrive at that
// operation and sequence number, and MPI_Abort the job. (2) A rank that exits (exit(),
// return from main) tells the others at exit how many operations it entered on each handle
// (and then waits for them to exit too, as MPI_Finalize would: Note [Watchdog protocol]);
// a rank waiting for it in a later operation prints "rank R exited ..." and aborts.
// (3) An uncaught exception or a fatal signal prints the rank and the cause, then aborts
// the job. (4) A rank that ends without rensa's exit (_exit, os._exit, SIGKILL, any signal
// rensa does not handle) is named by its watcher process, which fails the job even when the
// rank's status was 0 (Note [Exit guard] in exit_guard.cc). mpiexec then ends every process
// with a non-zero status.

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.h"
#include "core/shape.h"

namespace rensa::distributed::detail {

// Initialises MPI once (see Note [MPI lifetime]) and installs the fault handlers and the
// watchdog thread. Cheap after the first call.
void ensure_initialized();
bool is_initialized();
// MPI_COMM_WORLD's rank and size (initialises MPI).
int world_rank();
int world_size();

// Throws MpiError "<what>: <MPI error string> (rank R)" unless status is MPI_SUCCESS.
void check_mpi(int status, std::string_view what);

// The watchdog timeout in seconds (default 300, or RENSA_WATCHDOG_TIMEOUT).
double watchdog_timeout();
void set_watchdog_timeout(double seconds);
// Debug checks on (RENSA_DISTRIBUTED_DEBUG=1 at start, or set_debug).
bool debug_enabled();
void set_debug(bool on);

// The MPI datatype of a dtype (float16/bfloat16 as 2-byte MPI types with rensa's own
// reduction ops) and the MPI_Op of a reduction for that dtype (kMean reduces as kSum).
MPI_Datatype mpi_datatype(Dtype dtype);
enum class MpiReduce { kSum, kMax, kMin };
MPI_Op mpi_op(MpiReduce op, Dtype dtype);

// What a rank is about to do, compared across ranks in debug mode.
struct CallSignature {
    std::string op;  // "allreduce", "bcast", ...
    Dtype dtype = Dtype::kFloat32;
    Shape shape{};
    int64_t root = -1;  // -1: no root
    // Point-to-point operations (send/recv) involve two ranks: they are watched by the
    // watchdog but take no sequence number and skip the debug check. For them, set root to
    // the peer's rank in the handle: the watchdog then ends the job when that peer exits.
    bool collective = true;
    // A reduction's ReduceOp (as an int: allreduce's kSum, kMean, ...), -1 for other operations.
    int reduce = -1;
};

// An MPI communicator owned by rensa (a dup of its parent), registered with the watchdog.
class CommHandle {
public:
    // The dup of MPI_COMM_WORLD (one per call; every rank must call in the same order).
    static std::shared_ptr<CommHandle> create_world();
    ~CommHandle();
    CommHandle(const CommHandle&) = delete;
    CommHandle& operator=(const CommHandle&) = delete;

    // MPI_Comm_split, collective on this handle (a guarded "split"); nullptr on the ranks
    // that pass color MPI_UNDEFINED.
    [[nodiscard]] std::shared_ptr<CommHandle> split(int color, int key);
    // MPI_Comm_split_type(MPI_COMM_TYPE_SHARED): the ranks on this node.
    [[nodiscard]] std::shared_ptr<CommHandle> split_shared();

    MPI_Comm comm() const { return comm_; }
    int rank() const { return rank_; }
    int size() const { return size_; }
    // Same on every member, unique within a process: the MPI_MAX over the members of their
    // count of handles created so far (see Note [Handle ids] in comm_handle.cc).
    int id() const { return id_; }
    // The MPI_COMM_WORLD rank of each member, by rank in this handle.
    const std::vector<int>& world_ranks() const { return world_ranks_; }

private:
    CommHandle(MPI_Comm comm, int id);
    MPI_Comm comm_;
    int rank_, size_, id_;
    std::vector<int> world_ranks_;
    friend class OpGuard;
    std::atomic<int64_t> entered_{0};  // guarded operations entered (next sequence number)
};

// RAII around one operation on a handle, blocking or not (a non-blocking one keeps its
// guard until wait()): several guards may be alive on one handle at once.
// A collective takes the next sequence number (0, 1, 2, ... per handle), and in debug mode
// first checks `signature` against every rank's (one MPI_Allgather; MpiError on every rank
// naming the disagreeing rank and both signatures; the always-on, cheaper check of the
// communicators is Note [Signature check] in signature_check.cc). The watchdog watches the operation
// until the guard is destroyed. Construct guards in the same order on every rank.
class OpGuard {
public:
    OpGuard(CommHandle& handle, const CallSignature& signature);
    ~OpGuard();
    OpGuard(const OpGuard&) = delete;
    OpGuard& operator=(const OpGuard&) = delete;
    int64_t sequence() const { return sequence_; }  // -1 for point to point

private:
    CommHandle& handle_;
    int64_t sequence_;
};

// Ends the whole job from this rank: prints "rensa: rank R: <message>" to stderr and calls
// MPI_Abort(MPI_COMM_WORLD, 1). For unrecoverable states (a half-finished collective).
[[noreturn]] void abort_job(const std::string& message);

}  // namespace rensa::distributed::detail
