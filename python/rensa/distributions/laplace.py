"""Laplace distribution (chainer.distributions.Laplace)."""
import functools
import math

import numpy

import rensa
from rensa import distribution
from rensa import functions as F
from rensa.distributions import utils


def _laplace_cdf(z):
    """0.5 - 0.5 sign(z) expm1(-|z|): the standard Laplace CDF, accurate near 0 and in the tails."""
    return 0.5 - 0.5 * F.sign(z) * F.expm1(-abs(z))


def _laplace_icdf(p):
    h = 1 - 2 * rensa.as_variable(p)
    return F.sign(h) * F.log1p(-abs(h))


class Laplace(distribution.Distribution):
    """Laplace(loc, scale)."""

    def __init__(self, loc, scale):
        self.__loc = loc
        self.__scale = scale

    @functools.cached_property
    def loc(self):
        return rensa.as_variable(self.__loc)

    @functools.cached_property
    def scale(self):
        return rensa.as_variable(self.__scale)

    @property
    def batch_shape(self):
        return self.loc.shape

    @property
    def event_shape(self):
        return ()

    def cdf(self, x):
        return _laplace_cdf((x - self.loc) / self.scale)

    def icdf(self, x):
        return self.loc + self.scale * _laplace_icdf(x)

    def log_prob(self, x):
        return -F.log(2 * self.scale) - abs(x - self.loc) / self.scale

    def prob(self, x):
        return 0.5 / self.scale * F.exp(-abs(x - self.loc) / self.scale)

    @functools.cached_property
    def entropy(self):
        return 1. + F.log(2 * self.scale)

    @functools.cached_property
    def mean(self):
        return self.loc

    @functools.cached_property
    def mode(self):
        return self.loc

    @functools.cached_property
    def stddev(self):
        return math.sqrt(2) * self.scale

    @functools.cached_property
    def variance(self):
        return 2 * self.scale ** 2

    @property
    def params(self):
        return {'loc': self.loc, 'scale': self.scale}

    @property
    def support(self):
        return 'real'

    def sample_n(self, n):
        eps = utils._host_noise(self.loc, lambda shape: numpy.random.laplace(size=shape), (n,) + self.loc.shape)
        return self.scale * eps + self.loc


@distribution.register_kl(Laplace, Laplace)
def _kl_laplace_laplace(dist1, dist2):
    diff = abs(dist1.loc - dist2.loc)
    return (F.log(dist2.scale) - F.log(dist1.scale) + diff / dist2.scale
            + dist1.scale / dist2.scale * F.exp(-diff / dist1.scale) - 1)
