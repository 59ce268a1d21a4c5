"""Uniform distribution (chainer.distributions.Uniform) on [low, high]."""
import functools

import numpy

import rensa
from rensa import distribution
from rensa import functions as F
from rensa.distributions import utils


class Uniform(distribution.Distribution):
    """Uniform(low=..., high=...) or Uniform(loc=..., scale=...) (high = loc + scale)."""

    def __init__(self, **kwargs):
        low, high = kwargs.pop('low', None), kwargs.pop('high', None)
        loc, scale = kwargs.pop('loc', None), kwargs.pop('scale', None)
        if kwargs:
            raise TypeError('Uniform: unexpected keyword arguments: {}'.format(', '.join(sorted(kwargs))))
        self._use_low_high = low is not None and high is not None
        self._use_loc_scale = loc is not None and scale is not None
        if not (self._use_low_high ^ self._use_loc_scale):
            raise ValueError('Either `low, high` or `loc, scale` (not both) must have a value.')
        self.__low, self.__high, self.__loc, self.__scale = low, high, loc, scale

    @functools.cached_property
    def low(self):
        return rensa.as_variable(self.__low) if self._use_low_high else self.loc

    @functools.cached_property
    def high(self):
        return rensa.as_variable(self.__high) if self._use_low_high else self.loc + self.scale

    @functools.cached_property
    def loc(self):
        return rensa.as_variable(self.__loc) if self._use_loc_scale else self.low

    @functools.cached_property
    def scale(self):
        return rensa.as_variable(self.__scale) if self._use_loc_scale else self.high - self.low

    @property
    def batch_shape(self):
        return self.low.shape

    @property
    def event_shape(self):
        return ()

    def cdf(self, x):
        return F.clip((x - self.loc) / self.scale, 0., 1.)

    def icdf(self, x):
        return x * self.scale + self.loc

    def log_prob(self, x):
        x = rensa.as_variable(x)
        logp = F.broadcast_to(-F.log(self.scale), x.shape)
        inside = (x.array >= self.low.array) & (x.array <= self.high.array)
        return F.where(inside, logp, utils._full_like(logp, -numpy.inf))

    @functools.cached_property
    def entropy(self):
        return F.log(self.scale)

    @functools.cached_property
    def mean(self):
        return (self.high + self.low) / 2

    @functools.cached_property
    def variance(self):
        return self.scale ** 2 / 12

    @functools.cached_property
    def stddev(self):
        return F.sqrt(self.variance)

    @property
    def params(self):
        if self._use_low_high:
            return {'low': self.low, 'high': self.high}
        return {'loc': self.loc, 'scale': self.scale}

    @property
    def support(self):
        return '[low, high]'

    def sample_n(self, n):
        eps = utils._host_noise(self.low, lambda shape: numpy.random.uniform(0, 1, shape), (n,) + self.low.shape)
        return self.icdf(eps)


@distribution.register_kl(Uniform, Uniform)
def _kl_uniform_uniform(dist1, dist2):
    outside = (dist1.high.array > dist2.high.array) | (dist1.low.array < dist2.low.array)
    kl = -F.log(dist1.high - dist1.low) + F.log(dist2.high - dist2.low)
    return F.where(outside, utils._full_like(kl, numpy.inf), kl)
