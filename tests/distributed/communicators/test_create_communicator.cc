// create_communicator: names and errors.

#include <catch2/catch.hpp>

#include "tests/distributed/communicators/comm_testing.h"

namespace rensa::distributed {
namespace {

using testing::comm;
using testing::mismatch;

TEST_CASE("create_communicator: the names and their errors", "[distributed][communicators]") {
    for (const char* kind : {"naive", "flat", "hierarchical", "dummy"}) {
        Communicator& c = comm(kind);
        CHECK(c.name() == kind);
        CHECK(c.size() >= 1);
        CHECK(c.rank() < c.size());
        CHECK(c.size() == comm("naive").size());
    }
#ifndef RENSA_HAVE_NCCL  // with NCCL they exist (tests/distributed/nccl)
    CHECK_THROWS_WITH(create_communicator("pure_nccl"),
                      Catch::Contains("create_communicator: 'pure_nccl' needs the CUDA build with NCCL"));
    CHECK_THROWS_AS(create_communicator("pure_nccl"), MpiError);
#endif
    CHECK_THROWS_WITH(create_communicator("fancy"), Catch::Contains("'fancy'") && Catch::Contains("naive") &&
                                                        Catch::Contains("flat") && Catch::Contains("hierarchical") &&
                                                        Catch::Contains("dummy"));
    CHECK_THROWS_AS(create_communicator("fancy"), ValueError);
}

}  // namespace
}  // namespace rensa::distributed
