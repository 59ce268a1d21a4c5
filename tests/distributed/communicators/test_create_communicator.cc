// create_communicator: names, errors, and the grad packing helpers.

#include <catch2/catch.hpp>

#include "core/ops/elementwise.h"
#include "distributed/communicators/grad_packing.h"
#include "tests/distributed/communicators/comm_testing.h"

namespace rensa::distributed {
namespace {

using testing::comm;
using testing::mismatch;

TEST_CASE("create_communicator: the names and their errors", "[distributed][communicators]") {
    for (const char* kind : {"naive", "flat", "dummy"}) {
        Communicator& c = comm(kind);
        CHECK(c.name() == kind);
        CHECK(c.size() >= 1);
        CHECK(c.rank() < c.size());
        CHECK(c.size() == comm("naive").size());
    }
#ifndef RENSA_HAVE_NCCL  // with NCCL they exist (tests/distributed/nccl)
    CHECK_THROWS_WITH(create_communicator("pure_nccl"),
                      Catch::Contains("create_communicator: 'pure_nccl' needs the CUDA build with NCCL"));
    CHECK_THROWS_AS(create_communicator("hierarchical"), MpiError);
#endif
    CHECK_THROWS_WITH(create_communicator("fancy"), Catch::Contains("'fancy'") && Catch::Contains("naive") &&
                                                        Catch::Contains("flat") && Catch::Contains("dummy"));
    CHECK_THROWS_AS(create_communicator("fancy"), ValueError);
}

TEST_CASE("GradPacker packs per dtype and casts and unpacks with a scale", "[distributed][communicators]") {
    using rensa::testing::Layout;
    using rensa::testing::make_array;
    const Array a = make_array({1, 2, 3, 4, 5, 6}, {2, 3}, Dtype::kFloat32, Layout::kTransposed);
    const Array b = make_array({7, 8}, {2}, Dtype::kFloat64);
    const Array c = make_array({9, 10, 11}, {3}, Dtype::kFloat32, Layout::kStrided);
    const Array d = make_array({12, 13}, {2}, Dtype::kFloat16);
    GradPacker packer;
    std::vector<Array> buffers = packer.pack({a, b, c, d});
    REQUIRE(buffers.size() == 3);
    CHECK(mismatch(buffers[0], {1, 2, 3, 4, 5, 6, 9, 10, 11}, {9}) == "");
    CHECK(mismatch(buffers[1], {7, 8}, {2}) == "");
    CHECK(mismatch(buffers[2], {12, 13}, {2}) == "");
    // Same layout: the buffers are reused.
    const void* first = buffers[0].raw_data();
    buffers[0].fill(2.0);
    buffers[2].fill(4.0);
    CHECK(packer.pack({a, b, c, d})[0].raw_data() == first);
    for (const Array& buffer : packer.buffers()) ops::multiply_inplace(buffer, Scalar(2.0));
    packer.unpack({a, b, c, d}, 0.5);
    CHECK(mismatch(a, {1, 2, 3, 4, 5, 6}, {2, 3}) == "");
    CHECK(mismatch(d, {12, 13}, {2}) == "");
    // Cast: one float32 buffer; float16 values come back cast.
    buffers = packer.pack({d, b}, Dtype::kFloat32);
    REQUIRE(buffers.size() == 1);
    CHECK(buffers[0].dtype() == Dtype::kFloat32);
    packer.unpack({d, b}, 0.25);
    CHECK(mismatch(d, {3, 3.25}, {2}) == "");
    CHECK(mismatch(b, {1.75, 2}, {2}) == "");
    CHECK_THROWS_AS(packer.unpack({d}), ValueError);
}

}  // namespace
}  // namespace rensa::distributed
