#pragma once
// The training layer in one include (chainer.training, chainer.dataset(s), chainer.iterators):
// datasets, iterators, the converter, updaters, Trainer, triggers and extensions.
//
//   #include "training/training.h"
//   namespace ext = rensa::training::extensions;
//   auto [train, test] = rensa::datasets::get_fashion_mnist();

#include "training/converter.h"
#include "training/dataset.h"
#include "training/datasets/datasets.h"
#include "training/extension.h"
#include "training/extensions/extensions.h"
#include "training/iterator.h"
#include "training/iterators/iterators.h"
#include "training/summary.h"
#include "training/trainer.h"
#include "training/trigger.h"
#include "training/triggers/triggers.h"
#include "training/updater.h"
#include "training/updaters/updaters.h"

namespace rensa {
// Chainer's module names: rensa::datasets (chainer.datasets), rensa::iterators (chainer.iterators).
namespace datasets = training::datasets;    // NOLINT(misc-unused-alias-decls)
namespace iterators = training::iterators;  // NOLINT(misc-unused-alias-decls)
}  // namespace rensa
