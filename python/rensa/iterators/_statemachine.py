"""Chainer's iterator_statemachine in Python, step for step the C++ SerialIterator's.

See Note [Iterator state machine] in training/iterators/serial_iterator.h: the same steps
with the same order sampler give the same batches, so a Python iterator that prefetches
(MultiprocessIterator) draws SerialIterator's orders.
"""
import collections

import numpy

IteratorState = collections.namedtuple('IteratorState', 'current_position epoch is_new_epoch order')


def epoch_size(state, dataset_len):
    return dataset_len if state.order is None else len(state.order)


def advance(state, batch_size, repeat, order_sampler, dataset_len, name='MultiprocessIterator'):
    """(next state, indices of the batch or None at the end without repeat)."""
    if not repeat and state.epoch > 0:
        return state, None
    n = epoch_size(state, dataset_len)
    if repeat and n == 0:
        raise ValueError(name + ': the epoch size must be positive for an iterator that repeats')
    order, epoch = state.order, state.epoch
    indices = []
    i, i_end = state.current_position, state.current_position + batch_size
    is_new_epoch = False
    while i_end >= n:
        indices.extend(order[i:n] if order is not None else range(i, n))
        if order is not None:
            next_order = numpy.asarray(order_sampler(order, i), dtype=numpy.int64)
            if len(next_order) != len(order):
                raise ValueError(name + ': the order sampler returned an order of size %d; the '
                                 'previous order has size %d' % (len(next_order), len(order)))
            order = next_order
        epoch += 1
        is_new_epoch = True
        i = 0
        if not repeat:
            i_end = 0
            break
        i_end -= n
    indices.extend(order[i:i_end] if order is not None else range(i, i_end))
    return IteratorState(i_end, epoch, is_new_epoch, order), [int(k) for k in indices]
