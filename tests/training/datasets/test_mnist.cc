#include <catch2/catch.hpp>

#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/half.h"
#include "tests/training/datasets/datasets_testing.h"
#include "training/converter.h"
#include "training/datasets/mnist.h"

namespace {

using namespace rensa;
using namespace rensa::training;
using namespace rensa::training::datasets;
using namespace rensa::training::testing;
namespace fs = std::filesystem;

// Expected float32 of a raw pixel, computed as Chainer does (astype, then *= scale / 255.).
float chainer_f32(uint8_t raw, double scale) { return static_cast<float>(raw) * static_cast<float>(scale / 255.0); }

void check_image(const Array& x, int64_t id, double scale) {
    REQUIRE(x.dtype() == Dtype::kFloat32);
    const std::vector<float> got = x.to_vector<float>();
    REQUIRE(got.size() == 784);
    bool same = true;
    for (int64_t p = 0; p < 784; ++p) same = same && got[static_cast<size_t>(p)] == chainer_f32(pixel(id, p), scale);
    CHECK(same);
}

}  // namespace

TEST_CASE("get_mnist reads plain IDX files with the default options", "[training][datasets]") {
    const TempDir dir{"mnist-plain"};
    write_mnist(dir.path() / "mnist", 12, 5, false);
    const EnvScope env{"RENSA_DATASET_ROOT", dir.path().string()};
    const auto [train, test] = get_mnist();
    CHECK(train->size() == 12);
    CHECK(test->size() == 5);
    const Example e = train->get_example(7);
    REQUIRE(e.size() == 2);
    CHECK(e[0].shape() == Shape{784});
    check_image(e[0], 7, 1.0);
    CHECK(e[1].dtype() == Dtype::kInt32);
    CHECK(e[1].ndim() == 0);
    CHECK(e[1].item<int32_t>() == 7);
    const Example t = test->get_example(-1);
    check_image(t[0], 1004, 1.0);
    CHECK(t[1].item<int32_t>() == 4);
    CHECK_THROWS_AS(train->get_example(12), IndexError);
}

TEST_CASE("get_mnist reads gz IDX files and batches match single examples", "[training][datasets]") {
    const TempDir dir{"mnist-gz"};
    write_mnist(dir.path() / "mnist", 9, 3, true);
    const EnvScope env{"RENSA_DATASET_ROOT", dir.path().string()};
    const auto [train, test] = get_mnist({.scale = 2.5});
    REQUIRE(train->size() == 9);
    const std::vector<Example> batch = train->get_examples({8, 0, -2});
    REQUIRE(batch.size() == 3);
    check_image(batch[0][0], 8, 2.5);
    check_image(batch[1][0], 0, 2.5);
    check_image(batch[2][0], 7, 2.5);
    CHECK(batch[2][1].item<int32_t>() == 7);
    const Example stacked = concat_examples(batch);
    CHECK(stacked[0].shape() == Shape{3, 784});
    CHECK(stacked[1].to_vector<int32_t>() == std::vector<int32_t>{8, 0, 7});
    CHECK(stacked[0].to_vector<float>() ==
          concat_examples({train->get_example(8), train->get_example(0), train->get_example(7)})[0].to_vector<float>());
    CHECK_THROWS_AS(train->get_examples({9}), IndexError);
}

