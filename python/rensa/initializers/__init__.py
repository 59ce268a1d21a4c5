"""rensa.initializers (chainer.initializers): objects that fill an array in place.

Each is callable on a numpy array (``HeNormal()(w)`` fills ``w``) and is accepted as
``initialW=`` / ``initial_bias=`` by the links, as are a scalar and an array (Chainer's
``_get_initializer``). A Python subclass of Initializer overrides ``__call__(self, array)``.
"""
import numpy

from rensa._core.initializers import *  # noqa: F401,F403
from rensa._core.initializers import Constant, FromArray, Initializer

__all__ = ['Initializer', 'Constant', 'Zero', 'One', 'NaN', 'Identity', 'Normal',
           'LeCunNormal', 'GlorotNormal', 'HeNormal', 'Uniform', 'LeCunUniform',
           'GlorotUniform', 'HeUniform', 'Orthogonal', 'FromArray', 'get_fans',
           'generate_array', 'UpsamplingDeconvFilter', 'DownsamplingConvFilter']


def _get_initializer(initializer):
    """Chainer's rule: None stays None, a scalar is Constant, an array is copied."""
    if initializer is None or isinstance(initializer, Initializer):
        return initializer
    if numpy.isscalar(initializer):
        return Constant(float(initializer))
    array = numpy.asarray(initializer)
    if array.ndim == 0:
        return Constant(float(array))
    return FromArray(array)


def generate_array(initializer, shape, xp, dtype=None, device=None):
    """A new array of ``shape`` filled by ``initializer`` (numpy arrays only).

    ``dtype`` defaults to the initializer's own dtype, else float32.
    """
    if xp is not numpy:
        raise NotImplementedError(
            'generate_array: only numpy is supported as xp, got {!r}'.format(xp))
    if dtype is None:
        dtype = getattr(initializer, 'dtype', None) or numpy.float32
    array = numpy.empty(shape, dtype=dtype)
    _get_initializer(initializer)(array)
    return array
