"""Dirichlet distribution (chainer.distributions.Dirichlet), concentration on the last axis."""
import functools

import numpy

import rensa
from rensa import distribution
from rensa import functions as F
from rensa.distributions import utils


def _lbeta(x):
    return F.sum(F.lgamma(x), axis=-1) - F.lgamma(F.sum(x, axis=-1))


class Dirichlet(distribution.Distribution):
    """Dirichlet(alpha): event_shape alpha.shape[-1:]."""

    def __init__(self, alpha):
        self.__alpha = alpha

    @functools.cached_property
    def alpha(self):
        return rensa.as_variable(self.__alpha)

    @functools.cached_property
    def alpha0(self):
        return F.sum(self.alpha, axis=-1)

    @property
    def batch_shape(self):
        return self.alpha.shape[:-1]

    @property
    def event_shape(self):
        return self.alpha.shape[-1:]

    def log_prob(self, x):
        return -_lbeta(self.alpha) + F.sum((self.alpha - 1) * F.log(x), axis=-1)

    @functools.cached_property
    def entropy(self):
        k = self.event_shape[0]
        return (_lbeta(self.alpha) + (self.alpha0 - k) * F.digamma(self.alpha0)
                - F.sum((self.alpha - 1) * F.digamma(self.alpha), axis=-1))

    @functools.cached_property
    def mean(self):
        return self.alpha / F.expand_dims(self.alpha0, axis=-1)

    @functools.cached_property
    def variance(self):
        alpha0 = F.expand_dims(self.alpha0, axis=-1)
        return self.alpha * (alpha0 - self.alpha) / alpha0 ** 2 / (alpha0 + 1)

    @property
    def params(self):
        return {'alpha': self.alpha}

    @property
    def support(self):
        return '[0, 1]'

    def sample_n(self, n):
        alpha = utils._host_array(self.alpha)
        rows = alpha.reshape(-1, alpha.shape[-1])
        eps = numpy.stack([numpy.random.dirichlet(row, size=(n,)) for row in rows], axis=1)
        eps = eps.reshape((n,) + alpha.shape).astype(self.alpha.dtype)
        return rensa.Variable(utils._send_like(self.alpha, eps))


@distribution.register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(dist1, dist2):
    digamma0 = F.expand_dims(F.digamma(dist1.alpha0), axis=-1)
    return (-_lbeta(dist1.alpha) + _lbeta(dist2.alpha)
            + F.sum((dist1.alpha - dist2.alpha) * (F.digamma(dist1.alpha) - digamma0), axis=-1))
