#include "training/datasets/raw_image_dataset.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <type_traits>

#include "core/error.h"
#include "core/half.h"
#include "training/datasets/detail.h"
#include "training/datasets/gzip_file.h"

namespace rensa::training::datasets::detail {
namespace {

// dst[i] = dtype(src[i]) * dtype(scale / 255.): numpy's `images.astype(dtype); images *= scale / 255.`,
// where the Python float is cast to the array's dtype and the product rounded once to it.
// __restrict: uint8_t may alias anything, and without it the loop does not vectorise.
template <class T>
void convert_pixels_as(const uint8_t* __restrict src, int64_t count, double scale, void* dst) {
    T* __restrict out = static_cast<T*>(dst);
    const T factor = T(scale / 255.0);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        for (int64_t i = 0; i < count; ++i) out[i] = static_cast<T>(src[i]) * factor;
    } else {  // float16 / bfloat16: numpy multiplies in float32 and rounds back
        const float f = static_cast<float>(factor);
        for (int64_t i = 0; i < count; ++i) out[i] = T(static_cast<float>(T(static_cast<float>(src[i]))) * f);
    }
}

void convert_pixels(const uint8_t* src, int64_t count, Dtype dtype, double scale, void* dst) {
    switch (dtype) {
        case Dtype::kFloat32:
            return convert_pixels_as<float>(src, count, scale, dst);
        case Dtype::kFloat64:
            return convert_pixels_as<double>(src, count, scale, dst);
        case Dtype::kFloat16:
            return convert_pixels_as<Half>(src, count, scale, dst);
        case Dtype::kBFloat16:
            return convert_pixels_as<BFloat16>(src, count, scale, dst);
        case Dtype::kBool:
        case Dtype::kInt8:
        case Dtype::kUInt8:
        case Dtype::kInt32:
        case Dtype::kInt64:
            RENSA_ASSERT(false && "image dtypes are checked when the dataset is made");
    }
}

// Element `i` of a label array of `dtype` set to `label` (numpy's astype from uint8).
void store_label(uint8_t label, Dtype dtype, void* dst, int64_t i) {
    switch (dtype) {
        case Dtype::kBool:
            static_cast<bool*>(dst)[i] = label != 0;
            return;
        case Dtype::kInt8:
            static_cast<int8_t*>(dst)[i] = static_cast<int8_t>(label);
            return;
        case Dtype::kUInt8:
            static_cast<uint8_t*>(dst)[i] = label;
            return;
        case Dtype::kInt32:
            static_cast<int32_t*>(dst)[i] = label;
            return;
        case Dtype::kInt64:
            static_cast<int64_t*>(dst)[i] = label;
            return;
        case Dtype::kFloat16:
            static_cast<Half*>(dst)[i] = Half(static_cast<float>(label));
            return;
        case Dtype::kBFloat16:
            static_cast<BFloat16*>(dst)[i] = BFloat16(static_cast<float>(label));
            return;
        case Dtype::kFloat32:
            static_cast<float*>(dst)[i] = label;
            return;
        case Dtype::kFloat64:
            static_cast<double*>(dst)[i] = label;
            return;
    }
}

}  // namespace

RawImageDataset::RawImageDataset(std::vector<uint8_t> pixels, std::vector<uint8_t> labels, RawImageOptions options)
    : pixels_{std::move(pixels)}, labels_{std::move(labels)}, options_{std::move(options)} {
    image_size_ = shape_size(options_.example_shape);
    RENSA_ASSERT(image_size_ > 0 && static_cast<int64_t>(pixels_.size()) % image_size_ == 0);
    size_ = static_cast<int64_t>(pixels_.size()) / image_size_;
    RENSA_ASSERT(!options_.withlabel || static_cast<int64_t>(labels_.size()) == size_);
    if (!options_.withlabel) labels_ = {};
}

