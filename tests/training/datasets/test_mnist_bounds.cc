// Memory bounds of reading IDX files (issue 20, item 4): a gzip file that inflates past the
// size its header implies fails as soon as it does, and a header claiming more than the
// file can hold fails before anything is allocated. The bombs run in a child process under
// an address-space cap (tests/testing/memory_limit.h).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "tests/testing/deflate_testing.h"
#include "tests/testing/memory_limit.h"
#include "tests/training/datasets/datasets_testing.h"
#include "training/datasets/mnist.h"

namespace {

using namespace rensa;
using namespace rensa::training::datasets;
using namespace rensa::training::testing;
namespace fs = std::filesystem;

constexpr int64_t kMiB = int64_t{1} << 20;

// Replaces `path` with a gzip file of `prefix` followed by `zero_mib` MiB of zeros.
void write_gzip_bomb(const fs::path& path, const std::vector<uint8_t>& prefix, int64_t zero_mib) {
    const std::string_view bytes{reinterpret_cast<const char*>(prefix.data()), prefix.size()};
    std::ofstream{path, std::ios::binary | std::ios::trunc}
        << rensa::testing::gzip_of(rensa::testing::deflate_with_zeros(bytes, zero_mib));
}

}  // namespace

TEST_CASE("get_mnist stops reading a gzip IDX file once it passes its header's size", "[training][datasets]") {
    const TempDir dir{"mnist-bomb"};
    const fs::path folder = dir.path() / "mnist";
    write_mnist(folder, 2, 1, true);
    // 2 images (16 + 2 * 784 = 1584 bytes), then 3 GiB of zeros, in about 3 MiB.
    const fs::path images = folder / "train-images-idx3-ubyte.gz";
    write_gzip_bomb(images, idx_images(2, 28, 28, std::vector<uint8_t>(2 * 784, 9)), 3 * 1024);
    REQUIRE(fs::file_size(images) < 4 * static_cast<uintmax_t>(kMiB));
    const EnvScope env{"RENSA_DATASET_ROOT", dir.path().string()};
    const auto result = rensa::testing::run_in_child([] {
        rensa::testing::limit_address_space(256 * kMiB);
        (void)get_mnist();
    });
    INFO(result.error << ": " << result.message);
    REQUIRE(result.finished);
    CHECK(result.error == "IOError");
    CHECK_THAT(result.message, Catch::Contains(images.string()) && Catch::Contains("inflates past the 1584 bytes") &&
                                   Catch::Contains("2 images of 28x28"));
    CHECK(result.seconds < 5.0);  // it read 1585 bytes, not 3 GiB
}

TEST_CASE("get_mnist refuses a gzip IDX header claiming more than the file can inflate to", "[training][datasets]") {
    const TempDir dir{"mnist-claim"};
    const fs::path folder = dir.path() / "mnist";
    write_mnist(folder, 2, 1, true);
    const fs::path labels = folder / "train-labels-idx1-ubyte.gz";
    std::vector<uint8_t> claim = idx_labels({1, 2});
    claim[4] = 0x7f;  // 2^31 - ... labels: about 2 GB from a file of a few dozen bytes
    write_bytes(labels, claim, true);
    const EnvScope env{"RENSA_DATASET_ROOT", dir.path().string()};
    const auto result = rensa::testing::run_in_child([] {
        rensa::testing::limit_address_space(256 * kMiB);
        (void)get_mnist();
    });
    INFO(result.error << ": " << result.message);
    REQUIRE(result.finished);
    CHECK(result.error == "IOError");
    CHECK_THAT(result.message, Catch::Contains(labels.string()) && Catch::Contains("labels") &&
                                   Catch::Contains("gzip file can inflate to"));
}
