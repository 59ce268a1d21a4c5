"""Gamma distribution (chainer.distributions.Gamma) with shape k and scale theta."""
import functools

import numpy

import rensa
from rensa import distribution
from rensa import functions as F
from rensa.distributions import utils


class Gamma(distribution.Distribution):
    """Gamma(k, theta)."""

    def __init__(self, k, theta):
        self.__k = k
        self.__theta = theta

    @functools.cached_property
    def k(self):
        return rensa.as_variable(self.__k)

    @functools.cached_property
    def theta(self):
        return rensa.as_variable(self.__theta)

    @property
    def batch_shape(self):
        return self.k.shape

    @property
    def event_shape(self):
        return ()

    def log_prob(self, x):
        x = rensa.as_variable(x)
        logp = -F.lgamma(self.k) - self.k * F.log(self.theta) + (self.k - 1) * F.log(x) - x / self.theta
        inside = numpy.broadcast_to(utils._host_array(x) >= 0, logp.shape)
        return F.where(utils._send_like(logp, inside.copy()), logp, utils._full_like(logp, -numpy.inf))

    @functools.cached_property
    def entropy(self):
        return self.k + F.log(self.theta) + F.lgamma(self.k) + (1 - self.k) * F.digamma(self.k)

    @functools.cached_property
    def mean(self):
        return self.k * self.theta

    @functools.cached_property
    def variance(self):
        return self.mean * self.theta

    @property
    def params(self):
        return {'k': self.k, 'theta': self.theta}

    @property
    def support(self):
        return 'positive'

    def sample_n(self, n):
        k = utils._host_array(self.k)
        eps = numpy.random.gamma(k, size=(n,) + self.batch_shape).astype(self.k.dtype)
        eps = utils._send_like(self.k, eps)
        return F.broadcast_to(self.theta, eps.shape) * eps


@distribution.register_kl(Gamma, Gamma)
def _kl_gamma_gamma(dist1, dist2):
    return ((dist1.k - dist2.k) * F.digamma(dist1.k) - (F.lgamma(dist1.k) - F.lgamma(dist2.k))
            + dist2.k * (F.log(dist2.theta) - F.log(dist1.theta)) + dist1.k * (dist1.theta / dist2.theta - 1))
