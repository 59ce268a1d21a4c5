#include "training/datasets/mnist.h"

#include <array>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "training/datasets/gzip_file.h"
#include "training/datasets/raw_image_dataset.h"

namespace rensa::training::datasets {
namespace {

namespace fs = std::filesystem;
using detail::GzipFile;
using detail::kMaxDeflateRatio;

constexpr std::array<const char*, 4> kFileNames = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                                                   "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"};
constexpr uint32_t kImagesMagic = 0x00000803;  // unsigned bytes, 3 dimensions
constexpr uint32_t kLabelsMagic = 0x00000801;  // unsigned bytes, 1 dimension
constexpr int64_t kRows = 28;
constexpr int64_t kCols = 28;

// The Debian package's file list: where `apt-get install dataset-fashion-mnist` put the files.
constexpr std::array<const char*, 2> kFashionMnistPackageLists = {"/var/lib/dpkg/info/dataset-fashion-mnist.list",
                                                                  "/var/lib/dpkg/info/dataset-fashion-mnist:all.list"};

uint32_t read_be32(const std::vector<uint8_t>& data, size_t at) {
    return static_cast<uint32_t>(data[at]) << 24 | static_cast<uint32_t>(data[at + 1]) << 16 |
           static_cast<uint32_t>(data[at + 2]) << 8 | static_cast<uint32_t>(data[at + 3]);
}

// The folder holding the package's train-images-idx3-ubyte(.gz), from its file list; empty when absent.
fs::path debian_fashion_mnist_folder() {
    for (const char* list : kFashionMnistPackageLists) {
        std::ifstream in(list);
        for (std::string line; std::getline(in, line);) {
            const fs::path path{line};
            const std::string name = path.filename().string();
            if (name == "train-images-idx3-ubyte.gz" || name == "train-images-idx3-ubyte") return path.parent_path();
        }
    }
    return {};
}

// The file `name` or `name.gz` in `folder`; empty when neither exists.
fs::path find_idx_file(const fs::path& folder, const std::string& name) {
    for (const fs::path& candidate : {folder / name, folder / (name + ".gz")}) {
        std::error_code ec;
        if (fs::is_regular_file(candidate, ec)) return candidate;
    }
    return {};
}

[[noreturn]] void throw_missing(const std::string& op, const std::vector<fs::path>& searched, bool fashion) {
    std::ostringstream os;
    os << op << ": the data set is missing. Expected the four IDX files ";
    for (size_t i = 0; i < kFileNames.size(); ++i) os << (i ? ", " : "") << kFileNames[i];
    os << " (each plain or .gz) in ";
    if (searched.empty()) os << "$RENSA_DATASET_ROOT/" << (fashion ? "fashion-mnist" : "mnist") << "/ (unset)";
    for (size_t i = 0; i < searched.size(); ++i) os << (i ? " or " : "") << "'" << searched[i].string() << "'";
    os << ". Nothing is downloaded: set RENSA_DATASET_ROOT to a folder whose " << (fashion ? "fashion-mnist" : "mnist")
       << "/ subfolder holds them";
    if (fashion) os << ", or run `apt-get install dataset-fashion-mnist`";
    RENSA_THROW(IOError, os.str());
}

// The folders to look in, in order: $RENSA_DATASET_ROOT/<subfolder>, then for Fashion-MNIST
// (only when that folder is absent) the Debian package's folder.
std::vector<fs::path> candidate_folders(const char* subfolder, bool fashion) {
    std::vector<fs::path> folders;
    bool root_folder_exists = false;
    if (const auto root = detail::dataset_root()) {
        folders.push_back(*root / subfolder);
        std::error_code ec;
        root_folder_exists = fs::is_directory(folders.back(), ec);
    }
    if (fashion && !root_folder_exists) {
        if (fs::path debian = debian_fashion_mnist_folder(); !debian.empty()) folders.push_back(debian);
    }
    return folders;
}

// The four files (by kFileNames order) from the first folder that has them all... or IOError.
std::array<fs::path, 4> locate_files(const std::string& op, const char* subfolder, bool fashion) {
    const std::vector<fs::path> folders = candidate_folders(subfolder, fashion);
    for (const fs::path& folder : folders) {
        std::error_code ec;
        if (!fs::is_directory(folder, ec)) continue;
        std::array<fs::path, 4> files;
        bool complete = true;
        for (size_t i = 0; i < kFileNames.size(); ++i) {
            files[i] = find_idx_file(folder, kFileNames[i]);
            complete = complete && !files[i].empty();
        }
        if (complete) return files;
    }
    throw_missing(op, folders, fashion);
}

// One kind of IDX file of unsigned bytes: the magic number 0x0000080<1 + item dims>, then
// the item count and the item dims as big-endian 32-bit sizes, then the items.
struct IdxFormat {
    uint32_t magic;
    const char* magic_text;  // the magic number and what it means, for the error message
    const char* item;        // "image", "label"
    const char* items;       // "images", "labels"
    std::vector<int64_t> item_dims;
};

const IdxFormat kImagesFormat{
    kImagesMagic, "0x00000803 (IDX unsigned-byte images of 3 dimensions)", "image", "images", {kRows, kCols}};
const IdxFormat kLabelsFormat{
    kLabelsMagic, "0x00000801 (IDX unsigned-byte labels of 1 dimension)", "label", "labels", {}};

// "28x28" (empty for no dims).
std::string dims_text(const std::vector<int64_t>& dims) {
    std::ostringstream os;
    for (size_t d = 0; d < dims.size(); ++d) os << (d ? "x" : "") << dims[d];
    return os.str();
}

// "2 images of 28x28", "3 labels".
std::string items_text(int64_t count, const IdxFormat& format) {
    const std::string dims = dims_text(format.item_dims);
    std::ostringstream os;
    os << count << " " << format.items << (dims.empty() ? "" : " of ") << dims;
    return os.str();
}

// The header of an IDX file: checks the magic and the item dims, returns the item count.
int64_t read_idx_header(GzipFile& file, const IdxFormat& format) {
    const size_t header = 8 + 4 * format.item_dims.size();
    std::vector<uint8_t> bytes(header);
    const int64_t got = file.read(bytes.data(), static_cast<int64_t>(header));
    RENSA_CHECK(got == static_cast<int64_t>(header), IOError, "'", file.name(), "': ", got,
                " bytes is too short for an IDX ", format.item, " header (", header, " bytes); the file is truncated");
    const uint32_t magic = read_be32(bytes, 0);
    RENSA_CHECK(magic == format.magic, IOError, "'", file.name(), "': magic number 0x", std::hex, magic, " is not ",
                format.magic_text);
    std::vector<int64_t> dims(format.item_dims.size());
    for (size_t d = 0; d < dims.size(); ++d) dims[d] = read_be32(bytes, 8 + 4 * d);
    RENSA_CHECK(dims == format.item_dims, IOError, "'", file.name(), "': ", format.items, " are ", dims_text(dims),
                ", expected ", dims_text(format.item_dims));
    return read_be32(bytes, 4);
}

// The items of an IDX file (header stripped); count is the header's item count. The header
// is checked before anything is allocated (a plain file must have exactly the size it
// implies, a gzip file must be able to inflate to it), and reading stops one byte past that
// size, so a file costs what its header implies however far it inflates. IOError naming the
// file when it does not match `format`.
std::vector<uint8_t> read_idx(const fs::path& path, const IdxFormat& format, int64_t& count) {
    GzipFile file{path};
    count = read_idx_header(file, format);
    int64_t item_size = 1;
    for (const int64_t d : format.item_dims) item_size *= d;
    const int64_t header = 8 + 4 * static_cast<int64_t>(format.item_dims.size());
    const int64_t expected = header + count * item_size;
    const std::string& name = file.name();
    const std::string items = items_text(count, format);
    if (!file.compressed()) {
        RENSA_CHECK(file.file_bytes() == expected, IOError, "'", name, "': ", file.file_bytes(),
                    " bytes but the header's ", items, " need ", expected,
                    file.file_bytes() < expected ? "; the file is truncated" : "; it has trailing data");
    }
    RENSA_CHECK(expected <= file.max_bytes(), IOError, "'", name, "': the header's ", items, " need ", expected,
                " bytes, more than this ", file.file_bytes(),
                "-byte gzip file can inflate to (deflate expands at most ", kMaxDeflateRatio,
                ":1); the file is truncated or its header corrupt");
    std::vector<uint8_t> data(static_cast<size_t>(expected - header));
    const int64_t got = file.read(data.data(), expected - header);
    RENSA_CHECK(got == expected - header, IOError, "'", name, "': ", header + got,
                " bytes once inflated but the header's ", items, " need ", expected, "; the file is truncated");
    uint8_t extra = 0;
    RENSA_CHECK(file.read(&extra, 1) == 0, IOError, "'", name, "': inflates past the ", expected,
                " bytes its header implies (", items,
                "); it has trailing data, not read any further (a corrupt file or a gzip bomb?)");
    return data;
}

DatasetPtr load_split(const fs::path& images_path, const fs::path& labels_path,
                      const detail::RawImageOptions& options) {
    int64_t n_images = 0, n_labels = 0;
    std::vector<uint8_t> pixels = read_idx(images_path, kImagesFormat, n_images);
    std::vector<uint8_t> labels;
    if (options.withlabel) {
        labels = read_idx(labels_path, kLabelsFormat, n_labels);
        RENSA_CHECK(n_images == n_labels, IOError, "'", images_path.string(), "' has ", n_images, " images but '",
                    labels_path.string(), "' has ", n_labels, " labels");
    }
    return std::make_shared<detail::RawImageDataset>(std::move(pixels), std::move(labels), options);
}

std::pair<DatasetPtr, DatasetPtr> load_mnist(const std::string& op, const char* subfolder, bool fashion,
                                             const MnistOptions& options) {
    RENSA_CHECK(options.ndim >= 1 && options.ndim <= 3, ValueError, op, ": invalid ndim ", options.ndim,
                " for the MNIST dataset (1: (784,), 2: (28, 28), 3: (1, 28, 28))");
    detail::check_image_dtype(options.dtype, op.c_str());
    const std::array<fs::path, 4> files = locate_files(op, subfolder, fashion);
    const Shape shapes[3] = {{kRows * kCols}, {kRows, kCols}, {1, kRows, kCols}};
    const detail::RawImageOptions raw{.example_shape = shapes[options.ndim - 1],
                                      .withlabel = options.withlabel,
                                      .scale = options.scale,
                                      .dtype = options.dtype,
                                      .label_dtype = options.label_dtype};
    return {load_split(files[0], files[1], raw), load_split(files[2], files[3], raw)};
}

}  // namespace

std::pair<DatasetPtr, DatasetPtr> get_mnist(const MnistOptions& options) {
    return load_mnist("get_mnist", "mnist", false, options);
}

std::pair<DatasetPtr, DatasetPtr> get_fashion_mnist(const MnistOptions& options) {
    return load_mnist("get_fashion_mnist", "fashion-mnist", true, options);
}

std::string fashion_mnist_root() {
    const std::vector<fs::path> folders = candidate_folders("fashion-mnist", true);
    for (const fs::path& folder : folders) {
        std::error_code ec;
        if (fs::is_directory(folder, ec)) return folder.string();
    }
    throw_missing("fashion_mnist_root", folders, true);
}

}  // namespace rensa::training::datasets
