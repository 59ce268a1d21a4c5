#pragma once
// Shared by the train_mlp and train_convnet benchmarks: the Fashion-MNIST train set as
// float32 in [0, 1] and int32 labels (read from the IDX files of Debian's
// dataset-fashion-mnist package, found through its file list), and the per-batch
// assembly a converter does (copy the shuffled examples into one batch array).

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/array.h"

namespace rensa::bench {

struct FashionMnist {
    std::vector<float> images;    // n * 784, scaled to [0, 1]
    std::vector<int32_t> labels;  // n
    int64_t n = 0;
};

inline std::string fashion_mnist_folder() {
    std::ifstream list("/var/lib/dpkg/info/dataset-fashion-mnist.list");
    std::string line;
    while (std::getline(list, line)) {
        const std::string name = "/train-images-idx3-ubyte.gz";
        if (line.size() > name.size() && line.compare(line.size() - name.size(), name.size(), name) == 0) {
            return line.substr(0, line.size() - name.size());
        }
    }
    throw std::runtime_error("Fashion-MNIST not found: install Debian's dataset-fashion-mnist");
}

inline std::vector<uint8_t> read_gz(const std::string& path) {
    gzFile f = gzopen(path.c_str(), "rb");
    if (f == nullptr) throw std::runtime_error("cannot open " + path);
    std::vector<uint8_t> out;
    uint8_t buf[1 << 16];
    int got = 0;
    while ((got = gzread(f, buf, sizeof buf)) > 0) out.insert(out.end(), buf, buf + got);
    gzclose(f);
    return out;
}

inline FashionMnist load_fashion_mnist_train() {
    const std::string dir = fashion_mnist_folder();
    const auto img = read_gz(dir + "/train-images-idx3-ubyte.gz");
    const auto lab = read_gz(dir + "/train-labels-idx1-ubyte.gz");
    FashionMnist d;
    d.n = static_cast<int64_t>(lab.size()) - 8;
    d.images.resize(d.n * 784);
    for (int64_t i = 0; i < d.n * 784; ++i) d.images[i] = static_cast<float>(img[16 + i]) / 255.0f;
    d.labels.resize(d.n);
    for (int64_t i = 0; i < d.n; ++i) d.labels[i] = lab[8 + i];
    return d;
}

// Copies the examples order[begin, begin + batch) into x (batch, 784...) and t (batch,).
inline void assemble_batch(const FashionMnist& d, const std::vector<int64_t>& order, int64_t begin, const Array& x,
                           const Array& t) {
    const int64_t batch = t.shape()[0];
    auto* xp = static_cast<float*>(x.raw_data());
    auto* tp = static_cast<int32_t*>(t.raw_data());
    for (int64_t i = 0; i < batch; ++i) {
        const int64_t k = order[begin + i];
        std::memcpy(xp + i * 784, d.images.data() + k * 784, 784 * sizeof(float));
        tp[i] = d.labels[k];
    }
}

}  // namespace rensa::bench
