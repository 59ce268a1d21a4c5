"""chainer.dataset.DatasetMixin: a dataset written in Python.

A pure Python class: C++ iterators read any Python dataset through an adapter that
holds it (python/src/training/data.h), so subclasses need not call ``__init__`` of the base.
"""
import numpy

__all__ = ['DatasetMixin']


class DatasetMixin(object):
    """Defines ``__getitem__`` (ints, slices, index lists) from ``get_example``."""

    def __getitem__(self, index):
        if isinstance(index, slice):
            current, stop, step = index.indices(len(self))
            return [self.get_example(i) for i in range(current, stop, step)]
        if isinstance(index, (list, numpy.ndarray)):
            return [self.get_example(i) for i in index]
        return self.get_example(index)

    def __len__(self):
        raise NotImplementedError

    def get_example(self, i):
        """Returns the ``i``-th example. Subclasses must override it (``__getitem__`` calls it for
        each index)."""
        raise NotImplementedError
