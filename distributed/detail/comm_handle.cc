// CommHandle and OpGuard. See Note [Collective order] and Note [Handle ids].
#include <cstdlib>
#include <sstream>

#include "distributed/communicator.h"
#include "distributed/detail/mpi_runtime.h"
#include "distributed/detail/runtime_internal.h"
#include "distributed/detail/signature_check.h"
#include "distributed/detail/watchdog.h"

namespace rensa::distributed::detail {
namespace {

// RENSA_TEST_RANKS_PER_NODE (see Note [Simulated nodes]); 0 when unset.
int simulated_ranks_per_node() {
    static const int k = [] {
        const char* value = std::getenv("RENSA_TEST_RANKS_PER_NODE");
        if (value == nullptr || *value == '\0') return 0;
        const int parsed = std::atoi(value);
        RENSA_CHECK(parsed > 0, ValueError, "RENSA_TEST_RANKS_PER_NODE: expected a positive number of ranks, got '",
                    value, "'");
        return parsed;
    }();
    return k;
}

// Note [Handle ids]: every process counts the handles it creates. A new handle's id is the MPI_MAX
// of its members' counters (one MPI_Allreduce on the new communicator), and each member moves its
// counter past it. So ids agree on every member and never repeat within a process: a rank that
// hears "handle 3" from another member finds the same communicator.
std::atomic<int> next_handle_id{0};

int agree_on_id(MPI_Comm comm) {
    int mine = next_handle_id.load(), agreed = 0;
    check_mpi(MPI_Allreduce(&mine, &agreed, 1, MPI_INT, MPI_MAX, comm), "CommHandle: id agreement");
    int expected = mine;
    while (expected <= agreed && !next_handle_id.compare_exchange_weak(expected, agreed + 1)) {
    }
    return agreed;
}

std::vector<int> translate_to_world(MPI_Comm comm, int size) {
    MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
    check_mpi(MPI_Comm_group(comm, &group), "MPI_Comm_group");
    check_mpi(MPI_Comm_group(MPI_COMM_WORLD, &world), "MPI_Comm_group");
    std::vector<int> ranks(static_cast<size_t>(size)), out(static_cast<size_t>(size));
    for (int i = 0; i < size; ++i) ranks[static_cast<size_t>(i)] = i;
    const int status = MPI_Group_translate_ranks(group, size, ranks.data(), world, out.data());
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    check_mpi(status, "MPI_Group_translate_ranks");
    return out;
}

}  // namespace

std::string describe(const CallSignature& signature) {
    // A signature without an array (no shape, the default dtype, no reduction: bcast, barrier, the
    // object-level collectives) shows only its root.
    const bool array = signature.shape.size() > 0 || signature.dtype != Dtype::kFloat32 || signature.reduce >= 0;
    std::ostringstream os;
    os << signature.op << "(";
    if (array) os << signature.dtype << ", " << signature.shape;
    if (signature.reduce >= 0)
        os << ", " << distributed::to_string(static_cast<distributed::ReduceOp>(signature.reduce));
    if (signature.root >= 0) os << (array ? ", " : "") << "root=" << signature.root;
    os << ")";
    return os.str();
}

CommHandle::CommHandle(MPI_Comm comm, int id) : comm_(comm), id_(id) {
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    world_ranks_ = translate_to_world(comm_, size_);
    watchdog::register_handle(id_, world_ranks_);
}

CommHandle::~CommHandle() {
    watchdog::retire_handle(id_);
    // After MPI_Finalize (handles kept alive by static objects) there is nothing to free.
    if (mpi_alive()) MPI_Comm_free(&comm_);
}

std::shared_ptr<CommHandle> CommHandle::create_world() {
    ensure_initialized();
    MPI_Comm comm = MPI_COMM_NULL;
    check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &comm), "CommHandle::create_world: MPI_Comm_dup");
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    const int id = agree_on_id(comm);
    return std::shared_ptr<CommHandle>(new CommHandle(comm, id));
}

std::shared_ptr<CommHandle> CommHandle::split(int color, int key) {
    MPI_Comm comm = MPI_COMM_NULL;
    {
        const OpGuard guard(*this, {.op = "split"});
        check_mpi(MPI_Comm_split(comm_, color, key, &comm), "CommHandle::split: MPI_Comm_split");
    }
    if (comm == MPI_COMM_NULL) return nullptr;  // color MPI_UNDEFINED
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    const int id = agree_on_id(comm);
    return std::shared_ptr<CommHandle>(new CommHandle(comm, id));
}

// Note [Simulated nodes] (testing only): RENSA_TEST_RANKS_PER_NODE=k makes rensa see the
// ranks as nodes of k consecutive world ranks (world rank / k), whatever MPI knows, so one
// machine can test the node-aware code (hierarchical buckets, intra/inter topology) on
// several "nodes". The ranks still share memory, so the shared-memory buckets still work
// inside each simulated node.
std::shared_ptr<CommHandle> CommHandle::split_shared() {
    if (const int k = simulated_ranks_per_node(); k > 0)
        return split(world_ranks_[static_cast<size_t>(rank_)] / k, rank_);
    MPI_Comm comm = MPI_COMM_NULL;
    {
        const OpGuard guard(*this, {.op = "split_shared"});
        check_mpi(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &comm),
                  "CommHandle::split_shared: MPI_Comm_split_type");
    }
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    const int id = agree_on_id(comm);
    return std::shared_ptr<CommHandle>(new CommHandle(comm, id));
}

OpGuard::OpGuard(CommHandle& handle, const CallSignature& signature) : handle_(handle), sequence_(-1) {
    if (signature.collective) {
        sequence_ = handle_.entered_.fetch_add(1, std::memory_order_relaxed);
        watchdog::check_exited(handle_.id(), sequence_, signature);
    }
    watchdog::begin_op(handle_.id(), this, sequence_, signature);
    if (!signature.collective || !debug_enabled() || handle_.size() == 1) return;
    try {
        check_signatures_debug(handle_, sequence_, signature);
    } catch (...) {
        watchdog::end_op(handle_.id(), this);
        throw;
    }
}

OpGuard::~OpGuard() { watchdog::end_op(handle_.id(), this); }

}  // namespace rensa::distributed::detail
