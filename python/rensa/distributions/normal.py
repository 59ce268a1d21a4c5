"""Normal distribution (chainer.distributions.Normal)."""
import functools
import math

import numpy

import rensa
from rensa import distribution
from rensa import functions as F
from rensa.distributions import utils

ENTROPYC = 0.5 * math.log(2 * math.pi * math.e)
LOGPROBC = -0.5 * math.log(2 * math.pi)
PROBC = 1. / (2 * math.pi) ** 0.5


class Normal(distribution.Distribution):
    """Normal(loc, scale) or Normal(loc, log_scale=...): exactly one of the two scales."""

    def __init__(self, loc, scale=None, **kwargs):
        log_scale = kwargs.pop('log_scale', None)
        if kwargs:
            raise TypeError('Normal: unexpected keyword arguments: {}'.format(', '.join(sorted(kwargs))))
        if not (scale is None) ^ (log_scale is None):
            raise ValueError('Either `scale` or `log_scale` (not both) must have a value.')
        self.__loc = loc
        self.__scale = scale
        self.__log_scale = log_scale

    @functools.cached_property
    def loc(self):
        return rensa.as_variable(self.__loc)

    @functools.cached_property
    def scale(self):
        if self.__scale is not None:
            return rensa.as_variable(self.__scale)
        return F.exp(self.log_scale)

    @functools.cached_property
    def log_scale(self):
        if self.__log_scale is not None:
            return rensa.as_variable(self.__log_scale)
        return F.log(self.scale)

    @property
    def batch_shape(self):
        return self.loc.shape

    @property
    def event_shape(self):
        return ()

    def cdf(self, x):
        return F.ndtr((x - self.loc) / self.scale)

    def icdf(self, x):
        return self.loc + self.scale * F.ndtri(rensa.as_variable(x))

    def log_cdf(self, x):
        return F.log_ndtr((x - self.loc) / self.scale)

    def survival_function(self, x):
        return F.ndtr((self.loc - x) / self.scale)

    def log_survival_function(self, x):
        return F.log_ndtr((self.loc - x) / self.scale)

    def log_prob(self, x):
        return LOGPROBC - self.log_scale - 0.5 * (x - self.loc) ** 2 / self.variance

    def prob(self, x):
        return (PROBC / self.scale) * F.exp(-0.5 * (x - self.loc) ** 2 / self.variance)

    @functools.cached_property
    def entropy(self):
        return self.log_scale + ENTROPYC

    @functools.cached_property
    def mean(self):
        return self.loc

    @functools.cached_property
    def stddev(self):
        return self.scale

    @functools.cached_property
    def variance(self):
        return self.scale ** 2

    @property
    def params(self):
        return {'loc': self.loc, 'scale': self.scale}

    @property
    def support(self):
        return 'real'

    def sample_n(self, n):
        # Reparameterised: loc + scale * eps, eps from numpy's global generator as Chainer's CPU path.
        eps = utils._host_noise(self.loc, numpy.random.standard_normal, (n,) + self.loc.shape)
        return self.loc + self.scale * eps


@distribution.register_kl(Normal, Normal)
def _kl_normal_normal(dist1, dist2):
    return (dist2.log_scale - dist1.log_scale
            + 0.5 * (dist1.variance + (dist1.loc - dist2.loc) ** 2) / dist2.variance - 0.5)
