// Strings in NPZ files: stored as numpy stores a Python str (a 0-d '<U<n>' array of
// UTF-32 code points), read back as UTF-8; numpy interoperability and the errors.
#include <catch2/catch.hpp>

#include "core/error.h"
#include "serializers/npy.h"
#include "serializers/npz.h"
#include "serializers/zip.h"
#include "tests/serializers/npz_testing.h"

using namespace rensa;
using namespace rensa::serializers;
using rensa::testing::TempDir;

namespace {

// "ü日本" and an emoji outside the BMP (4 UTF-8 bytes, one UTF-32 unit).
const std::string kUnicode = "\xc3\xbc\xe6\x97\xa5\xe6\x9c\xac";
const std::string kEmoji = "a\xf0\x9f\x98\x80z";

struct Texts {
    std::string ascii = "hello";
    std::string unicode = kUnicode;
    std::string empty;
    std::string emoji = kEmoji;
    int64_t n = 3;
    void serialize(const Serializer& s) {
        s("ascii", ascii);
        s("unicode", unicode);
        s("empty", empty);
        s["child"]("emoji", emoji);
        s("n", n);
    }
};

Texts other_texts() { return Texts{.ascii = "x", .unicode = "y", .empty = "z", .emoji = "w", .n = 0}; }

void check_texts(const Texts& t) {
    CHECK(t.ascii == "hello");
    CHECK(t.unicode == kUnicode);
    CHECK(t.empty.empty());
    CHECK(t.emoji == kEmoji);
    CHECK(t.n == 3);
}

struct OneString {
    std::string s = "unchanged";
    void serialize(const Serializer& ser) { ser("s", s); }
};

struct OneArray {
    Array a = Array::from_vector<float>({1.f}, {});
    void serialize(const Serializer& ser) { ser("s", a); }
};

// The npy member of a 0-d string with an explicit descr and raw UTF-32 units.
std::string raw_string_member(const std::string& descr, const std::vector<uint32_t>& units, bool big = false) {
    std::string bytes = npy::format_header(descr, false, {});
    for (const uint32_t u : units) {
        for (int k = 0; k < 4; ++k) bytes += static_cast<char>((u >> (8 * (big ? 3 - k : k))) & 0xff);
    }
    return bytes;
}

// Loads a OneString from an archive holding `member` under "s"; expects E naming `needle`.
template <class E>
void expect_string_refused(const TempDir& dir, const std::string& member, const std::string& needle) {
    const std::string path = dir.path("bad.npz");
    zipio::write_zip(path, {{"s.npy", member}}, false);
    OneString t;
    try {
        load_npz(path, t);
        FAIL("load_npz accepted the member");
    } catch (const E& e) {
        INFO(e.what());
        CHECK(std::string{e.what()}.find(needle) != std::string::npos);
        CHECK(std::string{e.what()}.find("bad.npz") != std::string::npos);
    }
    CHECK(t.s == "unchanged");
}

}  // namespace

TEST_CASE("npz strings round trip ascii unicode empty and astral text", "[serializers][npz][strings]") {
    TempDir dir;
    for (const bool compression : {true, false}) {
        INFO("compression " << compression);
        Texts saved;
        save_npz(dir.path("t.npz"), saved, {.compression = compression});
        Texts loaded = other_texts();
        load_npz(dir.path("t.npz"), loaded);
        check_texts(loaded);
    }
}

TEST_CASE("npz string members are what numpy writes for a str", "[serializers][npz][strings]") {
    CHECK(npy::string_member(kUnicode, "k") == raw_string_member("<U3", {0xfc, 0x65e5, 0x672c}));
    CHECK(npy::string_member("", "k") == raw_string_member("<U1", {0}));  // numpy: np.array('') is '<U1'
    CHECK(npy::string_member(kEmoji, "k") == raw_string_member("<U3", {'a', 0x1f600, 'z'}));
}

TEST_CASE("npz string loading defers assignment and honours strict and ignore_names", "[serializers][npz][strings]") {
    TempDir dir;
    Texts saved;
    save_npz(dir.path("t.npz"), saved);
    // A missing key later in the walk: KeyError, and no string was assigned.
    struct Longer : Texts {
        int64_t missing = 0;
        void serialize(const Serializer& s) {
            Texts::serialize(s);
            s("missing", missing);
        }
    } longer;
    static_cast<Texts&>(longer) = other_texts();
    CHECK_THROWS_AS(load_npz(dir.path("t.npz"), longer), KeyError);
    CHECK(longer.ascii == "x");
    CHECK(longer.unicode == "y");
    // strict=false: the absent key is left alone, the strings are loaded.
    load_npz(dir.path("t.npz"), longer, {.strict = false});
    check_texts(longer);
    OneString one;
    load_npz(dir.path("t.npz"), one, {.strict = false});
    CHECK(one.s == "unchanged");
    CHECK_THROWS_AS(load_npz(dir.path("t.npz"), one), KeyError);
    Texts ignored = other_texts();
    load_npz(dir.path("t.npz"), ignored, {.ignore_names = {"ascii"}});
    CHECK(ignored.ascii == "x");
    CHECK(ignored.unicode == kUnicode);
}

