// Bad files: each raises one typed error naming the file and key and changes nothing.
// See Note [All-or-nothing loading].
#include <catch2/catch.hpp>
#include <filesystem>

#include "core/error.h"
#include "serializers/npy.h"
#include "serializers/npz.h"
#include "serializers/zip.h"
#include "tests/serializers/npz_testing.h"
#include "tests/testing/testing.h"

using namespace rensa;
using namespace rensa::serializers;
using rensa::testing::make_tiny;
using rensa::testing::snapshot;
using rensa::testing::TempDir;

namespace {

// Loads `path` into a fresh Tiny expecting error E whose message contains `needle`,
// and checks the model still holds its values.
template <class E>
void expect_refused(const std::string& path, const std::string& needle) {
    auto target = make_tiny(5.0);
    const std::vector<double> before = snapshot(target);
    try {
        load_npz(path, target);
        FAIL("load_npz accepted " << path);
    } catch (const E& e) {
        INFO(e.what());
        CHECK(std::string{e.what()}.find(needle) != std::string::npos);
    }
    CHECK(snapshot(target) == before);
}

// The members of a valid Tiny file as (name, npy bytes), with `replace` overriding one.
std::vector<std::pair<std::string, std::string>> tiny_members(const std::string& name = "",
                                                              const std::string& bytes = "") {
    std::vector<std::pair<std::string, std::string>> members;
    for (const char* key : {"W", "b", "t", "lr", "flag", "child/m", "child/lazy", "child/count"}) {
        members.emplace_back(std::string{key} + ".npy", "");
    }
    auto npy_of = [](const char* descr, std::vector<int64_t> shape, int64_t bytes) {
        return npy::format_header(descr, false, shape) + std::string(static_cast<size_t>(bytes), '\0');
    };
    members[0].second = npy_of("<f4", {2, 3}, 24);
    members[1].second = npy_of("<f4", {3}, 12);
    members[2].second = npy_of("<i8", {}, 8);
    members[3].second = npy_of("<f8", {}, 8);
    members[4].second = npy_of("|b1", {}, 1);
    members[5].second = npy_of("<i4", {2, 2}, 16);
    members[6].second = npy::none_member();
    members[7].second = npy_of("<i8", {}, 8);
    for (auto& m : members) {
        if (m.first == name) m.second = bytes;
    }
    return members;
}

}  // namespace

TEST_CASE("npz refuses a file that is not a zip or does not exist", "[serializers][npz]") {
    TempDir dir;
    testing::write_file(dir.path("text.npz"), "this is not a zip archive at all");
    expect_refused<IOError>(dir.path("text.npz"), "text.npz");
    expect_refused<IOError>(dir.path("absent.npz"), "absent.npz");
    auto tiny = make_tiny(1.0);
    CHECK_THROWS_AS(load_npz_from_memory("PK\x03\x04garbage", tiny), IOError);
}

TEST_CASE("npz refuses a truncated file", "[serializers][npz]") {
    TempDir dir;
    auto tiny = make_tiny(1.0);
    save_npz(dir.path("full.npz"), tiny, {.compression = false});
    const std::string bytes = testing::read_file(dir.path("full.npz"));
    for (const size_t keep : {bytes.size() / 2, bytes.size() - 10, size_t{30}}) {
        testing::write_file(dir.path("cut.npz"), bytes.substr(0, keep));
        expect_refused<IOError>(dir.path("cut.npz"), "cut.npz");
    }
}

TEST_CASE("npz refuses a wrong shape after earlier keys passed", "[serializers][npz]") {
    TempDir dir;
    // child/m is visited after W, b, t, ...: none of those may change either.
    zipio::write_zip(dir.path("shape.npz"),
                     tiny_members("child/m.npy", npy::format_header("<i4", false, {4}) + std::string(16, '\0')), true);
    expect_refused<DimensionError>(dir.path("shape.npz"), "'child/m'");
}

TEST_CASE("npz refuses a missing key", "[serializers][npz]") {
    TempDir dir;
    auto members = tiny_members();
    members.pop_back();  // child/count
    zipio::write_zip(dir.path("missing.npz"), members, false);
    expect_refused<KeyError>(dir.path("missing.npz"), "'child/count'");
}

