// Object-level (byte string) collectives, chunked with a tiny message limit too.

#include <catch2/catch.hpp>

#include "distributed/communicators/detail/mpi_chunks.h"
#include "tests/distributed/communicators/comm_testing.h"

namespace rensa::distributed {
namespace {

using testing::comm;

// Rank r's object: r * 13 + 3 bytes of a pattern, with zero bytes inside.
std::string object_of(int r) {
    std::string s;
    for (int i = 0; i < r * 13 + 3; ++i) s.push_back(static_cast<char>((i * 31 + r) % 256));
    return s;
}

void run_object_collectives(Communicator& c) {
    for (int root = 0; root < c.size(); ++root) {
        CHECK(c.bcast_obj(c.rank() == root ? object_of(root) : std::string("ignored"), root) == object_of(root));
        const std::vector<std::string> gathered = c.gather_obj(object_of(c.rank()), root);
        CHECK(gathered.size() == (c.rank() == root ? static_cast<size_t>(c.size()) : 0U));
        for (size_t r = 0; r < gathered.size(); ++r) CHECK(gathered[r] == object_of(static_cast<int>(r)));
    }
    const std::vector<std::string> all = c.allgather_obj(object_of(c.rank()));
    REQUIRE(all.size() == static_cast<size_t>(c.size()));
    for (int r = 0; r < c.size(); ++r) CHECK(all[r] == object_of(r));
    // Folded in rank order: concatenation shows the order.
    std::string expected;
    for (int r = 0; r < c.size(); ++r) expected += std::to_string(r) + ",";
    CHECK(c.allreduce_obj(std::to_string(c.rank()) + ",",
                          [](const std::string& a, const std::string& b) { return a + b; }) == expected);
    CHECK(c.bcast_obj("", 0).empty());
}

TEST_CASE("communicator object collectives", "[distributed][communicators]") { run_object_collectives(comm()); }

TEST_CASE("communicator object collectives chunked with a 16 byte limit", "[distributed][communicators]") {
    const int64_t saved = detail::max_message_bytes();
    detail::set_max_message_bytes(16);
    run_object_collectives(comm());
    detail::set_max_message_bytes(saved);
    CHECK_THROWS_AS(detail::set_max_message_bytes(3), ValueError);
}

TEST_CASE("communicator allreduce_obj of doubles", "[distributed][communicators]") {
    Communicator& c = comm();
    double sum = 0, hi = -1e9, lo = 1e9;
    for (int r = 0; r < c.size(); ++r) {
        const double v = 0.5 * r - 1.25;
        sum += v;
        hi = std::max(hi, v);
        lo = std::min(lo, v);
    }
    const double mine = 0.5 * c.rank() - 1.25;
    CHECK(c.allreduce_obj(mine) == Approx(sum));
    CHECK(c.allreduce_obj(mine, ReduceOp::kMean) == Approx(sum / c.size()));
    CHECK(c.allreduce_obj(mine, ReduceOp::kMax) == hi);
    CHECK(c.allreduce_obj(mine, ReduceOp::kMin) == lo);
}

TEST_CASE("communicator send_obj and recv_obj: ring with chunks", "[distributed][communicators]") {
    Communicator& c = comm();
    if (c.size() == 1) return;
    const int64_t saved = detail::max_message_bytes();
    detail::set_max_message_bytes(16);
    const int next = (c.rank() + 1) % c.size(), prev = (c.rank() + c.size() - 1) % c.size();
    std::string got;
    if (c.rank() % 2 == 0) {
        c.send_obj(object_of(c.rank()), next, 3);
        got = c.recv_obj(prev, 3);
    } else {
        got = c.recv_obj(prev, 3);
        c.send_obj(object_of(c.rank()), next, 3);
    }
    detail::set_max_message_bytes(saved);
    CHECK(got == object_of(prev));
}

}  // namespace
}  // namespace rensa::distributed
