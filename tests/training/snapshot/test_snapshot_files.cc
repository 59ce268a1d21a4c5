// The pieces of the snapshot extension that need no trainer: filename templates (Python's
// str.format), finding the snapshots a template made, and the atomic write.
#include <catch2/catch.hpp>

#include "serializers/npz.h"
#include "tests/testing/testing.h"
#include "tests/training/snapshot/snapshot_testing.h"
#include "training/extensions/snapshot.h"

using namespace rensa;
using namespace rensa::training::extensions;
namespace sd = rensa::training::extensions::detail;
using rensa::testing::TempDir;
namespace fs = std::filesystem;

namespace {

std::string fmt(const std::string& tmpl, sd::SnapshotFields fields = {}) {
    return sd::format_snapshot_filename(tmpl, fields);
}

std::string fmt_detail(const std::string& tmpl, double epoch_detail) {
    return fmt(tmpl, {.epoch_detail = epoch_detail});
}

void touch(const fs::path& path, int seconds_ago) {
    std::ofstream{path} << "x";
    fs::last_write_time(path, fs::file_time_type::clock::now() - std::chrono::seconds{seconds_ago});
}

std::vector<std::string> names_of(const std::vector<fs::path>& paths) {
    std::vector<std::string> out;
    for (const auto& p : paths) out.push_back(p.filename().string());
    return out;
}

}  // namespace

TEST_CASE("snapshot filename formats the trainer fields like python", "[training][snapshot]") {
    const sd::SnapshotFields f{.iteration = 1200, .epoch = 3, .epoch_detail = 0.5, .elapsed_time = 3.5};
    CHECK(fmt("snapshot_iter_{.updater.iteration}", f) == "snapshot_iter_1200");
    CHECK(fmt("e{0.updater.epoch}_i{.updater.iteration}.npz", f) == "e3_i1200.npz");
    CHECK(fmt("{.updater.iteration:08d}", f) == "00001200");
    CHECK(fmt("{.updater.epoch_detail:.2f}", f) == "0.50");
    CHECK(fmt("{.elapsed_time:6.1f}", f) == "   3.5");
    CHECK(fmt("{.elapsed_time:e}", f) == "3.500000e+00");
    CHECK(fmt("{.updater.epoch:f}", f) == "3.000000");
    CHECK(fmt("{{literal}}_{.updater.epoch}", f) == "{literal}_3");
    CHECK(fmt("model.npz", f) == "model.npz");
    CHECK(fmt("{.updater.iteration:05d}", {.iteration = -3}) == "-0003");
}

TEST_CASE("snapshot filename writes floats as python repr", "[training][snapshot]") {
    // Expected values: Python's '{.x}'.format(...) of each float.
    CHECK(fmt_detail("{.updater.epoch_detail}", 0.5) == "0.5");
    CHECK(fmt_detail("{.updater.epoch_detail}", 1.0) == "1.0");
    CHECK(fmt_detail("{.updater.epoch_detail}", 1.0 / 3.0) == "0.3333333333333333");
    CHECK(fmt_detail("{.updater.epoch_detail}", 1e-5) == "1e-05");
    CHECK(fmt_detail("{.updater.epoch_detail}", 0.0001) == "0.0001");
    CHECK(fmt_detail("{.updater.epoch_detail}", 2.5e-4) == "0.00025");
    CHECK(fmt_detail("{.updater.epoch_detail}", 123456.0) == "123456.0");
    CHECK(fmt_detail("{.updater.epoch_detail}", 1e16) == "1e+16");
    CHECK(fmt_detail("{.updater.epoch_detail}", 1e15 + 0.5) == "1000000000000000.5");
    CHECK(fmt_detail("{.updater.epoch_detail}", 12345678901234567.0) == "1.2345678901234568e+16");
    CHECK(fmt_detail("{.updater.epoch_detail}", 0.0) == "0.0");
    CHECK(fmt_detail("{.updater.epoch_detail}", -2.0) == "-2.0");
}

TEST_CASE("snapshot filename rejects unknown fields and bad templates", "[training][snapshot]") {
    for (const char* bad : {"{.updater.foo}", "{}", "{0}", "{.updater}", "{.updater.iteration!r}", "snap_{", "snap_}",
                            "{.updater.{x}}", "dir/snap", "", "{.updater.epoch_detail:d}", "{.updater.iteration:.2}",
                            "{.updater.iteration:>5}", "{.updater.iteration:x}"}) {
        INFO(bad);
        CHECK_THROWS_AS(fmt(bad), ValueError);
        CHECK_THROWS_AS(Snapshot({.filename = bad}), ValueError);
    }
    CHECK_THROWS_WITH(fmt("it_{.updater.iters}"),
                      Catch::Contains("{.updater.iters}") && Catch::Contains("{.updater.iteration}"));
    CHECK_THROWS_AS(snapshot_object(std::shared_ptr<testing::Payload>{}, "x"), ValueError);
}

