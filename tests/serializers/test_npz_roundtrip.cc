// save_npz / load_npz on rensa's own files: round trips, keys, options, atomic writes.
#include <catch2/catch.hpp>
#include <filesystem>

#include "core/error.h"
#include "serializers/npz.h"
#include "serializers/npz_reader.h"
#include "tests/serializers/npz_testing.h"
#include "tests/testing/testing.h"

using namespace rensa;
using namespace rensa::serializers;
using rensa::testing::make_tiny;
using rensa::testing::snapshot;
using rensa::testing::TempDir;

TEST_CASE("npz round trip restores every value, compressed or stored", "[serializers][npz]") {
    for (const bool compression : {true, false}) {
        TempDir dir;
        auto saved = make_tiny(3.0);
        saved.child.lazy = Array::from_vector<float>({1.5f, 2.5f}, {2});
        save_npz(dir.path("m.npz"), saved, {.compression = compression});
        auto loaded = make_tiny(0.0);
        const Array W_alias = loaded.W;  // loading writes in place: aliases see it
        load_npz(dir.path("m.npz"), loaded);
        CHECK(snapshot(loaded) == snapshot(saved));
        CHECK(testing::to_doubles(W_alias) == testing::to_doubles(saved.W));
        CHECK(loaded.child.lazy.dtype() == Dtype::kFloat32);
    }
}

TEST_CASE("npz keys follow Chainer and scalars are 0-d int64, float64 and bool", "[serializers][npz]") {
    TempDir dir;
    auto tiny = make_tiny(1.0);
    save_npz(dir.path("m.npz"), tiny);
    const NpzReader reader = NpzReader::open_file(dir.path("m.npz"));
    CHECK(reader.keys() ==
          std::vector<std::string>{"W", "b", "child/count", "child/lazy", "child/m", "flag", "lr", "t"});
    CHECK(reader.read("t").header.descr.text == "<i8");
    CHECK(reader.read("t").header.shape.empty());
    CHECK(reader.read("lr").header.descr.text == "<f8");
    CHECK(reader.read("flag").header.descr.text == "|b1");
    CHECK(reader.read("child/lazy").is_none);
    CHECK(reader.read("child/m").header.descr.text == "<i4");
}

TEST_CASE("npz stored None leaves a lazy value undefined and a defined value unchanged", "[serializers][npz]") {
    TempDir dir;
    auto saved = make_tiny(2.0);  // child.lazy undefined: saved as None
    save_npz(dir.path("m.npz"), saved);
    auto loaded = make_tiny(5.0);
    load_npz(dir.path("m.npz"), loaded);
    CHECK_FALSE(loaded.child.lazy.defined());
    CHECK(testing::to_doubles(loaded.W) == testing::to_doubles(saved.W));
}

TEST_CASE("npz load options path, strict and ignore_names", "[serializers][npz]") {
    TempDir dir;
    struct Outer {
        testing::Tiny inner = make_tiny(4.0);
        void serialize(const Serializer& s) { inner.serialize(s["updater"]["model:main"]); }
    } outer;
    save_npz(dir.path("snap.npz"), outer);
    auto loaded = make_tiny(0.0);
    CHECK_THROWS_AS(load_npz(dir.path("snap.npz"), loaded), KeyError);
    load_npz(dir.path("snap.npz"), loaded, {.path = "updater/model:main/"});
    CHECK(snapshot(loaded) == snapshot(outer.inner));

    struct Bigger {
        testing::Tiny tiny = make_tiny(0.0);
        Array extra = Array::from_vector<double>({9.0}, {1});
        void serialize(const Serializer& s) {
            tiny.serialize(s);
            s("extra", extra);
        }
    } bigger;
    auto only = make_tiny(6.0);
    save_npz(dir.path("tiny.npz"), only);
    CHECK_THROWS_AS(load_npz(dir.path("tiny.npz"), bigger), KeyError);
    load_npz(dir.path("tiny.npz"), bigger, {.strict = false});
    CHECK(testing::to_doubles(bigger.extra) == std::vector<double>{9.0});
    CHECK(snapshot(bigger.tiny) == snapshot(only));

    auto ignoring = make_tiny(0.0);
    load_npz(dir.path("tiny.npz"), ignoring, {.ignore_names = {"W", "child/count"}});
    CHECK(testing::to_doubles(ignoring.W) == testing::to_doubles(make_tiny(0.0).W));
    CHECK(ignoring.child.count == 0);
    CHECK(ignoring.t == only.t);
}

