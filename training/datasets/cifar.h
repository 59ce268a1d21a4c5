#pragma once
// chainer.datasets.get_cifar10 / get_cifar100 from the binary versions of the data sets
// ("CIFAR-10 binary version", "CIFAR-100 binary version" of cs.toronto.edu/~kriz/cifar.html):
//   $RENSA_DATASET_ROOT/cifar-10-batches-bin/data_batch_1.bin ... data_batch_5.bin, test_batch.bin
//     (records of 1 label byte + 3072 pixel bytes, channel-major 3x32x32)
//   $RENSA_DATASET_ROOT/cifar-100-binary/train.bin, test.bin
//     (records of a coarse and a fine label byte + 3072 pixel bytes; the fine label is used)
// Nothing is downloaded: a missing file raises IOError saying what to put where.

#include <utility>

#include "core/dtype.h"
#include "training/dataset.h"

namespace rensa::training::datasets {

struct CifarOptions {
    bool withlabel = true;          // examples (x, t) with int32 labels; false: 1-tuples (x)
    int ndim = 3;                   // 1: (3072,), 3: (3, 32, 32)
    double scale = 1.0;             // pixel values scaled to [0, scale]
    Dtype dtype = Dtype::kFloat32;  // of the images (a float dtype)
};

// {train (50,000 examples), test (10,000)}. ValueError for ndim other than 1 or 3,
// DtypeError for a non-float dtype, IOError for missing, truncated or malformed files.
[[nodiscard]] std::pair<DatasetPtr, DatasetPtr> get_cifar10(const CifarOptions& options = {});
[[nodiscard]] std::pair<DatasetPtr, DatasetPtr> get_cifar100(const CifarOptions& options = {});

}  // namespace rensa::training::datasets
