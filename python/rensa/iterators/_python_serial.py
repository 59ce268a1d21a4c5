"""SerialIterator over Python datasets whose examples are arbitrary Python objects.

See Note [Python examples] below.
"""
import numpy

from rensa import _core
from rensa.iterators import multiprocess_iterator


# Note [Python examples]: the C++ iterators hold each example as arrays (tuples and dicts of
# arrays and numbers), so an example with strings, nested lists, None or other objects cannot
# pass through them, and lists come back as arrays. Chainer's SerialIterator hands examples
# back unchanged. ``rensa.iterators.SerialIterator`` over a Python dataset of such examples
# (its first example tells) is this Python iterator instead: MultiprocessIterator's state machine and serialization, with the examples
# read in this process, so its batches, orders and snapshots are SerialIterator's. The
# updaters' Python step then passes the batch to the converter as it is.
_ARRAY_LIKE = (numpy.ndarray, numpy.generic, bool, int, float, _core.ndarray)


def holds_python_objects(dataset):
    """True for a Python dataset (a list, a DatasetMixin such as TextDataset, ...) whose first
    example the C++ iterators would not give back as it is (an element other than an array or
    a number). C++ datasets are not read; a Python one is read once, here, for that example
    (an error there is left to the first batch)."""
    if isinstance(dataset, _core.dataset.Dataset):
        return False
    try:
        if len(dataset) == 0:
            return False
        example = dataset[0]
    except Exception:  # noqa: BLE001 (the iterator's first batch raises it where Chainer does)
        return False
    if isinstance(example, dict):
        values = example.values()
    elif isinstance(example, tuple):
        values = example
    else:
        values = (example,)
    return not all(isinstance(v, _ARRAY_LIKE) for v in values)


class PythonSerialIterator(multiprocess_iterator.MultiprocessIterator):
    """SerialIterator's batches of a dataset of Python objects, read in this process."""

    _name = 'SerialIterator'

    def __init__(self, dataset, batch_size, repeat=True, shuffle=None, order_sampler=None):
        super(PythonSerialIterator, self).__init__(dataset, batch_size, repeat=repeat, shuffle=shuffle,
                                                   n_processes=1, order_sampler=order_sampler)

    def __next__(self):
        if self._finalized:
            raise RuntimeError('SerialIterator: the iterator is finalized')
        state, sampler_state, indices = self._step()
        examples = [self.dataset[i] for i in indices] if indices else []
        return self._commit(multiprocess_iterator._Pending(state, sampler_state, indices, examples, None), None)

    next = __next__

    def __copy__(self):
        other = PythonSerialIterator(self.dataset, self.batch_size, self.repeat, order_sampler=self.order_sampler)
        other._set_state(self._state, self._previous_epoch_detail)
        return other
