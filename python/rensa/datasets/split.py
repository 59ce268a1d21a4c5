"""chainer.datasets.split_dataset_n and split_dataset_n_random: n equal SubDatasets.

As Chainer, each part has ``len(dataset) // n`` examples (the remainder is left out), and
the random split draws its order from ``numpy.random.RandomState(seed).permutation``, so a
seed gives Chainer's parts.
"""
import numpy

__all__ = ['split_dataset_n', 'split_dataset_n_random']


def split_dataset_n(dataset, n, order=None):
    """``n`` SubDatasets of ``len(dataset) // n`` consecutive examples (in ``order``)."""
    from rensa.datasets import SubDataset
    if isinstance(n, bool) or not isinstance(n, (int, numpy.integer)) or n < 1:
        raise ValueError('split_dataset_n: Expect: n to be a positive integer, Actual: %r' % (n,))
    size = len(dataset) // n
    return [SubDataset(dataset, size * i, size * (i + 1), order) for i in range(n)]


def split_dataset_n_random(dataset, n, seed=None):
    """split_dataset_n over a random order drawn from RandomState(seed)."""
    order = numpy.random.RandomState(seed).permutation(len(dataset))
    return split_dataset_n(dataset, n, order)
