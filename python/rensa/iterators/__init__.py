"""rensa.iterators: Chainer's chainer.iterators.

SerialIterator and MultithreadIterator are C++: over a C++ dataset no Python runs per
example; Python datasets are read through an adapter that takes the GIL. ``next(it)``
gives a list of examples in Chainer's form.
"""
import abc

from rensa import _core
from rensa._core.iterators import MultithreadIterator  # noqa: F401
from rensa._core.iterators import SerialIterator  # noqa: F401
from rensa._core.iterators import ShuffleOrderSampler  # noqa: F401

__all__ = ['MultiprocessIterator', 'MultithreadIterator', 'OrderSampler',
           'SerialIterator', 'ShuffleOrderSampler']


class OrderSampler(metaclass=abc.ABCMeta):
    """Base of order samplers: ``sampler(current_order, current_position)`` returns the
    next epoch's order. Any callable works; ``serialize(serializer)`` is optional."""

    def __call__(self, current_order, current_position):
        raise NotImplementedError

    def serialize(self, serializer):
        pass


OrderSampler.register(_core.iterators._OrderSampler)


def MultiprocessIterator(dataset, batch_size, repeat=True, shuffle=None,
                         n_processes=None, n_prefetch=1, shared_mem=None,
                         order_sampler=None, dataset_timeout=30.0,
                         maxtasksperchild=None):
    """Chainer's MultiprocessIterator signature on a MultithreadIterator (the C++ datasets
    need no processes; n_processes becomes the thread count, the rest is ignored)."""
    del n_prefetch, shared_mem, dataset_timeout, maxtasksperchild
    return MultithreadIterator(dataset, batch_size, repeat=repeat, shuffle=shuffle,
                               n_threads=n_processes or 2, order_sampler=order_sampler)
