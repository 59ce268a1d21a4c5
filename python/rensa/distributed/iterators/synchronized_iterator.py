"""chainermn.iterators.create_synchronized_iterator: the same shuffled order on every rank."""
import numpy

from rensa import iterators


def create_synchronized_iterator(actual_iterator, communicator):
    """An iterator over ``actual_iterator``'s dataset whose shuffled order is the same on
    every rank: rank 0 draws a seed, every rank shuffles with a ShuffleOrderSampler from it
    (collective), and the iterator starts over.

    rensa's SerialIterator and MultithreadIterator fix their order sampler at construction,
    so for them a new iterator of the same class, dataset, batch size and repeat is returned;
    a Python iterator gets the sampler assigned to its ``order_sampler`` and is reset, as in
    chainermn.
    """
    if not hasattr(actual_iterator, 'order_sampler'):
        raise ValueError('create_synchronized_iterator: actual_iterator must have an order_sampler '
                         '(SerialIterator, MultithreadIterator, ...), got %s' % type(actual_iterator).__name__)
    seed = communicator.bcast_obj(int(numpy.random.randint(0, 2 ** 31 - 1)) if communicator.rank == 0 else None,
                                  root=0)
    sampler = iterators.ShuffleOrderSampler(seed=seed)
    cls = type(actual_iterator)
    if cls is iterators.SerialIterator:
        return iterators.SerialIterator(actual_iterator.dataset, actual_iterator.batch_size,
                                        repeat=actual_iterator.repeat, order_sampler=sampler)
    if cls is iterators.MultithreadIterator:
        return iterators.MultithreadIterator(actual_iterator.dataset, actual_iterator.batch_size,
                                             repeat=actual_iterator.repeat, n_threads=actual_iterator.n_threads,
                                             order_sampler=sampler)
    actual_iterator.order_sampler = sampler
    actual_iterator.reset()
    return actual_iterator
