"""How MultiprocessIterator's workers hand examples back through shared memory.

See Note [Examples through shared memory].
"""
import warnings

import numpy

# Note [Examples through shared memory]: each prefetched batch owns a slot of ``batch_size``
# regions of ``mem_size`` bytes in one block of shared memory made before the workers fork.
# A worker copies the numpy arrays of its example (a tuple, a dict or one array) into its
# region and sends back only their places (_SharedArray); an example whose arrays do not fit
# travels pickled instead (with a warning, as Chainer's). The main process copies the arrays
# out before the slot is reused, so a batch never aliases memory a worker writes again.
_ALIGN = 64


class _SharedArray(object):
    __slots__ = ('offset', 'dtype', 'shape')

    def __init__(self, offset, dtype, shape):
        self.offset, self.dtype, self.shape = offset, dtype, shape

    def __getstate__(self):
        return self.offset, self.dtype, self.shape

    def __setstate__(self, state):
        self.offset, self.dtype, self.shape = state


def _arrays(example):
    if isinstance(example, numpy.ndarray):
        return [example]
    if isinstance(example, tuple):
        return [a for a in example if isinstance(a, numpy.ndarray)]
    if isinstance(example, dict):
        return [a for a in example.values() if isinstance(a, numpy.ndarray)]
    return []


def _aligned(n):
    return (n + _ALIGN - 1) // _ALIGN * _ALIGN


def example_bytes(example):
    """The shared memory one example's arrays need."""
    return sum(_aligned(a.nbytes) for a in _arrays(example))


def pack(example, memory, offset, size):
    """The example with its arrays copied to ``memory[offset:offset + size]`` and replaced by
    their places; the example itself when they do not fit (or it holds no array)."""
    if memory is None or not _arrays(example) or any(a.dtype.hasobject for a in _arrays(example)):
        return example
    if example_bytes(example) > size:
        warnings.warn('MultiprocessIterator: an example needs %d bytes of shared memory but shared_mem is %d; '
                      'it is sent pickled' % (example_bytes(example), size), RuntimeWarning)
        return example
    view = numpy.frombuffer(memory, dtype=numpy.uint8)
    position = offset

    def place(a):
        nonlocal position
        if not isinstance(a, numpy.ndarray):
            return a
        a = numpy.ascontiguousarray(a)
        view[position:position + a.nbytes] = a.reshape(-1).view(numpy.uint8)
        shared = _SharedArray(position, a.dtype.str, a.shape)
        position += _aligned(a.nbytes)
        return shared

    if isinstance(example, numpy.ndarray):
        return place(example)
    if isinstance(example, tuple):
        return tuple(place(a) for a in example)
    return {k: place(v) for k, v in example.items()}


def unpack(example, memory):
    """The example with each _SharedArray replaced by a copy of its array."""
    def take(a):
        if not isinstance(a, _SharedArray):
            return a
        dtype = numpy.dtype(a.dtype)
        count = int(numpy.prod(a.shape, dtype=numpy.int64))
        return numpy.frombuffer(memory, dtype=dtype, count=count, offset=a.offset).reshape(a.shape).copy()

    if isinstance(example, tuple):
        return tuple(take(a) for a in example)
    if isinstance(example, dict):
        return {k: take(v) for k, v in example.items()}
    return take(example)
