"""Beta distribution (chainer.distributions.Beta) on [0, 1]."""
import functools

import numpy

import rensa
from rensa import distribution
from rensa import functions as F
from rensa.distributions import utils


def _lbeta(a, b):
    return F.lgamma(a) + F.lgamma(b) - F.lgamma(a + b)


class Beta(distribution.Distribution):
    """Beta(a, b)."""

    def __init__(self, a, b):
        self.__a = a
        self.__b = b

    @functools.cached_property
    def a(self):
        return rensa.as_variable(self.__a)

    @functools.cached_property
    def b(self):
        return rensa.as_variable(self.__b)

    @functools.cached_property
    def _a_plus_b(self):
        return self.a + self.b

    @property
    def batch_shape(self):
        return self.a.shape

    @property
    def event_shape(self):
        return ()

    def log_prob(self, x):
        x = rensa.as_variable(x)
        logp = (self.a - 1) * F.log(x) + (self.b - 1) * F.log(1 - x) - _lbeta(self.a, self.b)
        inside = (x.array >= 0) & (x.array <= 1)
        return F.where(inside, logp, utils._full_like(logp, -numpy.inf))

    @functools.cached_property
    def entropy(self):
        apb = self._a_plus_b
        return (_lbeta(self.a, self.b) - (self.a - 1) * F.digamma(self.a) - (self.b - 1) * F.digamma(self.b)
                + (apb - 2) * F.digamma(apb))

    @functools.cached_property
    def mean(self):
        return self.a / self._a_plus_b

    @functools.cached_property
    def variance(self):
        apb = self._a_plus_b
        return self.a * self.b / apb ** 2 / (apb + 1)

    @property
    def params(self):
        return {'a': self.a, 'b': self.b}

    @property
    def support(self):
        return '[0, 1]'

    def sample_n(self, n):
        a, b = utils._host_array(self.a), utils._host_array(self.b)
        eps = numpy.random.beta(a, b, size=(n,) + self.a.shape).astype(self.a.dtype)
        return rensa.Variable(utils._send_like(self.a, eps))


@distribution.register_kl(Beta, Beta)
def _kl_beta_beta(dist1, dist2):
    return (-_lbeta(dist1.a, dist1.b) + _lbeta(dist2.a, dist2.b)
            + (dist1.a - dist2.a) * F.digamma(dist1.a) + (dist1.b - dist2.b) * F.digamma(dist1.b)
            + (dist2._a_plus_b - dist1._a_plus_b) * F.digamma(dist1._a_plus_b))
