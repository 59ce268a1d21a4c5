"""chainer.utils: helpers for code written against Chainer's API (argument parsing, type
checks, and the array helpers Chainer's own functions use in forward)."""
import numpy

from rensa.utils import argument  # noqa: F401
from rensa.utils import type_check  # noqa: F401
from rensa.utils.sparse import CooMatrix  # noqa: F401
from rensa.utils.sparse import get_order  # noqa: F401
from rensa.utils.sparse import to_coo  # noqa: F401


def force_array(x, dtype=None):
    """``x`` as an array: numpy turns 0-d results into scalars, which forward may not return.
    With ``dtype``, converted to it (no copy when it already has it)."""
    if numpy.isscalar(x):
        return numpy.array(x) if dtype is None else numpy.array(x, dtype)
    return x if dtype is None else x.astype(dtype, copy=False)


def force_type(dtype, value):
    """``value`` (a scalar or an array) in ``dtype``."""
    if numpy.isscalar(value):
        return dtype.type(value)
    return value if value.dtype == dtype else value.astype(dtype, copy=False)


def size_of_shape(shape):
    """The number of elements of an array of ``shape`` (an int, 1 for ())."""
    size = 1
    for extent in shape:
        size *= int(extent)
    return size