TEST_CASE("get_mnist values match numpy bit for bit", "[training][datasets]") {
    // Bit patterns numpy 1.24 gives for `raw.astype(dtype); x *= scale / 255.`
    // with raw = 0, 1, 3, 77, 128, 200, 254, 255.
    const std::vector<uint8_t> raw{0, 1, 3, 77, 128, 200, 254, 255};
    const TempDir dir{"mnist-bits"};
    std::vector<uint8_t> pixels(784, 0);
    std::copy(raw.begin(), raw.end(), pixels.begin());
    fs::create_directories(dir.path() / "mnist");
    write_bytes(dir.path() / "mnist" / "train-images-idx3-ubyte", idx_images(1, 28, 28, pixels), false);
    write_bytes(dir.path() / "mnist" / "train-labels-idx1-ubyte", idx_labels({3}), false);
    write_bytes(dir.path() / "mnist" / "t10k-images-idx3-ubyte", idx_images(1, 28, 28, pixels), false);
    write_bytes(dir.path() / "mnist" / "t10k-labels-idx1-ubyte", idx_labels({4}), false);
    const EnvScope env{"RENSA_DATASET_ROOT", dir.path().string()};
    const auto bits32 = [](const Array& x) {
        std::vector<uint32_t> out;
        for (const float f : x.to_vector<float>()) out.push_back(std::bit_cast<uint32_t>(f));
        return std::vector<uint32_t>(out.begin(), out.begin() + 8);
    };
    CHECK(bits32(get_mnist().first->get_example(0)[0]) == std::vector<uint32_t>{0x0, 0x3b808081, 0x3c40c0c2, 0x3e9a9a9b,
                                                                                0x3f008081, 0x3f48c8ca, 0x3f7eff00,
                                                                                0x3f800000});
    CHECK(
        bits32(get_mnist({.scale = 2.5}).first->get_examples({0})[0][0]) ==
        std::vector<uint32_t>{0x0, 0x3c20a0a1, 0x3cf0f0f2, 0x3f414142, 0x3fa0a0a1, 0x3ffafafc, 0x401f5f60, 0x40200000});
    const Array half = get_mnist({.scale = 2.5, .dtype = Dtype::kFloat16}).first->get_example(0)[0];
    REQUIRE(half.dtype() == Dtype::kFloat16);
    std::vector<uint16_t> half_bits(8);
    std::memcpy(half_bits.data(), half.raw_data(), 16);
    CHECK(half_bits == std::vector<uint16_t>{0x0, 0x2105, 0x2788, 0x3a0a, 0x3d05, 0x3fd8, 0x40fb, 0x4100});
    const Array f64 = get_mnist({.dtype = Dtype::kFloat64}).first->get_example(0)[0];
    std::vector<uint64_t> f64_bits(8);
    std::memcpy(f64_bits.data(), f64.raw_data(), 64);
    CHECK(f64_bits == std::vector<uint64_t>{0x0, 0x3f70101010101010, 0x3f88181818181818, 0x3fd3535353535353,
                                            0x3fe0101010101010, 0x3fe9191919191919, 0x3fefdfdfdfdfdfe0,
                                            0x3ff0000000000000});
}

TEST_CASE("get_mnist options withlabel ndim dtype label_dtype", "[training][datasets]") {
    const TempDir dir{"mnist-options"};
    write_mnist(dir.path() / "mnist", 4, 2, false);
    const EnvScope env{"RENSA_DATASET_ROOT", dir.path().string()};
    const Example plain = get_mnist({.withlabel = false}).first->get_example(1);
    REQUIRE(plain.size() == 1);
    check_image(plain[0], 1, 1.0);
    CHECK(get_mnist({.withlabel = false}).second->get_examples({0, 1})[1].size() == 1);
    CHECK(get_mnist({.ndim = 2}).first->get_example(0)[0].shape() == Shape{28, 28});
    const Example e3 = get_mnist({.ndim = 3}).first->get_examples({2})[0];
    CHECK(e3[0].shape() == Shape{1, 28, 28});
    CHECK(e3[0].to_vector<float>()[29] == chainer_f32(pixel(2, 29), 1.0));
    const Example e64 = get_mnist({.dtype = Dtype::kFloat64, .label_dtype = Dtype::kInt64}).first->get_example(3);
    CHECK(e64[0].dtype() == Dtype::kFloat64);
    CHECK(e64[0].to_vector<double>()[5] == static_cast<double>(pixel(3, 5)) * (1.0 / 255.0));
    CHECK(e64[1].dtype() == Dtype::kInt64);
    CHECK(e64[1].item<int64_t>() == 3);
    const Example flabel = get_mnist({.label_dtype = Dtype::kFloat32}).first->get_examples({3})[0];
    CHECK(flabel[1].dtype() == Dtype::kFloat32);
    CHECK(flabel[1].item<float>() == 3.0f);
    const Array bf16 = get_mnist({.dtype = Dtype::kBFloat16}).first->get_examples({1})[0][0];
    CHECK(bf16.dtype() == Dtype::kBFloat16);
    const std::vector<float> bf16_values = bf16.to_vector<float>();
    for (const int64_t p : {0, 1, 100, 783}) {
        CHECK(bf16_values[static_cast<size_t>(p)] == Approx(chainer_f32(pixel(1, p), 1.0)).epsilon(0.01));
    }
    CHECK_THROWS_AS(get_mnist({.ndim = 4}), ValueError);
    CHECK_THROWS_AS(get_mnist({.ndim = 0}), ValueError);
    CHECK_THROWS_WITH(get_mnist({.dtype = Dtype::kInt32}), Catch::Contains("float dtype") && Catch::Contains("int32"));
}

