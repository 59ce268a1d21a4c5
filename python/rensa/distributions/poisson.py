"""Poisson distribution (chainer.distributions.Poisson)."""
import functools

import numpy

import rensa
from rensa import distribution
from rensa import functions as F
from rensa.distributions import utils


class Poisson(distribution.Distribution):
    """Poisson(lam)."""

    def __init__(self, lam):
        self.__lam = lam

    @functools.cached_property
    def lam(self):
        return rensa.as_variable(self.__lam)

    @functools.cached_property
    def _log_lam(self):
        return F.log(self.lam)

    @property
    def batch_shape(self):
        return self.lam.shape

    @property
    def event_shape(self):
        return ()

    def log_prob(self, x):
        """x log(lam) - lgamma(x + 1) - lam, x (counts) held constant."""
        x = utils._host_array(x).astype(self.lam.dtype)
        xp1 = utils._send_like(self.lam, x + 1)
        x = utils._send_like(self.lam, x)
        return x * self._log_lam - F.lgamma(xp1) - self.lam

    @functools.cached_property
    def mean(self):
        return self.lam

    @functools.cached_property
    def variance(self):
        return self.lam

    @property
    def params(self):
        return {'lam': self.lam}

    @property
    def support(self):
        return 'non negative integer'

    def sample_n(self, n):
        lam = utils._host_array(self.lam)
        eps = numpy.random.poisson(lam, size=(n,) + self.batch_shape).astype(numpy.float32)
        return rensa.Variable(utils._send_like(self.lam, eps))


@distribution.register_kl(Poisson, Poisson)
def _kl_poisson_poisson(dist1, dist2):
    return dist1.lam * (dist1._log_lam - dist2._log_lam) - dist1.lam + dist2.lam
