// Memory bounds of loading (issue 20, item 4): a member's header is checked against its
// target before its data is read, and the data inflates straight into the loaded array.
// Each case runs in a child process under an address-space cap (tests/testing/memory_limit.h)
// on a crafted file: a small deflated member whose header claims a huge array.
#include <catch2/catch.hpp>
#include <cstring>

#include "core/error.h"
#include "serializers/npy.h"
#include "serializers/npz.h"
#include "tests/serializers/npz_testing.h"
#include "tests/testing/deflate_testing.h"
#include "tests/testing/memory_limit.h"

using namespace rensa;
using namespace rensa::serializers;
using rensa::testing::TempDir;

namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

// Linear(3, 4)'s parameters, or any W of another shape and dtype.
struct Small {
    Array W;
    Array b;
    void serialize(const Serializer& s) {
        s("W", W);
        s("b", b);
    }
};

Small make_small(const Shape& w_shape, Dtype dtype, unsigned char fill) {
    Small small{Array::empty(w_shape, dtype, Device::native()), Array::empty({4}, Dtype::kFloat32, Device::native())};
    std::memset(small.W.raw_data(), fill, static_cast<size_t>(small.W.nbytes()));
    std::memset(small.b.raw_data(), fill, static_cast<size_t>(small.b.nbytes()));
    return small;
}

bool all_bytes(const Array& a, unsigned char value) {
    const auto* p = static_cast<const unsigned char*>(a.raw_data());
    for (int64_t i = 0; i < a.nbytes(); ++i) {
        if (p[i] != value) return false;
    }
    return true;
}

// An npz whose member "W" is a float32 array of (mib * 256, 1024) zeros (mib MiB), about
// 1 KiB per MiB on disk, and whose "b" is float32 (4,) zeros.
void write_zeros_npz(const std::string& path, int64_t mib, bool fortran) {
    const std::string header = npy::format_header("<f4", fortran, {mib * 256, 1024});
    std::string zip = testing::zip_of("W.npy", testing::deflate_with_zeros(header, mib));
    testing::write_file(path, zip);
}

}  // namespace

TEST_CASE("npz checks a member's shape against the target before reading its data", "[serializers][npz][bounds]") {
    TempDir dir;
    const std::string path = dir.path("huge.npz");
    write_zeros_npz(path, 1024, false);  // 1 GiB of float32 in about 1 MiB
    REQUIRE(std::filesystem::file_size(path) < 2 * static_cast<uintmax_t>(kMiB));
    const auto result = testing::run_in_child([&] {
        Small small = make_small({4, 3}, Dtype::kFloat32, 7);
        testing::limit_address_space(256 * kMiB);
        try {
            load_npz(path, small);
        } catch (...) {
            if (!all_bytes(small.W, 7)) throw std::runtime_error("the target changed");
            throw;
        }
    });
    INFO(result.error << ": " << result.message);
    REQUIRE(result.finished);
    CHECK(result.error == "DimensionError");
    CHECK_THAT(result.message, Catch::Contains("huge.npz") && Catch::Contains("key 'W'") &&
                                   Catch::Contains("(262144, 1024)") && Catch::Contains("(4, 3)"));
}

TEST_CASE("npz checks a member's dtype against the target before reading its data", "[serializers][npz][bounds]") {
    TempDir dir;
    const std::string path = dir.path("huge.npz");
    write_zeros_npz(path, 1024, false);
    const auto result = testing::run_in_child([&] {
        Small small = make_small({4, 3}, Dtype::kInt8, 7);  // float32 does not cast to int8
        testing::limit_address_space(256 * kMiB);
        load_npz(path, small);
    });
    INFO(result.error << ": " << result.message);
    REQUIRE(result.finished);
    CHECK(result.error == "DtypeError");
    CHECK_THAT(result.message, Catch::Contains("key 'W'") && Catch::Contains("float32") && Catch::Contains("int8"));
}

TEST_CASE("npz loading costs the target's bytes plus a bounded buffer", "[serializers][npz][bounds]") {
    // A 128 MiB target loads under a cap of 128 + 64 MiB above what the child has mapped: one
    // staging copy of the target (committed after the walk), not a raw and a decoded one
    // besides. Fortran order goes through the bounded buffer too.
    for (const bool fortran : {false, true}) {
        INFO("fortran_order " << fortran);
        TempDir dir;
        const std::string path = dir.path("big.npz");
        write_zeros_npz(path, 128, fortran);
        const auto result = testing::run_in_child([&] {
            Small small = make_small({32768, 1024}, Dtype::kFloat32, 7);
            testing::limit_address_space(128 * kMiB + 64 * kMiB);
            load_npz(path, small, {.strict = false});  // no "b" in the file
            if (!all_bytes(small.W, 0)) throw std::runtime_error("W was not loaded");
            if (!all_bytes(small.b, 7)) throw std::runtime_error("b changed");
        });
        INFO(result.error << ": " << result.message << " (" << result.seconds << " s)");
        REQUIRE(result.finished);
        CHECK(result.error.empty());
    }
}
