"""Helpers shared by the distributions (chainer.distributions.utils)."""
import numpy

import rensa
from rensa import backend
from rensa import functions as F


def _modified_xlogx(x):
    """x * log(x), 0 where x == 0 (with gradient 0 there)."""
    x = rensa.as_variable(x)
    positive = x.array > 0
    safe = F.where(positive, x, _full_like(x, 1))
    return F.where(positive, x * F.log(safe), _full_like(x, 0))


def _send_like(like, array):
    """`array` (numpy) on the device of the Variable `like`."""
    if isinstance(like.array, numpy.ndarray):
        return array
    return backend.get_device_from_array(like.array).send(array)


def _host_noise(like, draw, shape, dtype=None):
    """Noise drawn on the host by numpy's global generator (as Chainer's CPU path does),
    cast to `dtype` (default: like's) and sent to like's device."""
    noise = numpy.asarray(draw(shape)).astype(dtype or like.dtype)
    return _send_like(like, noise)


def _host_array(x):
    """The numpy array of a Variable or array (for sampling routines that take parameters)."""
    if isinstance(x, rensa.Variable):
        x = x.array
    return backend.to_cpu(x)


def _full_like(v, value):
    """A constant array shaped and typed like the Variable `v`, on its device."""
    return _send_like(v, numpy.full(v.shape, value, dtype=v.dtype))