TEST_CASE("npz read_string returns the stored text at once", "[serializers][npz][strings]") {
    TempDir dir;
    Texts saved;
    save_npz(dir.path("t.npz"), saved);
    const auto loader = NpzLoader::open_file(dir.path("t.npz"), {});
    const Serializer s{loader};
    CHECK(s.read_string("unicode") == std::optional<std::string>{kUnicode});
    CHECK(s["child"].read_string("emoji") == std::optional<std::string>{kEmoji});
    CHECK_THROWS_AS(s.read_string("nope"), KeyError);
    const auto lenient = NpzLoader::open_file(dir.path("t.npz"), {.strict = false});
    CHECK_FALSE(Serializer{lenient}.read_string("nope").has_value());
    // Saving serializers refuse read_string.
    CHECK_THROWS_AS(Serializer{std::make_shared<NpzSaver>()}.read_string("x"), ValueError);
}

TEST_CASE("npz string loading accepts big-endian and native byte orders", "[serializers][npz][strings]") {
    TempDir dir;
    const std::vector<uint32_t> units = {0xfc, 0x65e5, 0x672c, 0, 0};  // padded with NULs
    for (const auto& [descr, big] :
         std::vector<std::pair<std::string, bool>>{{"<U5", false}, {">U5", true}, {"|U5", false}, {"=U5", false}}) {
        INFO(descr);
        zipio::write_zip(dir.path("b.npz"), {{"s.npy", raw_string_member(descr, units, big)}}, true);
        OneString t;
        load_npz(dir.path("b.npz"), t);
        CHECK(t.s == kUnicode);
    }
}

TEST_CASE("npz string errors name the file and the key", "[serializers][npz][strings]") {
    TempDir dir;
    // A numeric array where a string is expected, and the other way round.
    expect_string_refused<DtypeError>(dir, npy::format_header("<f4", false, {}) + std::string(4, '\0'), "'s'");
    {
        zipio::write_zip(dir.path("n.npz"), {{"s.npy", npy::string_member("abc", "s")}}, false);
        OneArray a;
        CHECK_THROWS_WITH(load_npz(dir.path("n.npz"), a), Catch::Contains("n.npz") && Catch::Contains("string"));
        CHECK(a.a.item<float>() == 1.f);
    }
    // A 1-d string array, and Chainer's None.
    std::string one_d = npy::format_header("<U1", false, {2}) + std::string{"a\0\0\0b\0\0\0", 8};
    expect_string_refused<DtypeError>(dir, one_d, "1 dimensions");
    expect_string_refused<DtypeError>(dir, npy::none_member(), "None");
    // Code points that are surrogates or beyond U+10FFFF.
    expect_string_refused<IOError>(dir, raw_string_member("<U2", {'a', 0xd800}), "code point");
    expect_string_refused<IOError>(dir, raw_string_member("<U1", {0x110000}), "code point");
    // Malformed descrs and a size that does not match the header.
    expect_string_refused<DtypeError>(dir, raw_string_member("<U", {}), "descr");
    expect_string_refused<DtypeError>(dir, raw_string_member("<Ux", {'a'}), "descr");
    expect_string_refused<IOError>(dir, raw_string_member("<U2", {'a'}), "data bytes");
}

TEST_CASE("npz saving rejects invalid utf-8 and backends without strings", "[serializers][npz][strings]") {
    TempDir dir;
    for (const std::string& bad : {std::string{"\xff"}, std::string{"a\xc3"}, std::string{"\xc0\xaf"},
                                   std::string{"\xed\xa0\x80"}, std::string{"\xf4\x90\x80\x80"}}) {
        OneString t{.s = bad};
        CHECK_THROWS_AS(save_npz(dir.path("u.npz"), t), ValueError);
    }
    CHECK_FALSE(std::filesystem::exists(dir.path("u.npz")));

    struct NoStrings : SerializerBackend {
        bool is_loading() const override { return false; }
        void save(const std::string&, const Array&) override {}
        std::optional<Array> load(const std::string&, Dtype, const std::optional<Shape>&) override { return {}; }
        void defer(std::function<void()>) override {}
    };
    OneString t;
    CHECK_THROWS_AS(t.serialize(Serializer{std::make_shared<NoStrings>()}), NotImplementedError);
}

TEST_CASE("npz strings numpy reads ours and we read numpy.savez", "[serializers][npz][strings][numpy]") {
    RENSA_REQUIRE_NUMPY();
    TempDir dir;
    Texts saved;
    save_npz(dir.path("ours.npz"), saved);
    REQUIRE(testing::run_python(dir, R"(
import numpy as np
d = np.load('ours.npz')
assert d['unicode'].dtype == np.dtype('<U3') and d['unicode'].shape == (), d['unicode'].dtype
assert str(d['unicode']) == '\u00fc\u65e5\u672c'
assert str(d['ascii']) == 'hello' and str(d['empty']) == '' and d['empty'].dtype == np.dtype('<U1')
assert str(d['child/emoji']) == 'a\U0001F600z'
assert int(d['n']) == 3
np.savez('theirs.npz', ascii='hello', unicode='\u00fc\u65e5\u672c', empty='', n=3,
         **{'child/emoji': 'a\U0001F600z'})
np.savez_compressed('big.npz', s=np.array('\u00fc\u65e5\u672c', dtype='>U7'))
)") == 0);
    Texts loaded = other_texts();
    load_npz(dir.path("theirs.npz"), loaded);
    check_texts(loaded);
    OneString big;
    load_npz(dir.path("big.npz"), big);
    CHECK(big.s == kUnicode);
}
