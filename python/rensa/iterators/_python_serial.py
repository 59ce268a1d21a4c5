"""SerialIterator over Python datasets whose examples are arbitrary Python objects.

See Note [Python examples] below.
"""
import numpy

from rensa import _core
from rensa.iterators import multiprocess_iterator


# Note [Python examples]: the C++ iterators hold each example as arrays (tuples and dicts of
# arrays and numbers), so an example with strings, nested lists, None or other objects cannot
# pass through them, and lists come back as arrays. Chainer's SerialIterator hands examples
# back unchanged. ``rensa.iterators.SerialIterator`` over such a list (or tuple) of examples
# is this Python iterator instead: MultiprocessIterator's state machine and serialization, with the examples
# read in this process, so its batches, orders and snapshots are SerialIterator's. The
# updaters' Python step then passes the batch to the converter as it is.
_ARRAY_LIKE = (numpy.ndarray, numpy.generic, bool, int, float, _core.ndarray)


def holds_python_objects(dataset):
    """True for a list or tuple dataset whose first example the C++ iterators would not give
    back as it is (an element other than an array or a number). Other datasets (DatasetMixin,
    C++ datasets) are not read here: reading an example may cost or do something."""
    if not isinstance(dataset, (list, tuple)) or len(dataset) == 0:
        return False
    example = dataset[0]
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
