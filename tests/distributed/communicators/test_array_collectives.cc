// Array-level collectives against references every rank computes locally.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "distributed/communicators/detail/mpi_chunks.h"
#include "distributed/detail/mpi_runtime.h"
#include "tests/distributed/communicators/comm_testing.h"

namespace rensa::distributed {
namespace {

using testing::comm;
using testing::mismatch;
using testing::value_of;
using testing::values_of;

std::vector<double> reduce_reference(Dtype dtype, ReduceOp op, int size, int64_t n) {
    std::vector<double> out;
    for (int64_t i = 0; i < n; ++i) {
        double sum = 0, hi = -1e300, lo = 1e300;
        for (int r = 0; r < size; ++r) {
            const double v = value_of(dtype, r, i);
            sum += v;
            hi = std::max(hi, v);
            lo = std::min(lo, v);
        }
        switch (op) {
            case ReduceOp::kSum:
                out.push_back(sum);
                break;
            case ReduceOp::kMean:
                out.push_back(is_float(dtype) ? sum / size : std::floor(sum / size));
                break;
            case ReduceOp::kMax:
                out.push_back(hi);
                break;
            case ReduceOp::kMin:
                out.push_back(lo);
                break;
        }
    }
    return out;
}

// Restores the default chunk limit when a test that shrank it ends.
struct ChunkLimit {
    explicit ChunkLimit(int64_t bytes) : saved{detail::max_message_bytes()} { detail::set_max_message_bytes(bytes); }
    ~ChunkLimit() { detail::set_max_message_bytes(saved); }
    int64_t saved;
};

TEST_CASE("communicator allreduce: every dtype and op against the local reference", "[distributed][communicators]") {
    Communicator& c = comm();
    const Shape shape{3, 5};
    for (const Dtype dtype : kAllDtypes) {
        for (const ReduceOp op : {ReduceOp::kSum, ReduceOp::kMean, ReduceOp::kMax, ReduceOp::kMin}) {
            if (dtype == Dtype::kBool && (op == ReduceOp::kSum || op == ReduceOp::kMean)) continue;
            const Array x = rensa::testing::make_array(values_of(dtype, c.rank(), 15), shape, dtype);
            const Array y = c.allreduce(x, op);
            INFO(dtype << " " << to_string(op));
            CHECK(y.dtype() == dtype);
            CHECK(mismatch(y, reduce_reference(dtype, op, c.size(), 15), shape) == "");
            // The input is left alone.
            CHECK(mismatch(x, values_of(dtype, c.rank(), 15), shape) == "");
        }
    }
}

TEST_CASE("communicator allreduce: bool sum is a DtypeError before any communication", "[distributed][communicators]") {
    const Array x = rensa::testing::make_array({1, 0}, {2}, Dtype::kBool);
    CHECK_THROWS_AS(comm().allreduce(x, ReduceOp::kSum), DtypeError);
}

TEST_CASE("communicator allreduce: non-contiguous inputs in every layout", "[distributed][communicators]") {
    Communicator& c = comm();
    const Shape shape{4, 3};
    for (const rensa::testing::Layout layout : rensa::testing::kAllLayouts) {
        const Array x =
            rensa::testing::make_array(values_of(Dtype::kFloat32, c.rank(), 12), shape, Dtype::kFloat32, layout);
        const Array y = c.allreduce(x, ReduceOp::kSum);
        INFO(rensa::testing::layout_name(layout));
        CHECK(mismatch(y, reduce_reference(Dtype::kFloat32, ReduceOp::kSum, c.size(), 12), shape) == "");
    }
}

TEST_CASE("communicator allreduce: chunked with a tiny message limit", "[distributed][communicators]") {
    Communicator& c = comm();
    ChunkLimit limit{16};  // 4 float32 or 2 float64 per message
    for (const Dtype dtype : {Dtype::kFloat32, Dtype::kFloat64, Dtype::kInt8, Dtype::kFloat16}) {
        const Array x = rensa::testing::make_array(values_of(dtype, c.rank(), 37), {37}, dtype);
        INFO(dtype);
        CHECK(mismatch(c.allreduce(x, ReduceOp::kSum), reduce_reference(dtype, ReduceOp::kSum, c.size(), 37), {37}) ==
              "");
        const Array buffer = x.copy();
        auto request = c.iallreduce_inplace(buffer, ReduceOp::kMax);
        request->wait();
        CHECK(mismatch(buffer, reduce_reference(dtype, ReduceOp::kMax, c.size(), 37), {37}) == "");
    }
}

TEST_CASE("communicator allreduce_inplace and iallreduce_inplace", "[distributed][communicators]") {
    Communicator& c = comm();
    const Array a = rensa::testing::make_array(values_of(Dtype::kFloat64, c.rank(), 10), {10}, Dtype::kFloat64);
    const Array b = rensa::testing::make_array(values_of(Dtype::kInt32, c.rank(), 6), {2, 3}, Dtype::kInt32);
    c.allreduce_inplace(a, ReduceOp::kMean);
    auto first = c.iallreduce_inplace(b, ReduceOp::kMean);
    const Array d = rensa::testing::make_array(values_of(Dtype::kFloat32, c.rank(), 5), {5}, Dtype::kFloat32);
    auto second = c.iallreduce_inplace(d, ReduceOp::kSum);
    while (!first->test()) {
    }
    second->wait();
    CHECK(second->test());
    CHECK(mismatch(a, reduce_reference(Dtype::kFloat64, ReduceOp::kMean, c.size(), 10), {10}) == "");
    CHECK(mismatch(b, reduce_reference(Dtype::kInt32, ReduceOp::kMean, c.size(), 6), {2, 3}) == "");
    CHECK(mismatch(d, reduce_reference(Dtype::kFloat32, ReduceOp::kSum, c.size(), 5), {5}) == "");
    const Array strided = rensa::testing::make_array({1, 2}, {2}, Dtype::kFloat32, rensa::testing::Layout::kStrided);
    CHECK_THROWS_AS(c.allreduce_inplace(strided), ValueError);
}

TEST_CASE("communicator bcast: every dtype from every root", "[distributed][communicators]") {
    Communicator& c = comm();
    for (int root = 0; root < c.size(); ++root) {
        for (const Dtype dtype : kAllDtypes) {
            const Shape shape{2, 1, 3};
            const Array x = c.rank() == root ? rensa::testing::make_array(values_of(dtype, root, 6), shape, dtype,
                                                                          rensa::testing::Layout::kTransposed)
                                             : Array{};
            const Array y = c.bcast(x, root);
            INFO("root " << root << " " << dtype);
            CHECK(y.dtype() == dtype);
            CHECK(mismatch(y, values_of(dtype, root, 6), shape) == "");
        }
    }
}

TEST_CASE("communicator bcast: undefined array on the root raises on every rank", "[distributed][communicators]") {
    CHECK_THROWS_AS(comm().bcast(Array{}, 0), ValueError);
}

// Rank r's array for gather tests: r + 1 rows of 3 (rank 0 a 0-d array, to cover scalars).
Shape gather_shape(int r) { return r == 0 ? Shape{} : Shape{r + 1, 3}; }
std::vector<double> gather_values(Dtype dtype, int r) { return values_of(dtype, r, shape_size(gather_shape(r))); }

TEST_CASE("communicator gather and allgather: differing shapes per rank in every dtype",
          "[distributed][communicators]") {
    Communicator& c = comm();
    ChunkLimit limit{64};
    for (const Dtype dtype : kAllDtypes) {
        INFO(dtype);
        const Array x = rensa::testing::make_array(gather_values(dtype, c.rank()), gather_shape(c.rank()), dtype);
        for (int root = 0; root < c.size(); ++root) {
            const std::vector<Array> gathered = c.gather(x, root);
            CHECK(gathered.size() == (c.rank() == root ? static_cast<size_t>(c.size()) : 0U));
            for (size_t r = 0; r < gathered.size(); ++r) {
                const int rr = static_cast<int>(r);
                CHECK(gathered[r].dtype() == dtype);
                CHECK(mismatch(gathered[r], gather_values(dtype, rr), gather_shape(rr)) == "");
            }
        }
        const std::vector<Array> all = c.allgather(x);
        REQUIRE(all.size() == static_cast<size_t>(c.size()));
        for (int r = 0; r < c.size(); ++r) CHECK(mismatch(all[r], gather_values(dtype, r), gather_shape(r)) == "");
    }
}

// Block for rank j from rank i: j + 2 elements of value_of(dtype, 10 * i + j, .).
std::vector<double> block_values(Dtype dtype, int i, int j) { return values_of(dtype, 10 * i + j, j + 2); }

TEST_CASE("communicator scatter and alltoall in every dtype", "[distributed][communicators]") {
    Communicator& c = comm();
    ChunkLimit limit{32};
    const int root = c.size() - 1;
    for (const Dtype dtype : kAllDtypes) {
        INFO(dtype);
        std::vector<Array> xs;
        for (int j = 0; j < c.size(); ++j) {
            xs.push_back(rensa::testing::make_array(block_values(dtype, c.rank(), j), {j + 2}, dtype,
                                                    rensa::testing::Layout::kStrided));
        }
        const Array mine = c.scatter(c.rank() == root ? xs : std::vector<Array>{}, root);
        CHECK(mine.dtype() == dtype);
        CHECK(mismatch(mine, block_values(dtype, root, c.rank()), {c.rank() + 2}) == "");
        const std::vector<Array> got = c.alltoall(xs);
        REQUIRE(got.size() == static_cast<size_t>(c.size()));
        for (int i = 0; i < c.size(); ++i) {
            CHECK(mismatch(got[i], block_values(dtype, i, c.rank()), {c.rank() + 2}) == "");
        }
    }
}

TEST_CASE("communicator scatter and alltoall: wrong counts raise on every rank", "[distributed][communicators]") {
    Communicator& c = comm();
    const std::vector<Array> one{rensa::testing::make_array({1}, {1}, Dtype::kFloat32)};
    // The root passes size() + 1 arrays: every rank raises ValueError.
    std::vector<Array> too_many(static_cast<size_t>(c.size() + 1), one[0]);
    CHECK_THROWS_AS(c.scatter(too_many, 0), ValueError);
    // The root passes an undefined array: every rank raises ValueError.
    std::vector<Array> with_hole(static_cast<size_t>(c.size()), one[0]);
    with_hole.back() = Array{};
    CHECK_THROWS_AS(c.scatter(with_hole, 0), ValueError);
    // Rank 0 passes size() + 1 arrays to alltoall: every rank raises ValueError.
    std::vector<Array> xs(static_cast<size_t>(c.size()), one[0]);
    if (c.rank() == 0) xs.push_back(one[0]);
    CHECK_THROWS_WITH(c.alltoall(xs), Catch::Contains("alltoall: rank 0"));
}

TEST_CASE("communicator send and recv: ring with headers and chunks", "[distributed][communicators]") {
    Communicator& c = comm();
    ChunkLimit limit{16};
    if (c.size() == 1) return;  // same on every rank
    const int next = (c.rank() + 1) % c.size(), prev = (c.rank() + c.size() - 1) % c.size();
    const Shape shape{c.rank() + 1, 5};
    for (const Dtype dtype : kAllDtypes) {
        const Array x = rensa::testing::make_array(values_of(dtype, c.rank(), shape_size(shape)), shape, dtype,
                                                   rensa::testing::Layout::kStrided);
        // Even ranks send first; odd ranks receive first (no deadlock on rendezvous sends).
        Array y;
        if (c.rank() % 2 == 0) {
            c.send(x, next, 7);
            y = c.recv(prev, 7);
        } else {
            y = c.recv(prev, 7);
            c.send(x, next, 7);
        }
        INFO(dtype);
        CHECK(y.dtype() == dtype);
        CHECK(mismatch(y, values_of(dtype, prev, (prev + 1) * 5), {prev + 1, 5}) == "");
    }
}

TEST_CASE("communicator rank errors name the rank and the size", "[distributed][communicators]") {
    Communicator& c = comm();
    const Array x = rensa::testing::make_array({1}, {1}, Dtype::kFloat32);
    CHECK_THROWS_AS(c.bcast(x, c.size()), IndexError);
    CHECK_THROWS_WITH(c.gather(x, -1), Catch::Contains("root -1") && Catch::Contains("size"));
    CHECK_THROWS_AS(c.send(x, c.size() + 2), IndexError);
    CHECK_THROWS_WITH(c.recv(-3), Catch::Contains("source -3"));
    CHECK_THROWS_AS(c.bcast_obj("x", 99), IndexError);
}

TEST_CASE("communicator split by parity keeps the kind", "[distributed][communicators]") {
    Communicator& c = comm("flat");
    const CommunicatorPtr half = c.split(c.rank() % 2, c.rank());
    CHECK(half->name() == "flat");
    int expected_size = 0;
    for (int r = 0; r < c.size(); ++r) expected_size += r % 2 == c.rank() % 2 ? 1 : 0;
    CHECK(half->size() == expected_size);
    CHECK(half->rank() == c.rank() / 2);
    // Sum of the world ranks of my parity.
    const Array x = Array::from_vector<int64_t>({c.rank()}, {1});
    double expected = 0;
    for (int r = c.rank() % 2; r < c.size(); r += 2) expected += r;
    CHECK(mismatch(half->allreduce(x), {expected}, {1}) == "");
}

TEST_CASE("communicator topology: nodes of consecutive ranks", "[distributed][communicators]") {
    // One node, unless the test runs on a simulated topology (RENSA_TEST_RANKS_PER_NODE, Note
    // [Simulated nodes]) or on the network path (MPIR_CVAR_NOLOCAL: every rank a node).
    Communicator& c = comm();
    const char* simulated = std::getenv("RENSA_TEST_RANKS_PER_NODE");
    const char* nolocal = std::getenv("MPIR_CVAR_NOLOCAL");
    const int per_node = simulated != nullptr                                ? std::atoi(simulated)
                         : nolocal != nullptr && std::string(nolocal) == "1" ? 1
                                                                             : c.size();
    const int nodes = (c.size() + per_node - 1) / per_node;
    CHECK(c.intra_size() == std::min(per_node, c.size() - c.rank() / per_node * per_node));
    CHECK(c.intra_rank() == c.rank() % per_node);
    CHECK(c.inter_rank() == c.rank() / per_node);
    if (c.size() % per_node == 0) CHECK(c.inter_size() == nodes);
    c.barrier();
}

TEST_CASE("communicator debug mode: differing allreduce shapes raise on every rank", "[distributed][communicators]") {
    Communicator& c = comm();
    const bool saved = detail::debug_enabled();
    detail::set_debug(true);
    const Array x =
        Array::from_vector<float>(std::vector<float>(static_cast<size_t>(c.rank() + 1), 1.0F), {c.rank() + 1});
    std::string message;
    try {
        (void)c.allreduce(x);
    } catch (const MpiError& e) {
        message = e.what();
    }
    // The ranks are still in step: the next collective works.
    const Array ok = c.allreduce(Array::from_vector<float>({1.0F}, {1}));
    detail::set_debug(saved);
    CHECK(mismatch(ok, {static_cast<double>(c.size())}, {1}) == "");
    INFO(message);
    if (c.size() == 1) {
        CHECK(message.empty());
    } else {
        CHECK_THAT(message, Catch::Contains("allreduce") && Catch::Contains("rank 1") && Catch::Contains("(2,)"));
    }
}

}  // namespace
}  // namespace rensa::distributed
