#include <catch2/catch.hpp>

#include <filesystem>

#include "core/error.h"
#include "tests/training/datasets/datasets_testing.h"
#include "training/converter.h"
#include "training/datasets/cifar.h"

namespace {

using namespace rensa;
using namespace rensa::training;
using namespace rensa::training::datasets;
using namespace rensa::training::testing;
namespace fs = std::filesystem;

uint8_t cifar_pixel(int64_t id, int64_t p) { return static_cast<uint8_t>((id * 13 + p * 5 + p / 1024) % 256); }

// Records of images first..first+n-1: CIFAR-10 (label_bytes 1: label id % 10) or CIFAR-100
// (label_bytes 2: coarse id % 20, fine id % 100), then 3072 pixels.
std::vector<uint8_t> records(int64_t first, int64_t n, int label_bytes) {
    std::vector<uint8_t> out;
    for (int64_t id = first; id < first + n; ++id) {
        if (label_bytes == 2) out.push_back(static_cast<uint8_t>(id % 20));          // coarse
        out.push_back(static_cast<uint8_t>(label_bytes == 2 ? id % 100 : id % 10));  // CIFAR-10 label / fine
        for (int64_t p = 0; p < 3072; ++p) out.push_back(cifar_pixel(id, p));
    }
    return out;
}

// CIFAR-10: 5 train batches of 2 records (ids 0..9), a test batch of 3 (ids 100..102).
void write_cifar10(const fs::path& root) {
    const fs::path folder = root / "cifar-10-batches-bin";
    fs::create_directories(folder);
    for (int b = 1; b <= 5; ++b) {
        write_bytes(folder / ("data_batch_" + std::to_string(b) + ".bin"), records((b - 1) * 2, 2, 1), false);
    }
    write_bytes(folder / "test_batch.bin", records(100, 3, 1), false);
}

float expected(int64_t id, int64_t p, double scale) {
    return static_cast<float>(cifar_pixel(id, p)) * static_cast<float>(scale / 255.0);
}

}  // namespace

TEST_CASE("get_cifar10 reads the binary batches", "[training][datasets]") {
    const TempDir dir{"cifar10"};
    write_cifar10(dir.path());
    const EnvScope env{"RENSA_DATASET_ROOT", dir.path().string()};
    const auto [train, test] = get_cifar10();
    CHECK(train->size() == 10);
    CHECK(test->size() == 3);
    const Example e = train->get_example(7);
    REQUIRE(e.size() == 2);
    CHECK(e[0].shape() == Shape{3, 32, 32});
    CHECK(e[1].dtype() == Dtype::kInt32);
    CHECK(e[1].item<int32_t>() == 7);
    const std::vector<float> x = e[0].to_vector<float>();
    bool same = true;
    for (int64_t p = 0; p < 3072; ++p) same = same && x[static_cast<size_t>(p)] == expected(7, p, 1.0);
    CHECK(same);
    // Channel-major: element (c, h, w) is pixel c * 1024 + h * 32 + w of the record.
    CHECK(e[0].index({int64_t{2}, int64_t{3}, int64_t{4}}).item<float>() == expected(7, 2 * 1024 + 3 * 32 + 4, 1.0));
    const Example t = test->get_examples({2})[0];
    CHECK(t[1].item<int32_t>() == 102 % 10);
    CHECK(t[0].to_vector<float>()[3071] == expected(102, 3071, 1.0));
}

TEST_CASE("get_cifar10 options withlabel ndim scale dtype", "[training][datasets]") {
    const TempDir dir{"cifar10-options"};
    write_cifar10(dir.path());
    const EnvScope env{"RENSA_DATASET_ROOT", dir.path().string()};
    const Example flat = get_cifar10({.withlabel = false, .ndim = 1, .scale = 3.0}).first->get_example(4);
    REQUIRE(flat.size() == 1);
    CHECK(flat[0].shape() == Shape{3072});
    CHECK(flat[0].to_vector<float>()[1500] == expected(4, 1500, 3.0));
    const Example f64 = get_cifar10({.dtype = Dtype::kFloat64}).second->get_example(0);
    CHECK(f64[0].dtype() == Dtype::kFloat64);
    CHECK(f64[0].to_vector<double>()[10] == static_cast<double>(cifar_pixel(100, 10)) * (1.0 / 255.0));
    const Example batch = concat_examples(get_cifar10({.ndim = 1}).first->get_examples({9, 0}));
    CHECK(batch[0].shape() == Shape{2, 3072});
    CHECK(batch[1].to_vector<int32_t>() == std::vector<int32_t>{9, 0});
    CHECK_THROWS_AS(get_cifar10({.ndim = 2}), ValueError);
    CHECK_THROWS_AS(get_cifar10({.dtype = Dtype::kUInt8}), DtypeError);
}

TEST_CASE("get_cifar100 uses the fine label", "[training][datasets]") {
    const TempDir dir{"cifar100"};
    const fs::path folder = dir.path() / "cifar-100-binary";
    fs::create_directories(folder);
    write_bytes(folder / "train.bin", records(30, 4, 2), false);
    write_bytes(folder / "test.bin", records(250, 2, 2), false);
    const EnvScope env{"RENSA_DATASET_ROOT", dir.path().string()};
    const auto [train, test] = get_cifar100();
    CHECK(train->size() == 4);
    CHECK(test->size() == 2);
    const Example e = train->get_example(3);
    CHECK(e[1].item<int32_t>() == 33);  // fine label 33, coarse 13
    CHECK(e[0].to_vector<float>()[0] == expected(33, 0, 1.0));
    CHECK(test->get_example(1)[1].item<int32_t>() == 51);
    CHECK(test->get_example(1)[0].to_vector<float>()[3071] == expected(251, 3071, 1.0));
}

TEST_CASE("get_cifar rejects truncated files and names missing ones", "[training][datasets]") {
    const TempDir dir{"cifar-bad"};
    const EnvScope env{"RENSA_DATASET_ROOT", dir.path().string()};
    try {
        (void)get_cifar10();
        FAIL("no IOError");
    } catch (const IOError& e) {
        const std::string message = e.what();
        CHECK_THAT(message, Catch::Contains("data_batch_1.bin") && Catch::Contains("test_batch.bin"));
        CHECK_THAT(message, Catch::Contains((dir.path() / "cifar-10-batches-bin").string()));
        CHECK_THAT(message, Catch::Contains("RENSA_DATASET_ROOT"));
    }
    CHECK_THROWS_WITH(get_cifar100(), Catch::Contains("train.bin") && Catch::Contains("cifar-100-binary"));
    write_cifar10(dir.path());
    const fs::path batch3 = dir.path() / "cifar-10-batches-bin" / "data_batch_3.bin";
    std::vector<uint8_t> cut = records(4, 2, 1);
    cut.pop_back();
    write_bytes(batch3, cut, false);
    CHECK_THROWS_AS(get_cifar10(), IOError);
    CHECK_THROWS_WITH(get_cifar10(), Catch::Contains(batch3.string()) && Catch::Contains("truncated"));
    fs::remove(batch3);
    CHECK_THROWS_WITH(get_cifar10(), Catch::Contains("'" + batch3.string() + "' not found"));
    const EnvScope unset{"RENSA_DATASET_ROOT", std::nullopt};
    CHECK_THROWS_WITH(get_cifar10(), Catch::Contains("unset"));
}