TEST_CASE("npz refuses a dtype that does not cast same_kind", "[serializers][npz]") {
    TempDir dir;
    zipio::write_zip(dir.path("float_t.npz"),
                     tiny_members("t.npy", npy::format_header("<f8", false, {}) + std::string(8, '\0')), false);
    expect_refused<DtypeError>(dir.path("float_t.npz"), "'t'");
    zipio::write_zip(dir.path("i2.npz"),
                     tiny_members("W.npy", npy::format_header("<i2", false, {2, 3}) + std::string(12, '\0')), false);
    expect_refused<DtypeError>(dir.path("i2.npz"), "'W'");
}

TEST_CASE("npz refuses a header claiming 10^15 elements without allocating", "[serializers][npz]") {
    TempDir dir;
    zipio::write_zip(dir.path("huge.npz"),
                     tiny_members("W.npy", npy::format_header("<f8", false, {1000000000, 1000000})), true);
    expect_refused<IOError>(dir.path("huge.npz"), "'W'");
    zipio::write_zip(dir.path("overflow.npz"),
                     tiny_members("W.npy", npy::format_header("<f8", false, {INT64_MAX / 2, 3})), true);
    expect_refused<IOError>(dir.path("overflow.npz"), "overflows");
    zipio::write_zip(dir.path("short.npz"),
                     tiny_members("W.npy", npy::format_header("<f4", false, {2, 3}) + std::string(20, '\0')), false);
    expect_refused<IOError>(dir.path("short.npz"), "'W'");
}

TEST_CASE("npz refuses a zip bomb: a member claiming more than deflate can produce", "[serializers][npz]") {
    TempDir dir;
    zipio::write_zip(dir.path("ok.npz"), tiny_members(), true);
    std::string bytes = testing::read_file(dir.path("ok.npz"));
    // Claim ~4 GB for the first member in both its local and central headers.
    const std::string huge{"\xf0\xff\xff\xff", 4};
    const size_t local = bytes.find("PK\x03\x04"), central = bytes.find("PK\x01\x02");
    REQUIRE(local != std::string::npos);
    REQUIRE(central != std::string::npos);
    bytes.replace(local + 22, 4, huge);
    bytes.replace(central + 24, 4, huge);
    testing::write_file(dir.path("bomb.npz"), bytes);
    expect_refused<IOError>(dir.path("bomb.npz"), "zip bomb");
}

TEST_CASE("npz refuses every pickled member other than None and runs nothing", "[serializers][npz]") {
    TempDir dir;
    const std::string marker = dir.path("pwned");
    const std::string evil = "cos\nsystem\n(S'touch " + marker + "'\ntR.";
    zipio::write_zip(dir.path("evil.npz"), tiny_members("W.npy", npy::format_header("|O", false, {}) + evil), true);
    expect_refused<IOError>(dir.path("evil.npz"), "never unpickles");
    std::string almost{npy::kNonePickle};
    almost[almost.size() - 7] = 'I';
    zipio::write_zip(dir.path("almost.npz"),
                     tiny_members("child/lazy.npy", npy::format_header("|O", false, {}) + almost), true);
    expect_refused<IOError>(dir.path("almost.npz"), "'child/lazy'");
    CHECK_FALSE(std::filesystem::exists(marker));
}

TEST_CASE("npz refuses a malformed header and an unsupported compression", "[serializers][npz]") {
    TempDir dir;
    zipio::write_zip(
        dir.path("dict.npz"),
        tiny_members("b.npy", std::string{"\x93NUMPY\x01\x00\x10\x00{'descr': 3}   \n"} + std::string(12, '\0')),
        false);
    expect_refused<IOError>(dir.path("dict.npz"), "'b'");
    zipio::write_zip(dir.path("ok.npz"), tiny_members(), false);
    std::string bytes = testing::read_file(dir.path("ok.npz"));
    const size_t local = bytes.find("PK\x03\x04"), central = bytes.find("PK\x01\x02");
    bytes[local + 8] = 12;  // bzip2
    bytes[central + 10] = 12;
    testing::write_file(dir.path("bzip.npz"), bytes);
    expect_refused<IOError>(dir.path("bzip.npz"), "'");
}
