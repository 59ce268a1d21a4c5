"""Helpers of the distribution tests (test_distributions.py, test_distributions_grad.py):
float64 inputs from one RandomState, closed-form references independent of rensa, and a
gradient check with a random output gradient."""
import math

import numpy as np

import rensa as chainer
from rensa import gradient_check

RS = np.random.RandomState(7)


def f64(*shape, low=-1.0, high=1.0):
    return RS.uniform(low, high, shape)


def close(actual, expected, rtol=1e-6, atol=1e-8):
    actual = actual.array if isinstance(actual, chainer.Variable) else actual
    np.testing.assert_allclose(np.asarray(actual, np.float64), np.asarray(expected, np.float64), rtol=rtol, atol=atol)


def digamma_ref(x):
    """Central difference of math.lgamma (error ~1e-10): independent of rensa's series."""
    h = 1e-5
    return np.vectorize(lambda v: (math.lgamma(v + h) - math.lgamma(v - h)) / (2 * h))(x)


lgamma_ref = np.vectorize(math.lgamma)
erf_ref = np.vectorize(math.erf)


def check_grad(fn, *xs, double=False):
    """Gradient check of fn at float64 inputs xs (a random output gradient)."""
    y = fn(*[chainer.Variable(x.copy()) for x in xs])
    gy = RS.normal(size=y.shape)
    gradient_check.check_backward(fn, xs, gy, eps=1e-4, atol=1e-5, rtol=1e-4)
    if double:
        ggs = [RS.normal(size=x.shape) for x in xs]
        gradient_check.check_double_backward(fn, xs, gy, ggs, eps=1e-4, atol=1e-4, rtol=1e-3)


def tril(batch, d):
    lower = np.tril(f64(*batch, d, d, low=-0.5, high=0.5))
    idx = np.arange(d)
    lower[..., idx, idx] = f64(*batch, d, low=0.5, high=1.5)
    return lower