TEST_CASE("npz loading casts same_kind into the target dtype", "[serializers][npz]") {
    CHECK(can_cast_same_kind(Dtype::kInt64, Dtype::kFloat16));
    CHECK(can_cast_same_kind(Dtype::kUInt8, Dtype::kInt8));
    CHECK(can_cast_same_kind(Dtype::kBool, Dtype::kUInt8));
    CHECK(can_cast_same_kind(Dtype::kFloat64, Dtype::kBFloat16));
    CHECK_FALSE(can_cast_same_kind(Dtype::kInt8, Dtype::kUInt8));
    CHECK_FALSE(can_cast_same_kind(Dtype::kFloat32, Dtype::kInt64));
    CHECK_FALSE(can_cast_same_kind(Dtype::kInt32, Dtype::kBool));

    TempDir dir;
    struct One {
        Array a;
        void serialize(const Serializer& s) { s("a", a); }
    };
    One f64{Array::from_vector<double>({1.25, -2.5}, {2})};
    save_npz(dir.path("a.npz"), f64);
    One f16{Array::from_vector<float>({0.f, 0.f}, {2}).astype(Dtype::kFloat16)};
    load_npz(dir.path("a.npz"), f16);
    CHECK(f16.a.dtype() == Dtype::kFloat16);
    CHECK(testing::to_doubles(f16.a) == std::vector<double>{1.25, -2.5});
    One i32{Array::from_vector<int32_t>({0, 0}, {2})};
    CHECK_THROWS_AS(load_npz(dir.path("a.npz"), i32), DtypeError);
}

TEST_CASE("npz bfloat16 round trips through descr V2", "[serializers][npz]") {
    TempDir dir;
    struct One {
        Array a;
        void serialize(const Serializer& s) { s("a", a); }
    };
    One saved{Array::from_vector<float>({1.0f, -0.5f, 3.0f}, {3}).astype(Dtype::kBFloat16)};
    save_npz(dir.path("bf.npz"), saved);
    One loaded{Array::from_vector<float>({0.f, 0.f, 0.f}, {3}).astype(Dtype::kBFloat16)};
    load_npz(dir.path("bf.npz"), loaded);
    CHECK(testing::to_doubles(loaded.a) == std::vector<double>{1.0, -0.5, 3.0});
}

TEST_CASE("npz save is atomic: a failed save leaves no file and keeps the old one", "[serializers][npz]") {
    TempDir dir;
    auto tiny = make_tiny(1.0);
    CHECK_THROWS_AS(save_npz(dir.path("missing/m.npz"), tiny), IOError);
    CHECK_FALSE(std::filesystem::exists(dir.path("missing")));

    save_npz(dir.path("m.npz"), tiny);
    struct Bad {
        Array undefined;
        void serialize(const Serializer& s) { s("x", undefined); }
    } bad;
    CHECK_THROWS_AS(save_npz(dir.path("m.npz"), bad), ValueError);
    auto loaded = make_tiny(0.0);
    load_npz(dir.path("m.npz"), loaded);
    CHECK(snapshot(loaded) == snapshot(tiny));
    int files = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path(""))) ++files;
    CHECK(files == 1);  // no temporary left behind
}

TEST_CASE("npz of an object with nothing to save is an empty zip", "[serializers][npz]") {
    TempDir dir;
    struct Empty {
        void serialize(const Serializer&) {}
    } empty;
    save_npz(dir.path("e.npz"), empty);
    CHECK(NpzReader::open_file(dir.path("e.npz")).keys().empty());
    load_npz(dir.path("e.npz"), empty);
}