TEST_CASE("get_fashion_mnist reads RENSA_DATASET_ROOT/fashion-mnist", "[training][datasets]") {
    const TempDir dir{"fashion-root"};
    write_mnist(dir.path() / "fashion-mnist", 3, 2, true);
    const EnvScope env{"RENSA_DATASET_ROOT", dir.path().string()};
    const auto [train, test] = get_fashion_mnist({.ndim = 3});
    CHECK(train->size() == 3);
    CHECK(test->size() == 2);
    CHECK(train->get_example(2)[0].shape() == Shape{1, 28, 28});
    CHECK(fashion_mnist_root() == (dir.path() / "fashion-mnist").string());
    CHECK_THROWS_AS(get_mnist(), IOError);  // mnist/ is a different folder
}

TEST_CASE("get_mnist rejects malformed IDX files naming the file", "[training][datasets]") {
    const TempDir dir{"mnist-bad"};
    const fs::path folder = dir.path() / "mnist";
    const EnvScope env{"RENSA_DATASET_ROOT", dir.path().string()};
    const fs::path images = folder / "train-images-idx3-ubyte";
    const fs::path labels = folder / "train-labels-idx1-ubyte";
    const std::vector<uint8_t> pixels(2 * 784, 9);
    const auto expect_io_error = [&](const fs::path& file, const std::string& what) {
        CHECK_THROWS_AS(get_mnist(), IOError);
        CHECK_THROWS_WITH(get_mnist(), Catch::Contains(file.string()) && Catch::Contains(what));
    };
    write_mnist(folder, 2, 1, false);
    std::vector<uint8_t> bad_magic = idx_images(2, 28, 28, pixels);
    bad_magic[3] = 0x01;
    write_bytes(images, bad_magic, false);
    expect_io_error(images, "magic number");
    write_bytes(images, idx_images(2, 28, 27, std::vector<uint8_t>(2 * 28 * 27, 0)), false);
    expect_io_error(images, "28x27");
    std::vector<uint8_t> truncated = idx_images(2, 28, 28, pixels);
    truncated.resize(truncated.size() - 100);
    write_bytes(images, truncated, false);
    expect_io_error(images, "truncated");
    write_bytes(images, std::vector<uint8_t>{0, 0, 8}, false);
    expect_io_error(images, "truncated");
    std::vector<uint8_t> trailing = idx_images(2, 28, 28, pixels);
    trailing.push_back(1);
    write_bytes(images, trailing, false);
    expect_io_error(images, "trailing");
    write_bytes(images, idx_images(2, 28, 28, pixels), false);
    write_bytes(labels, idx_labels({1, 2, 3}), false);
    expect_io_error(labels, "3 labels");
    std::vector<uint8_t> labels_magic = idx_labels({1, 2});
    labels_magic[3] = 0x03;
    write_bytes(labels, labels_magic, false);
    expect_io_error(labels, "magic number");
    write_bytes(labels, idx_labels({1, 2}), false);
    CHECK(get_mnist().first->size() == 2);  // repaired
}

TEST_CASE("get_mnist rejects a truncated gz file", "[training][datasets]") {
    const TempDir dir{"mnist-badgz"};
    const fs::path folder = dir.path() / "mnist";
    write_mnist(folder, 40, 1, true);
    const fs::path images = folder / "train-images-idx3-ubyte.gz";
    const auto size = fs::file_size(images);
    fs::resize_file(images, size / 2);
    const EnvScope env{"RENSA_DATASET_ROOT", dir.path().string()};
    CHECK_THROWS_AS(get_mnist(), IOError);
    CHECK_THROWS_WITH(get_mnist(), Catch::Contains(images.string()));
}

