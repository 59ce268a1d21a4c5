#pragma once
// chainer.datasets: every dataset type, the split functions and the data set loaders.

#include "training/datasets/cifar.h"                 // IWYU pragma: export
#include "training/datasets/concatenated_dataset.h"  // IWYU pragma: export
#include "training/datasets/dict_dataset.h"          // IWYU pragma: export
#include "training/datasets/mnist.h"                 // IWYU pragma: export
#include "training/datasets/sub_dataset.h"           // IWYU pragma: export
#include "training/datasets/transform_dataset.h"     // IWYU pragma: export
#include "training/datasets/tuple_dataset.h"         // IWYU pragma: export
