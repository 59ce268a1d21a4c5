#include "tests/training/datasets/datasets_testing.h"

#include <unistd.h>
#include <zlib.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace rensa::training::testing {

EnvScope::EnvScope(std::string name, const std::optional<std::string>& value) : name_{std::move(name)} {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    if (value) {
        ::setenv(name_.c_str(), value->c_str(), 1);
    } else {
        ::unsetenv(name_.c_str());
    }
}

EnvScope::~EnvScope() {
    if (old_) {
        ::setenv(name_.c_str(), old_->c_str(), 1);
    } else {
        ::unsetenv(name_.c_str());
    }
}

void write_bytes(const std::filesystem::path& path, const std::vector<uint8_t>& bytes, bool gzip) {
    if (!gzip) {
        std::ofstream out(path, std::ios::binary);
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        if (!out) throw std::runtime_error("cannot write " + path.string());
        return;
    }
    gzFile file = gzopen(path.c_str(), "wb");
    if (file == nullptr) throw std::runtime_error("cannot open " + path.string());
    const int written = bytes.empty() ? 0 : gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size()));
    gzclose(file);
    if (written != static_cast<int>(bytes.size())) throw std::runtime_error("cannot write " + path.string());
}

namespace {

void put_be32(std::vector<uint8_t>& out, uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(v >> shift));
}

}  // namespace

std::vector<uint8_t> idx_images(uint32_t n, uint32_t rows, uint32_t cols, const std::vector<uint8_t>& pixels) {
    std::vector<uint8_t> out;
    for (const uint32_t v : {0x00000803u, n, rows, cols}) put_be32(out, v);
    out.insert(out.end(), pixels.begin(), pixels.end());
    return out;
}

std::vector<uint8_t> idx_labels(const std::vector<uint8_t>& labels) {
    std::vector<uint8_t> out;
    put_be32(out, 0x00000801u);
    put_be32(out, static_cast<uint32_t>(labels.size()));
    out.insert(out.end(), labels.begin(), labels.end());
    return out;
}

uint8_t pixel(int64_t k, int64_t p) { return static_cast<uint8_t>((k * 31 + p * 7) % 256); }

void write_mnist(const std::filesystem::path& folder, int64_t n_train, int64_t n_test, bool gzip) {
    std::filesystem::create_directories(folder);
    const std::string suffix = gzip ? ".gz" : "";
    for (const bool train : {true, false}) {
        const int64_t n = train ? n_train : n_test;
        std::vector<uint8_t> pixels, labels;
        for (int64_t k = 0; k < n; ++k) {
            // Test images start at 1000 so that train and test differ.
            const int64_t id = train ? k : 1000 + k;
            for (int64_t p = 0; p < 784; ++p) pixels.push_back(pixel(id, p));
            labels.push_back(static_cast<uint8_t>(id % 10));
        }
        const std::string prefix = train ? "train" : "t10k";
        write_bytes(folder / (prefix + "-images-idx3-ubyte" + suffix),
                    idx_images(static_cast<uint32_t>(n), 28, 28, pixels), gzip);
        write_bytes(folder / (prefix + "-labels-idx1-ubyte" + suffix), idx_labels(labels), gzip);
    }
}

std::vector<double> values_of(const Array& a) { return a.to_vector<double>(); }

Example int_example(const std::vector<int32_t>& values) {
    Example example;
    for (const int32_t v : values) example.values.push_back(Array::from_vector<int32_t>({v}, {}));
    return example;
}

}  // namespace rensa::training::testing