TEST_CASE("get_mnist on a missing data set says what to put where", "[training][datasets]") {
    const TempDir dir{"mnist-missing"};
    const EnvScope env{"RENSA_DATASET_ROOT", dir.path().string()};
    const auto message = [](auto&& load) {
        try {
            (void)load();
        } catch (const IOError& e) {
            return std::string{e.what()};
        }
        return std::string{"no IOError"};
    };
    const std::string mnist = message([] { return get_mnist(); });
    for (const char* name : {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                             "t10k-labels-idx1-ubyte", "RENSA_DATASET_ROOT"}) {
        CHECK_THAT(mnist, Catch::Contains(name));
    }
    CHECK_THAT(mnist, Catch::Contains((dir.path() / "mnist").string()));
    // A fashion-mnist folder that exists but lacks files: no fallback, and the apt hint.
    fs::create_directories(dir.path() / "fashion-mnist");
    write_bytes(dir.path() / "fashion-mnist" / "train-images-idx3-ubyte", idx_images(0, 28, 28, {}), false);
    const std::string fashion = message([] { return get_fashion_mnist(); });
    CHECK_THAT(fashion, Catch::Contains("t10k-labels-idx1-ubyte"));
    CHECK_THAT(fashion, Catch::Contains((dir.path() / "fashion-mnist").string()));
    CHECK_THAT(fashion, Catch::Contains("apt-get install dataset-fashion-mnist"));
    const EnvScope unset{"RENSA_DATASET_ROOT", std::nullopt};
    CHECK_THAT(message([] { return get_mnist(); }), Catch::Contains("$RENSA_DATASET_ROOT/mnist/ (unset)"));
}

TEST_CASE("get_fashion_mnist finds the Debian package's files", "[training][datasets]") {
    if (!fs::exists("/var/lib/dpkg/info/dataset-fashion-mnist.list")) {
        WARN("dataset-fashion-mnist is not installed (apt-get install dataset-fashion-mnist): test skipped");
        return;
    }
    const TempDir dir{"fashion-debian"};  // an empty root: no fashion-mnist/ folder in it
    const EnvScope env{"RENSA_DATASET_ROOT", dir.path().string()};
    const std::string root = fashion_mnist_root();
    CHECK(fs::exists(fs::path{root} / "train-images-idx3-ubyte.gz"));
    const auto [train, test] = get_fashion_mnist();
    CHECK(train->size() == 60000);
    CHECK(test->size() == 10000);
    const Example e = test->get_example(0);
    CHECK(e[0].shape() == Shape{784});
    CHECK(e[1].item<int32_t>() == 9);  // the first test image of Fashion-MNIST is an ankle boot
    double sum = 0.0, lo = 1.0, hi = 0.0;
    int32_t min_label = 99, max_label = -1;
    std::vector<int64_t> counts(10, 0);
    for (int64_t start = 0; start < train->size(); start += 1000) {
        std::vector<int64_t> indices;
        for (int64_t i = start; i < start + 1000; ++i) indices.push_back(i);
        const Example batch = concat_examples(train->get_examples(indices));
        for (const float v : batch[0].to_vector<float>()) {
            sum += v;
            lo = std::min<double>(lo, v);
            hi = std::max<double>(hi, v);
        }
        for (const int32_t t : batch[1].to_vector<int32_t>()) {
            min_label = std::min(min_label, t);
            max_label = std::max(max_label, t);
            if (t >= 0 && t < 10) ++counts[static_cast<size_t>(t)];
        }
    }
    CHECK(lo == 0.0);
    CHECK(hi == 1.0);
    CHECK(sum / (60000.0 * 784.0) == Approx(0.2860).margin(0.001));  // Fashion-MNIST's known mean pixel
    CHECK(min_label == 0);
    CHECK(max_label == 9);
    CHECK(counts == std::vector<int64_t>(10, 6000));  // 6,000 training images per class
}