Example RawImageDataset::get_example(int64_t i) const {
    const int64_t index = normalize_index(i, size_, "get_example");
    const Array image = Array::empty(options_.example_shape, options_.dtype, Device::native());
    convert_pixels(pixels_.data() + index * image_size_, image_size_, options_.dtype, options_.scale, image.raw_data());
    if (!options_.withlabel) return Example{.values = {image}, .keys = {}};
    const Array label = Array::empty({}, options_.label_dtype, Device::native());
    store_label(labels_[static_cast<size_t>(index)], options_.label_dtype, label.raw_data(), 0);
    return Example{.values = {image, label}, .keys = {}};
}

std::vector<Example> RawImageDataset::get_examples(const std::vector<int64_t>& indices) const {
    const auto batch = static_cast<int64_t>(indices.size());
    Shape block_shape{batch};
    for (const int64_t d : options_.example_shape) block_shape.push_back(d);
    const Array images = Array::empty(block_shape, options_.dtype, Device::native());
    const Array labels = options_.withlabel ? Array::empty({batch}, options_.label_dtype, Device::native()) : Array{};
    const int64_t row_bytes = image_size_ * rensa::itemsize(options_.dtype);
    std::vector<Example> examples(indices.size());
    for (int64_t k = 0; k < batch; ++k) {
        const int64_t index = normalize_index(indices[static_cast<size_t>(k)], size_, "get_examples");
        convert_pixels(pixels_.data() + index * image_size_, image_size_, options_.dtype, options_.scale,
                       static_cast<char*>(images.raw_data()) + k * row_bytes);
        Example& example = examples[static_cast<size_t>(k)];
        example.values.push_back(row_view(images, k));
        if (!options_.withlabel) continue;
        store_label(labels_[static_cast<size_t>(index)], options_.label_dtype, labels.raw_data(), k);
        example.values.push_back(row_view(labels, k));
    }
    return examples;
}

void check_image_dtype(Dtype dtype, const char* op) {
    RENSA_CHECK(is_float(dtype), DtypeError, op, ": dtype must be a float dtype (float16, bfloat16, float32 or ",
                "float64), got ", dtype);
}

namespace {

// The uncompressed size the gzip trailer claims (ISIZE, modulo 2^32), else the file's size.
// Only a capacity hint (one allocation instead of doubling, which would double the peak memory).
int64_t size_hint(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    unsigned char head[2] = {0, 0};
    in.read(reinterpret_cast<char*>(head), 2);
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(path, ec);
    if (ec) return 0;
    if (!(head[0] == 0x1f && head[1] == 0x8b) || bytes < 18) return static_cast<int64_t>(bytes);
    unsigned char tail[4] = {0, 0, 0, 0};
    in.seekg(-4, std::ios::end);
    in.read(reinterpret_cast<char*>(tail), 4);
    return static_cast<int64_t>(tail[0]) | static_cast<int64_t>(tail[1]) << 8 | static_cast<int64_t>(tail[2]) << 16 |
           static_cast<int64_t>(tail[3]) << 24;
}

}  // namespace

std::vector<uint8_t> read_file(const std::filesystem::path& path, int64_t max_bytes) {
    GzipFile file{path};
    std::vector<uint8_t> data;
    // Filled through a buffer (insert, not resize ahead), so a correct hint means one allocation.
    data.reserve(static_cast<size_t>(std::min({size_hint(path), file.max_bytes(), max_bytes})));
    std::vector<uint8_t> buffer(size_t{1} << 20);
    for (;;) {
        const int64_t want =
            std::min(static_cast<int64_t>(buffer.size()), max_bytes + 1 - static_cast<int64_t>(data.size()));
        const int64_t got = file.read(buffer.data(), want);
        RENSA_CHECK(static_cast<int64_t>(data.size()) + got <= max_bytes, IOError, "'", file.name(),
                    "': holds more than ", max_bytes, " bytes", file.compressed() ? " once inflated" : "",
                    "; it is not a file of this data set (a corrupt file or a gzip bomb?)");
        data.insert(data.end(), buffer.begin(), buffer.begin() + got);
        if (got < want) break;
    }
    return data;
}

std::optional<std::filesystem::path> dataset_root() {
    const char* root = std::getenv("RENSA_DATASET_ROOT");
    if (root == nullptr || *root == '\0') return std::nullopt;
    return std::filesystem::path{root};
}

}  // namespace rensa::training::datasets::detail
