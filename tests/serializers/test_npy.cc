// The .npy layer alone: header parsing (strict), writing, decoding and the None pickle.
#include <catch2/catch.hpp>
#include <cstring>

#include "core/error.h"
#include "serializers/npy.h"

namespace npy = rensa::serializers::npy;

namespace {

// A v1 member prelude + `dict` padded like numpy.
std::string with_prelude(const std::string& dict, int version = 1) {
    std::string text = dict + "\n";
    std::string out = "\x93NUMPY";
    out += static_cast<char>(version);
    out += '\0';
    const int field = version == 1 ? 2 : 4;
    for (int i = 0; i < field; ++i) out += static_cast<char>((text.size() >> (8 * i)) & 0xff);
    return out + text;
}

npy::Header parse(const std::string& dict, int version = 1) {
    return npy::parse_header(with_prelude(dict, version), "test");
}

}  // namespace

TEST_CASE("npy header parses the dict numpy writes", "[serializers][npy]") {
    const npy::Header h = parse("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
    CHECK(h.descr.kind == 'f');
    CHECK(h.descr.itemsize == 4);
    CHECK(h.descr.byte_order == '<');
    CHECK_FALSE(h.fortran_order);
    CHECK(h.shape == std::vector<int64_t>{2, 3});
    CHECK(h.count == 6);
    CHECK(h.data_bytes() == 24);
}

TEST_CASE("npy header accepts shapes (), (3,) and keys in any order", "[serializers][npy]") {
    CHECK(parse("{'descr': '|b1', 'fortran_order': False, 'shape': (), }").count == 1);
    CHECK(parse("{'shape': (3,), 'fortran_order': True, 'descr': '>i8'}").shape == std::vector<int64_t>{3});
    CHECK(parse("{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": (2L, 0L)}").count == 0);
    CHECK(parse("{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }", 2).count == 4);
    CHECK(parse("{'descr': '<V2', 'fortran_order': False, 'shape': (4,), }", 3).descr.kind == 'V');
}

TEST_CASE("npy header rejects malformed dicts", "[serializers][npy]") {
    const char* bad[] = {
        "{'descr': '<f4', 'fortran_order': False, 'shape': (3), }",               // (3) is not a tuple
        "{'descr': '<f4', 'fortran_order': False, }",                             // missing shape
        "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': ()}",  // duplicate
        "{'descr': '<f4', 'fortran_order': 0, 'shape': ()}",                      // not a bool
        "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}",               // negative
        "{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}",          // unknown key
        "{'descr': '<f4', 'fortran_order': False, 'shape': ()} junk",             // trailing text
        "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296)}",
        "['descr']",
    };
    for (const char* dict : bad) {
        INFO(dict);
        CHECK_THROWS_AS(parse(dict), rensa::IOError);
    }
}

TEST_CASE("npy header rejects descrs rensa has no dtype for", "[serializers][npy]") {
    for (const char* descr : {"<i2", "<u4", "<c8", "<S3", "S1", "<f16", "|O8"}) {
        INFO(descr);
        CHECK_THROWS_AS(parse(std::string{"{'descr': '"} + descr + "', 'fortran_order': False, 'shape': ()}"),
                        rensa::DtypeError);
    }
    CHECK_THROWS_AS(parse("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': ()}"), rensa::IOError);
}

TEST_CASE("npy prelude rejects bad magic, versions and oversized headers", "[serializers][npy]") {
    std::string good = with_prelude("{'descr': '<f4', 'fortran_order': False, 'shape': ()}");
    std::string magic = good;
    magic[1] = 'X';
    CHECK_THROWS_AS(npy::header_length(magic, "t"), rensa::IOError);
    std::string version = good;
    version[6] = 4;
    CHECK_THROWS_AS(npy::header_length(version, "t"), rensa::IOError);
    std::string huge = "\x93NUMPY\x02";
    huge += std::string{"\0\xff\xff\xff\x7f", 5};
    CHECK_THROWS_AS(npy::header_length(huge, "t"), rensa::IOError);
    CHECK_THROWS_AS(npy::parse_header(good.substr(0, good.size() - 5), "t"), rensa::IOError);
}

TEST_CASE("npy headers are written like numpy, 64-byte aligned", "[serializers][npy]") {
    const std::string h = npy::format_header("<f4", false, {2, 3});
    CHECK(h.size() % 64 == 0);
    CHECK(h.back() == '\n');
    CHECK(h.find("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }") == 10);
    CHECK(npy::format_header("|b1", false, {5}).find("'shape': (5,), }") != std::string::npos);
    const npy::Header back = npy::parse_header(npy::format_header("<i8", false, {}), "t");
    CHECK(back.shape.empty());
    CHECK(back.header_bytes == 128);  // 66 bytes round up to the next 64
}

TEST_CASE("npy decode swaps big-endian bytes and reorders Fortran arrays", "[serializers][npy]") {
    npy::Header h = parse("{'descr': '>i4', 'fortran_order': True, 'shape': (2, 3), }");
    // Fortran order: column by column, elements a[i][j] = 10 i + j stored big-endian.
    std::string data;
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 2; ++i) data += std::string{'\0', '\0', '\0', static_cast<char>(10 * i + j)};
    const std::vector<char> out = npy::decode(h, data, "t");
    std::vector<int32_t> values(6);
    std::memcpy(values.data(), out.data(), out.size());
    CHECK(values == std::vector<int32_t>{0, 1, 2, 10, 11, 12});
    CHECK_THROWS_AS(npy::decode(h, data.substr(1), "t"), rensa::IOError);
}

TEST_CASE("npy decode turns any nonzero bool byte into 1", "[serializers][npy]") {
    const npy::Header h = parse("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }");
    const std::vector<char> out = npy::decode(h, std::string{"\x00\x07\x01", 3}, "t");
    CHECK(out == std::vector<char>{0, 1, 1});
}

TEST_CASE("npy recognises exactly the None pickle", "[serializers][npy]") {
    CHECK(npy::is_none_pickle(npy::kNonePickle));
    // numpy never wrote protocol 3 with numpy 2's module name: not one of the known pickles.
    std::string renamed{npy::kNonePickle};
    renamed.replace(3, std::string_view{"numpy.core"}.size(), "numpy._core");
    CHECK_FALSE(npy::is_none_pickle(renamed));
    std::string other{npy::kNonePickle};
    other[other.size() - 7] = 'I';  // the None opcode -> something else
    CHECK_FALSE(npy::is_none_pickle(other));
    CHECK_FALSE(npy::is_none_pickle("cos\nsystem\n(S'true'\ntR."));
    CHECK_FALSE(npy::is_none_pickle(std::string{npy::kNonePickle} + "."));
    const std::string member = npy::none_member();
    CHECK(npy::parse_header(member, "t").descr.kind == 'O');
}
