"""Python-level parts of rensa.functions, group b (connection, pooling, normalization, loss,
evaluation).

Every function of the C++ families is bound directly in rensa._core.functions. This module
adds Chainer functions of these families that C++ lacks but that compose from bound
functions (so they are differentiable, double backprop included), and r2_score, which is an
evaluation (no gradient) computed with numpy.
"""
import math

import numpy

from rensa import _core
from rensa._core import functions as _F

__all__ = ['absolute_error', 'dilated_convolution_2d', 'r2_score', 'spatial_pyramid_pooling_2d',
           'squared_error']


def squared_error(x0, x1):
    """Elementwise squared error (x0 - x1) ** 2 (Chainer's F.squared_error)."""
    return _F.squared_difference(x0, x1)


def absolute_error(x0, x1):
    """Elementwise absolute error |x0 - x1| (Chainer's F.absolute_error)."""
    return _F.absolute(_as_variable(x0) - x1)


def dilated_convolution_2d(x, W, b=None, stride=1, pad=0, dilate=1, cover_all=False):
    """Chainer's dilated_convolution_2d: convolution_2d with a dilation."""
    return _F.convolution_2d(x, W, b, stride, pad, cover_all, dilate=dilate)


def spatial_pyramid_pooling_2d(x, pyramid_height, pooling='max'):
    """Chainer's spatial pyramid pooling: level l pools x into 2**l x 2**l bins.

    Returns (n, c * sum_l 4**l, 1, 1), the levels concatenated along axis 1.
    """
    if pooling not in ('max', 'average'):
        raise ValueError(
            'spatial_pyramid_pooling_2d: pooling must be "max" or "average", got {!r}'.format(pooling))
    if pyramid_height < 1:
        raise ValueError('spatial_pyramid_pooling_2d: pyramid_height must be at least 1, got {}'.format(
            pyramid_height))
    x = _as_variable(x)
    if x.ndim != 4:
        raise ValueError('spatial_pyramid_pooling_2d: x must be (n, c, h, w), got shape {}'.format(x.shape))
    height, width = x.shape[2:]
    ys = []
    for level in range(pyramid_height):
        bins = 2 ** level
        ksize = (int(math.ceil(height / bins)), int(math.ceil(width / bins)))
        pad = ((ksize[0] * bins - height) // 2, (ksize[1] * bins - width) // 2)
        if pooling == 'max':
            y = _F.max_pooling_2d(x, ksize, None, pad, True)
        else:
            y = _F.average_pooling_2d(x, ksize, None, pad)
        n, c, h, w = y.shape
        ys.append(_F.reshape(y, (n, c * h * w, 1, 1)))
    return _F.concat(ys, axis=1)


def r2_score(pred, true, sample_weight=None, multioutput='uniform_average'):
    """Chainer's r2_score: 1 - SS_res / SS_tot per output column (axis 0 is the sample axis).

    multioutput 'uniform_average' (a 0-d result) or 'raw_values'. Not differentiable.
    """
    if sample_weight is not None:
        raise NotImplementedError('r2_score: sample_weight is not supported (as in Chainer)')
    if multioutput not in ('uniform_average', 'raw_values'):
        raise ValueError('r2_score: multioutput must be "uniform_average" or "raw_values", got {!r}'.format(
            multioutput))
    p, t = _host(pred), _host(true)
    if p.shape != t.shape:
        raise ValueError('r2_score: pred.shape {} does not match true.shape {}'.format(p.shape, t.shape))
    ss_res = ((t - p) ** 2).sum(axis=0)
    ss_tot = ((t - t.mean(axis=0)) ** 2).sum(axis=0)
    with numpy.errstate(divide='ignore', invalid='ignore'):
        score = numpy.where(ss_tot != 0, 1 - ss_res / ss_tot, 0.0).astype(p.dtype)
    if multioutput == 'uniform_average':
        score = numpy.asarray(score.mean(), dtype=p.dtype)
    return _core.Variable(score, requires_grad=False)


def _as_variable(x):
    return x if isinstance(x, _core.Variable) else _core.Variable(numpy.asarray(x), requires_grad=False)


def _host(x):
    return numpy.asarray(x.array if isinstance(x, _core.Variable) else x)
