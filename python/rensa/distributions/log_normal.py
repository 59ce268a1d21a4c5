"""LogNormal distribution (chainer.distributions.LogNormal): log(x) ~ Normal(mu, sigma)."""
import functools
import math

import numpy

import rensa
from rensa import distribution
from rensa import functions as F
from rensa.distributions import utils

LOGPROBC = -0.5 * math.log(2 * math.pi)


class LogNormal(distribution.Distribution):
    """LogNormal(mu, sigma)."""

    def __init__(self, mu, sigma):
        self.__mu = mu
        self.__sigma = sigma

    @functools.cached_property
    def mu(self):
        return rensa.as_variable(self.__mu)

    @functools.cached_property
    def sigma(self):
        return rensa.as_variable(self.__sigma)

    @functools.cached_property
    def _log_sigma(self):
        return F.log(self.sigma)

    @property
    def batch_shape(self):
        return self.mu.shape

    @property
    def event_shape(self):
        return ()

    def log_prob(self, x):
        logx = F.log(rensa.as_variable(x))
        return LOGPROBC - self._log_sigma - logx - 0.5 * (logx - self.mu) ** 2 / self.sigma ** 2

    @functools.cached_property
    def entropy(self):
        return 0.5 - LOGPROBC + self._log_sigma + self.mu

    @functools.cached_property
    def mean(self):
        return F.exp(self.mu + 0.5 * self.sigma ** 2)

    @functools.cached_property
    def variance(self):
        return F.exp(2 * self.mu + self.sigma ** 2) * (F.exp(self.sigma ** 2) - 1)

    @property
    def params(self):
        return {'mu': self.mu, 'sigma': self.sigma}

    @property
    def support(self):
        return 'positive'

    def sample_n(self, n):
        eps = utils._host_noise(self.mu, numpy.random.standard_normal, (n,) + self.mu.shape)
        return F.exp(self.mu + self.sigma * eps)


@distribution.register_kl(LogNormal, LogNormal)
def _kl_log_normal_log_normal(dist1, dist2):
    return (0.5 * ((dist1.mu - dist2.mu) ** 2 + dist1.sigma ** 2) / dist2.sigma ** 2 - 0.5
            + dist2._log_sigma - dist1._log_sigma)
