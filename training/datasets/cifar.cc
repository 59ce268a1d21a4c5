#include "training/datasets/cifar.h"

#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "training/datasets/raw_image_dataset.h"

namespace rensa::training::datasets {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kImageBytes = 3 * 32 * 32;
// More records than any file holds (CIFAR-100's train.bin has 50,000, CIFAR-10's batches
// 10,000): a file inflating past them is refused once it does, without reading it all.
constexpr int64_t kMaxRecordsPerFile = 60000;

// One of the two data sets: where its files are and how its records are laid out.
struct CifarLayout {
    const char* op;
    const char* subfolder;
    std::vector<std::string> train_files;
    std::vector<std::string> test_files;
    int64_t label_bytes;   // label bytes before the pixels of each record
    int64_t label_offset;  // which of them is the label used (CIFAR-100: the fine one)
    const char* archive;   // what to extract into the dataset root
};

const CifarLayout& cifar10_layout() {
    static const CifarLayout layout{
        "get_cifar10",
        "cifar-10-batches-bin",
        {"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin", "data_batch_4.bin", "data_batch_5.bin"},
        {"test_batch.bin"},
        1,
        0,
        "cifar-10-binary.tar.gz"};
    return layout;
}

const CifarLayout& cifar100_layout() {
    static const CifarLayout layout{"get_cifar100",           "cifar-100-binary", {"train.bin"}, {"test.bin"}, 2, 1,
                                    "cifar-100-binary.tar.gz"};
    return layout;
}

[[noreturn]] void throw_missing(const CifarLayout& layout, const std::string& folder, const std::string& missing) {
    std::ostringstream os;
    os << layout.op << ": the data set is missing";
    if (!missing.empty()) os << " ('" << missing << "' not found)";
    os << ". Expected ";
    std::vector<std::string> names = layout.train_files;
    names.insert(names.end(), layout.test_files.begin(), layout.test_files.end());
    for (size_t i = 0; i < names.size(); ++i) os << (i ? ", " : "") << names[i];
    os << " in " << folder << ". Nothing is downloaded: extract " << layout.archive
       << " (the binary version from https://www.cs.toronto.edu/~kriz/cifar.html) into a folder and set "
          "RENSA_DATASET_ROOT to it, so that it holds "
       << layout.subfolder << "/";
    RENSA_THROW(IOError, os.str());
}

// Splits the records of `files` into pixels and (when wanted) labels.
void read_records(const CifarLayout& layout, const fs::path& folder, const std::vector<std::string>& files,
                  bool withlabel, std::vector<uint8_t>& pixels, std::vector<uint8_t>& labels) {
    const int64_t record = layout.label_bytes + kImageBytes;
    // One allocation for all files (growing file by file would copy, and peak at twice the size).
    uintmax_t total = 0;
    for (const std::string& name : files) {
        std::error_code ec;
        const uintmax_t bytes = fs::file_size(folder / name, ec);
        if (!ec) total += bytes / static_cast<uintmax_t>(record);
    }
    pixels.reserve(static_cast<size_t>(total) * kImageBytes);
    labels.reserve(withlabel ? static_cast<size_t>(total) : 0);
    for (const std::string& name : files) {
        const fs::path path = folder / name;
        std::error_code ec;
        if (!fs::is_regular_file(path, ec))
            throw_missing(layout, std::string{"'"}.append(folder.string()).append("'"), path.string());
        const std::vector<uint8_t> data = detail::read_file(path, kMaxRecordsPerFile * record);
        const auto bytes = static_cast<int64_t>(data.size());
        RENSA_CHECK(bytes > 0 && bytes % record == 0, IOError, "'", path.string(), "': ", bytes,
                    " bytes is not a whole number of ", record, "-byte records (", layout.label_bytes,
                    " label byte(s) + 3072 pixels); the file is truncated or not a ", layout.subfolder, " file");
        const int64_t n = bytes / record;
        for (int64_t r = 0; r < n; ++r) {
            const uint8_t* rec = data.data() + r * record;
            pixels.insert(pixels.end(), rec + layout.label_bytes, rec + record);
            if (withlabel) labels.push_back(rec[layout.label_offset]);
        }
    }
}

std::pair<DatasetPtr, DatasetPtr> load_cifar(const CifarLayout& layout, const CifarOptions& options) {
    RENSA_CHECK(options.ndim == 1 || options.ndim == 3, ValueError, layout.op, ": invalid ndim ", options.ndim,
                " for the CIFAR dataset (1: (3072,), 3: (3, 32, 32))");
    detail::check_image_dtype(options.dtype, layout.op);
    const auto root = detail::dataset_root();
    if (!root) throw_missing(layout, std::string{"$RENSA_DATASET_ROOT/"} + layout.subfolder + "/ (unset)", "");
    const fs::path folder = *root / layout.subfolder;
    const detail::RawImageOptions raw{.example_shape = options.ndim == 1 ? Shape{kImageBytes} : Shape{3, 32, 32},
                                      .withlabel = options.withlabel,
                                      .scale = options.scale,
                                      .dtype = options.dtype,
                                      .label_dtype = Dtype::kInt32};
    std::pair<DatasetPtr, DatasetPtr> result;
    for (const bool train : {true, false}) {
        std::vector<uint8_t> pixels, labels;
        read_records(layout, folder, train ? layout.train_files : layout.test_files, options.withlabel, pixels, labels);
        (train ? result.first : result.second) =
            std::make_shared<detail::RawImageDataset>(std::move(pixels), std::move(labels), raw);
    }
    return result;
}

}  // namespace

std::pair<DatasetPtr, DatasetPtr> get_cifar10(const CifarOptions& options) {
    return load_cifar(cifar10_layout(), options);
}

std::pair<DatasetPtr, DatasetPtr> get_cifar100(const CifarOptions& options) {
    return load_cifar(cifar100_layout(), options);
}

}  // namespace rensa::training::datasets