TEST_CASE("snapshot files are found by template oldest first", "[training][snapshot]") {
    TempDir dir{"find"};
    const fs::path d = dir.path();
    // Ordered by the iteration in the name, not by mtime (See Note [Autoload order]).
    touch(d / "snapshot_iter_30", 30);
    touch(d / "snapshot_iter_10", 10);  // a newer file, not newer training
    touch(d / "snapshot_iter_20", 20);
    touch(d / "tmpsnapshot_iter_40abc", 0);        // a partial write
    touch(d / "snapshot_iter_x", 0);               // not an iteration
    touch(d / "other_5", 0);                       // another template
    fs::create_directory(d / "snapshot_iter_50");  // not a file
    CHECK(names_of(sd::find_snapshot_files("snapshot_iter_{.updater.iteration}", d)) ==
          std::vector<std::string>{"snapshot_iter_10", "snapshot_iter_20", "snapshot_iter_30"});
    // Padded, signed and float fields are read as numbers: 9 before 10, 0.5 before 1.25.
    for (const auto& [name, age] : std::vector<std::pair<std::string, int>>{
             {"p_  10", 50}, {"p_   9", 1}, {"p_+100", 2}, {"f_1.25", 9}, {"f_0.5", 1}, {"f_1e+16", 5}}) {
        touch(d / name, age);
    }
    CHECK(names_of(sd::find_snapshot_files("p_{.updater.iteration:4d}", d)) ==
          std::vector<std::string>{"p_   9", "p_  10", "p_+100"});
    CHECK(names_of(sd::find_snapshot_files("f_{.updater.epoch_detail}", d)) ==
          std::vector<std::string>{"f_0.5", "f_1.25", "f_1e+16"});
    // The iteration orders before the epoch whatever their place in the template.
    touch(d / "e2_i8", 1);
    touch(d / "e3_i7", 9);
    CHECK(names_of(sd::find_snapshot_files("e{.updater.epoch}_i{.updater.iteration}", d)) ==
          std::vector<std::string>{"e3_i7", "e2_i8"});
    // Equal mtimes: natural order, 9 before 10.
    const auto t = fs::file_time_type::clock::now() - std::chrono::seconds{5};
    for (const char* name : {"m_10.npz", "m_9.npz", "m_100.npz"}) {
        std::ofstream{d / name} << "x";
        fs::last_write_time(d / name, t);
    }
    CHECK(names_of(sd::find_snapshot_files("m_{.updater.epoch}.npz", d)) ==
          std::vector<std::string>{"m_9.npz", "m_10.npz", "m_100.npz"});
    CHECK(names_of(sd::find_snapshot_files("snapshot_iter_30", d)) == std::vector<std::string>{"snapshot_iter_30"});
    CHECK(sd::find_snapshot_files("snapshot_iter_{.updater.iteration}", d / "absent").empty());
}

TEST_CASE("snapshot write is atomic and loads back", "[training][snapshot]") {
    TempDir dir{"write"};
    const auto saved = testing::make_payload(3, 100, 7.f);
    const SnapshotTarget save = [&](const serializers::Serializer& s) { saved->serialize(s); };
    sd::write_snapshot(save, dir.path() / "sub", "snap_1", true);
    CHECK(dir.names() == std::vector<std::string>{"sub"});
    const fs::path file = dir.path() / "sub" / "snap_1";
    REQUIRE(fs::is_regular_file(file));
    CHECK(names_of({fs::directory_iterator{dir.path() / "sub"}, fs::directory_iterator{}}) ==
          std::vector<std::string>{"snap_1"});  // no temporary left
    auto loaded = testing::make_payload(3, 100, 0.f);
    serializers::load_npz(file.string(), *loaded);
    CHECK(loaded->count == 7);
    CHECK(testing::to_doubles(loaded->arrays[2]) == testing::to_doubles(saved->arrays[2]));
}

TEST_CASE("snapshot write failures leave the previous file and no temporary", "[training][snapshot]") {
    TempDir dir{"write_fail"};
    const auto good = testing::make_payload(4, 64, 1.f);
    sd::write_snapshot([&](const serializers::Serializer& s) { good->serialize(s); }, dir.path(), "snap", false);
    const std::string before = testing::read_file(dir.path() / "snap");
    // A target that throws halfway through its serialize.
    auto bad = testing::make_payload(4, 64, 2.f);
    bad->fail_after = 2;
    CHECK_THROWS_AS(
        sd::write_snapshot([&](const serializers::Serializer& s) { bad->serialize(s); }, dir.path(), "snap", false),
        ValueError);
    CHECK(dir.names() == std::vector<std::string>{"snap"});
    CHECK(testing::read_file(dir.path() / "snap") == before);
    // The final name taken by a folder: the rename fails, the temporary file is removed.
    fs::create_directory(dir.path() / "taken");
    fs::create_directory(dir.path() / "taken" / "inner");
    CHECK_THROWS_AS(
        sd::write_snapshot([&](const serializers::Serializer& s) { good->serialize(s); }, dir.path(), "taken", false),
        IOError);
    CHECK(dir.names() == std::vector<std::string>{"snap", "taken"});
}
