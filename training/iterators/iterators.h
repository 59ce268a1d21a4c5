#pragma once
// chainer.iterators: SerialIterator, MultithreadIterator and the order samplers.

#include "training/iterators/multithread_iterator.h"  // IWYU pragma: export
#include "training/iterators/order_samplers.h"        // IWYU pragma: export
#include "training/iterators/serial_iterator.h"       // IWYU pragma: export
