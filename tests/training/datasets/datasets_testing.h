#pragma once
// Helpers of the dataset tests: the shared temporary folder, an environment-variable scope and
// writers of synthetic IDX and CIFAR files.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/array.h"
#include "tests/training/training_testing.h"
#include "training/dataset.h"

namespace rensa::training::testing {

// The shared temporary folder (pid + name), removed with everything in it.
using rensa::testing::TempDir;

// Sets (or with nullopt unsets) an environment variable, restoring the old value at the end.
class EnvScope {
public:
    EnvScope(std::string name, const std::optional<std::string>& value);
    ~EnvScope();
    EnvScope(const EnvScope&) = delete;
    EnvScope& operator=(const EnvScope&) = delete;

private:
    std::string name_;
    std::optional<std::string> old_;
};

// Writes bytes to `path`, gzip-compressed (zlib's gzopen) when gzip is true.
void write_bytes(const std::filesystem::path& path, const std::vector<uint8_t>& bytes, bool gzip);

// An IDX image file body: magic 0x00000803, n, rows, cols (big-endian), then the pixels.
std::vector<uint8_t> idx_images(uint32_t n, uint32_t rows, uint32_t cols, const std::vector<uint8_t>& pixels);
// An IDX label file body: magic 0x00000801, n, then the labels.
std::vector<uint8_t> idx_labels(const std::vector<uint8_t>& labels);

// Deterministic pixels of image k (784 bytes): (k * 31 + p * 7) mod 256.
uint8_t pixel(int64_t k, int64_t p);

// Writes the four MNIST files for n_train / n_test images (labels k mod 10) into `folder`.
void write_mnist(const std::filesystem::path& folder, int64_t n_train, int64_t n_test, bool gzip);

// Element values of an array as float64, row-major.
std::vector<double> values_of(const Array& a);

// An example (a[i], b[i], ...) of int32 scalars, for dataset tests.
Example int_example(const std::vector<int32_t>& values);

}  // namespace rensa::training::testing
