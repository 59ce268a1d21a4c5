#pragma once
// Internal to get_mnist and get_cifar*: a labelled image dataset that keeps the pixels
// as the file's raw uint8 bytes and converts an example to the requested dtype and scale
// when it is read, with the arithmetic Chainer's up-front conversion uses
// (`images.astype(dtype); images *= scale / 255.`), so the values match it bit for bit
// while the training set of MNIST takes 47 MB instead of 188 MB of float32.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/array.h"
#include "training/dataset.h"

namespace rensa::training::datasets::detail {

struct RawImageOptions {
    Shape example_shape;  // of one image, e.g. (784,) or (1, 28, 28)
    bool withlabel = true;
    double scale = 1.0;
    Dtype dtype = Dtype::kFloat32;  // a float dtype (checked by the caller)
    Dtype label_dtype = Dtype::kInt32;
};

class RawImageDataset final : public Dataset {
public:
    // pixels: size * prod(example_shape) bytes; labels: size bytes (unused without labels).
    RawImageDataset(std::vector<uint8_t> pixels, std::vector<uint8_t> labels, RawImageOptions options);
    int64_t size() const override { return size_; }
    // (image, label) or (image,), new arrays on the native device.
    Example get_example(int64_t i) const override;
    // Converts the whole batch into one image block and one label block; the examples are
    // views of their rows.
    std::vector<Example> get_examples(const std::vector<int64_t>& indices) const override;

private:
    std::vector<uint8_t> pixels_;
    std::vector<uint8_t> labels_;
    RawImageOptions options_;
    int64_t size_;
    int64_t image_size_;  // pixels per example
};

// DtypeError naming `op` unless dtype is a float dtype (numpy cannot scale integers in place).
void check_image_dtype(Dtype dtype, const char* op);

// The whole content of `path`, plain or gzip (zlib reads both). IOError naming the file
// when it cannot be opened or read, or holds more than `max_bytes` bytes (found once it
// passes them: a gzip bomb costs max_bytes, not its inflated size).
std::vector<uint8_t> read_file(const std::filesystem::path& path, int64_t max_bytes);

// $RENSA_DATASET_ROOT, or nullopt when it is unset or empty.
std::optional<std::filesystem::path> dataset_root();

}  // namespace rensa::training::datasets::detail
