#pragma once
// chainer.datasets.get_mnist / get_fashion_mnist from the four standard IDX files
// (train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte,
// t10k-labels-idx1-ubyte, each plain or .gz).
//
// Where they are looked for: $RENSA_DATASET_ROOT/mnist/ (or fashion-mnist/); for
// Fashion-MNIST, when that folder is absent, the folder Debian's dataset-fashion-mnist
// package installs (found at run time from the package's file list, not hard-coded).
// Nothing is downloaded: a missing file raises IOError saying which files are expected
// where and how to get them.

#include <string>
#include <utility>

#include "core/dtype.h"
#include "training/dataset.h"

namespace rensa::training::datasets {

struct MnistOptions {
    bool withlabel = true;              // examples (x, t); false: 1-tuples (x)
    int ndim = 1;                       // 1: (784,), 2: (28, 28), 3: (1, 28, 28)
    double scale = 1.0;                 // pixel values scaled to [0, scale]
    Dtype dtype = Dtype::kFloat32;      // of the images
    Dtype label_dtype = Dtype::kInt32;  // of the labels
};

// {train (60,000 examples), test (10,000)}. ValueError for ndim outside 1..3, DtypeError
// for a non-float dtype, IOError naming the file for a missing, truncated or malformed one.
// The pixels stay uint8 in memory and are converted when read, to exactly the values of
// Chainer's `x.astype(dtype); x *= scale / 255.`; the examples are new arrays.
[[nodiscard]] std::pair<DatasetPtr, DatasetPtr> get_mnist(const MnistOptions& options = {});
[[nodiscard]] std::pair<DatasetPtr, DatasetPtr> get_fashion_mnist(const MnistOptions& options = {});

// The folder the Fashion-MNIST files are read from (see above); IOError when none exists.
[[nodiscard]] std::string fashion_mnist_root();

}  // namespace rensa::training::datasets
