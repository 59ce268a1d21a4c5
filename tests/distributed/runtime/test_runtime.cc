// The MPI runtime under the communicators: datatypes and reduction ops of every dtype,
// sequence numbers, debug signature checks, handle splits. Runs at any world size.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/half.h"
#include "distributed/communicator.h"
#include "distributed/detail/mpi_runtime.h"

namespace {

using namespace rensa;
using namespace rensa::distributed;
using namespace rensa::distributed::detail;

// Element i of rank r: small integers every dtype holds exactly (non-negative for uint8).
double value_of(Dtype dtype, int r, int i) {
    if (dtype == Dtype::kBool) return (r + i) % 3 == 0 ? 1 : 0;
    const double v = (r * 5 + i * 3) % 11;
    return dtype == Dtype::kUInt8 ? v : v - 5;
}

void put(Dtype dtype, double v, void* out) {
    switch (dtype) {
        case Dtype::kBool:
            *static_cast<bool*>(out) = v != 0;
            return;
        case Dtype::kInt8:
            *static_cast<int8_t*>(out) = static_cast<int8_t>(v);
            return;
        case Dtype::kUInt8:
            *static_cast<uint8_t*>(out) = static_cast<uint8_t>(v);
            return;
        case Dtype::kInt32:
            *static_cast<int32_t*>(out) = static_cast<int32_t>(v);
            return;
        case Dtype::kInt64:
            *static_cast<int64_t*>(out) = static_cast<int64_t>(v);
            return;
        case Dtype::kFloat16:
            *static_cast<Half*>(out) = Half(static_cast<float>(v));
            return;
        case Dtype::kBFloat16:
            *static_cast<BFloat16*>(out) = BFloat16(static_cast<float>(v));
            return;
        case Dtype::kFloat32:
            *static_cast<float*>(out) = static_cast<float>(v);
            return;
        case Dtype::kFloat64:
            *static_cast<double*>(out) = v;
            return;
    }
}

double get(Dtype dtype, const void* in) {
    switch (dtype) {
        case Dtype::kBool:
            return *static_cast<const bool*>(in) ? 1 : 0;
        case Dtype::kInt8:
            return *static_cast<const int8_t*>(in);
        case Dtype::kUInt8:
            return *static_cast<const uint8_t*>(in);
        case Dtype::kInt32:
            return *static_cast<const int32_t*>(in);
        case Dtype::kInt64:
            return static_cast<double>(*static_cast<const int64_t*>(in));
        case Dtype::kFloat16:
            return static_cast<float>(*static_cast<const Half*>(in));
        case Dtype::kBFloat16:
            return static_cast<float>(*static_cast<const BFloat16*>(in));
        case Dtype::kFloat32:
            return *static_cast<const float*>(in);
        case Dtype::kFloat64:
            return *static_cast<const double*>(in);
    }
    return 0;
}

// The reduction over ranks 0..size-1 computed locally (bool: sum/max = any, min = all).
double reference(Dtype dtype, MpiReduce op, int size, int i) {
    double acc = value_of(dtype, 0, i);
    for (int r = 1; r < size; ++r) {
        const double v = value_of(dtype, r, i);
        switch (op) {
            case MpiReduce::kSum:
                acc += v;
                break;
            case MpiReduce::kMax:
                acc = std::max(acc, v);
                break;
            case MpiReduce::kMin:
                acc = std::min(acc, v);
                break;
        }
    }
    return dtype == Dtype::kBool ? (acc != 0 ? 1 : 0) : acc;
}

std::vector<double> allreduce_raw(CommHandle& handle, Dtype dtype, MpiReduce op, int n) {
    const auto item = static_cast<size_t>(itemsize(dtype));
    std::vector<unsigned char> in(item * n), out(item * n);
    for (int i = 0; i < n; ++i) put(dtype, value_of(dtype, handle.rank(), i), &in[item * i]);
    const OpGuard guard(handle, {.op = "allreduce", .dtype = dtype, .shape = {n}});
    check_mpi(MPI_Allreduce(in.data(), out.data(), n, mpi_datatype(dtype), mpi_op(op, dtype), handle.comm()),
              "test allreduce");
    std::vector<double> result;
    for (int i = 0; i < n; ++i) result.push_back(get(dtype, &out[item * i]));
    return result;
}

// Every rank's value, in rank order.
std::vector<int64_t> allgather(const CommHandle& handle, int64_t value) {
    std::vector<int64_t> all(static_cast<size_t>(handle.size()));
    check_mpi(MPI_Allgather(&value, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, handle.comm()), "test allgather");
    return all;
}

struct DebugScope {
    DebugScope() { set_debug(true); }
    ~DebugScope() { set_debug(false); }
};

// The message of the MpiError thrown by a guarded call with this signature ("" if none).
std::string guard_error(CommHandle& handle, const CallSignature& signature) {
    try {
        const OpGuard guard(handle, signature);
    } catch (const MpiError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("distributed runtime: every dtype reduces with its MPI type and ops", "[distributed][runtime]") {
    const auto world = CommHandle::create_world();
    for (const Dtype dtype : kAllDtypes) {
        for (const MpiReduce op : {MpiReduce::kSum, MpiReduce::kMax, MpiReduce::kMin}) {
            const std::vector<double> got = allreduce_raw(*world, dtype, op, 13);
            for (int i = 0; i < 13; ++i) {
                INFO(dtype << " op " << static_cast<int>(op) << " element " << i);
                CHECK(got[static_cast<size_t>(i)] == reference(dtype, op, world->size(), i));
            }
        }
        int bytes = 0;
        MPI_Type_size(mpi_datatype(dtype), &bytes);
        CHECK(bytes == itemsize(dtype));
    }
}

TEST_CASE("distributed runtime: float16 and bfloat16 sums round in their own dtype", "[distributed][runtime]") {
    const auto world = CommHandle::create_world();
    for (const Dtype dtype : {Dtype::kFloat16, Dtype::kBFloat16}) {
        // 0.1 per rank: the sum is rounded to the dtype after each pairwise step.
        uint16_t in = dtype == Dtype::kFloat16 ? Half(0.1f).bits : BFloat16(0.1f).bits, out = 0;
        {
            const OpGuard guard(*world, {.op = "allreduce", .dtype = dtype, .shape = {1}});
            check_mpi(MPI_Allreduce(&in, &out, 1, mpi_datatype(dtype), mpi_op(MpiReduce::kSum, dtype), world->comm()),
                      "test allreduce");
        }
        float expected = dtype == Dtype::kFloat16 ? float(Half(0.1f)) : float(BFloat16(0.1f));
        for (int r = 1; r < world->size(); ++r) {
            const float step = expected + (dtype == Dtype::kFloat16 ? float(Half(0.1f)) : float(BFloat16(0.1f)));
            expected = dtype == Dtype::kFloat16 ? float(Half(step)) : float(BFloat16(step));
        }
        const float got = dtype == Dtype::kFloat16 ? float(Half(out, FromBits{})) : float(BFloat16(out, FromBits{}));
        CHECK(got == Approx(expected).epsilon(1e-2));
        CHECK(got == Approx(0.1 * world->size()).epsilon(1e-2));
    }
}

TEST_CASE("distributed runtime: sequence numbers agree across ranks", "[distributed][runtime]") {
    const auto world = CommHandle::create_world();
    const auto other = CommHandle::create_world();
    std::vector<int64_t> seen;
    for (int k = 0; k < 5; ++k) {
        const OpGuard guard(*world, {.op = "barrier"});
        seen.push_back(guard.sequence());
        check_mpi(MPI_Barrier(world->comm()), "test barrier");
    }
    // Several guards alive at once (non-blocking requests) take consecutive numbers.
    const OpGuard a(*world, {.op = "iallreduce", .shape = {2}});
    const OpGuard b(*world, {.op = "iallreduce", .shape = {3}});
    const OpGuard p2p(*world, {.op = "recv", .root = 0, .collective = false});
    const OpGuard first_on_other(*other, {.op = "barrier"});
    CHECK(seen == std::vector<int64_t>{0, 1, 2, 3, 4});
    CHECK(a.sequence() == 5);
    CHECK(b.sequence() == 6);
    CHECK(p2p.sequence() == -1);
    CHECK(first_on_other.sequence() == 0);
    const std::vector<int64_t> all = allgather(*world, b.sequence());
    CHECK(all == std::vector<int64_t>(static_cast<size_t>(world->size()), 6));
}

TEST_CASE("distributed runtime: debug mode finds a shape mismatch on every rank", "[distributed][runtime]") {
    const auto world = CommHandle::create_world();
    const DebugScope debug;
    const int64_t rows = world->rank() == 1 ? 3 : 4;
    const std::string message = guard_error(*world, {.op = "allreduce", .shape = {rows, 4}});
    if (world->size() == 1) {
        CHECK(message.empty());
    } else {
        CHECK(message == "allreduce #0 on communicator " + std::to_string(world->id()) +
                             ": rank 1 called allreduce(float32, (3, 4)) but rank 0 called allreduce(float32, (4, 4))");
    }
    // The ranks stay in step after the error: a matching call passes and numbers agree.
    CHECK(guard_error(*world, {.op = "allreduce", .shape = {2}}).empty());
    const OpGuard next(*world, {.op = "allreduce", .shape = {2}});
    CHECK(next.sequence() == 2);
}

TEST_CASE("distributed runtime: debug mode finds an op and root mismatch on every rank", "[distributed][runtime]") {
    const auto world = CommHandle::create_world();
    const DebugScope debug;
    const int last = world->size() - 1;
    const std::string op = world->rank() == last ? "bcast" : "allreduce";
    const std::string message = guard_error(*world, {.op = op, .dtype = Dtype::kInt64, .shape = {5}});
    const std::string root_message =
        guard_error(*world, {.op = "bcast", .dtype = Dtype::kInt64, .shape = {5}, .root = world->rank() == last});
    if (world->size() == 1) {
        CHECK(message.empty());
        CHECK(root_message.empty());
    } else {
        const std::string who = "rank " + std::to_string(last);
        CHECK(message == "allreduce #0 on communicator " + std::to_string(world->id()) + ": " + who +
                             " called bcast(int64, (5,)) but rank 0 called allreduce(int64, (5,))");
        CHECK(root_message == "bcast #1 on communicator " + std::to_string(world->id()) + ": " + who +
                                  " called bcast(int64, (5,), root=1) but rank 0 called bcast(int64, (5,), root=0)");
    }
}

TEST_CASE("distributed runtime: split handles agree on ids and world ranks", "[distributed][runtime]") {
    const auto world = CommHandle::create_world();
    const int rank = world->rank(), size = world->size();
    // Even and odd ranks, in reverse order of world rank.
    const auto half = world->split(rank % 2, -rank);
    // Agreed on every rank before REQUIRE, so a failure cannot leave other ranks in a collective.
    const std::vector<int64_t> got_half = allgather(*world, half != nullptr ? 1 : 0);
    REQUIRE(got_half == std::vector<int64_t>(static_cast<size_t>(size), 1));
    std::vector<int> expected;
    for (int r = size - 1; r >= 0; --r) {
        if (r % 2 == rank % 2) expected.push_back(r);
    }
    CHECK(half->world_ranks() == expected);
    CHECK(half->size() == static_cast<int>(expected.size()));
    CHECK(half->world_ranks()[static_cast<size_t>(half->rank())] == rank);
    CHECK(half->id() != world->id());
    const std::vector<int64_t> ids = allgather(*half, half->id());
    CHECK(ids == std::vector<int64_t>(ids.size(), half->id()));
    const std::vector<int64_t> world_ids = allgather(*world, world->id());
    CHECK(world_ids == std::vector<int64_t>(world_ids.size(), world->id()));

    // One machine: every rank, unless MPI is told to treat each rank as a node of its own
    // (MPIR_CVAR_NOLOCAL: the network-path tests) or the nodes are simulated (Note
    // [Simulated nodes]).
    const auto shared = world->split_shared();
    const char* nolocal = std::getenv("MPIR_CVAR_NOLOCAL");
    const char* simulated = std::getenv("RENSA_TEST_RANKS_PER_NODE");
    const int per_node = simulated != nullptr                                ? std::atoi(simulated)
                         : nolocal != nullptr && std::string(nolocal) == "1" ? 1
                                                                             : size;
    std::vector<int> node;
    for (int r = rank / per_node * per_node; r < std::min(size, (rank / per_node + 1) * per_node); ++r) {
        node.push_back(r);
    }
    CHECK(shared->world_ranks() == node);
    CHECK(shared->id() != half->id());
    CHECK(allgather(*shared, shared->id()) == std::vector<int64_t>(node.size(), shared->id()));

    const auto only_zero = world->split(rank == 0 ? 0 : MPI_UNDEFINED, 0);
    CHECK((only_zero != nullptr) == (rank == 0));
    if (only_zero) CHECK(only_zero->world_ranks() == std::vector<int>{0});
}

TEST_CASE("distributed runtime: errors and settings", "[distributed][runtime]") {
    ensure_initialized();
    CHECK(is_initialized());
    CHECK(world_size() >= 1);
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK(world_rank() == rank);
    try {
        check_mpi(MPI_ERR_COUNT, "test op");
        FAIL("check_mpi did not throw");
    } catch (const MpiError& e) {
        const std::string what = e.what();
        CHECK(what.rfind("test op: ", 0) == 0);
        CHECK(what.find("(rank " + std::to_string(rank) + ")") != std::string::npos);
    }
    const double before = watchdog_timeout();
    CHECK_THROWS_AS(set_watchdog_timeout(0), ValueError);
    set_watchdog_timeout(42);
    CHECK(watchdog_timeout() == 42);
    set_watchdog_timeout(before);
}
