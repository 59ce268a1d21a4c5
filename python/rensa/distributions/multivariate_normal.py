"""MultivariateNormal (chainer.distributions.MultivariateNormal), parameterised by the
location and the lower-triangular Cholesky factor of the covariance."""
# Note [Triangular solves in MultivariateNormal]: Chainer inverts scale_tril with a
# FunctionNode over scipy's solve_triangular. Here log_prob and the KL divergence solve
# L y = b by forward substitution written with differentiable functions (one row per step,
# d steps for d event dimensions): no inverse is formed, it runs on every device, batch
# dimensions broadcast, and double backprop comes for free.
import functools
import math

import numpy

import rensa
from rensa import distribution
from rensa import functions as F
from rensa.distributions import utils

ENTROPYC = 0.5 * math.log(2 * math.pi * math.e)
LOGPROBC = -0.5 * math.log(2 * math.pi)


def _solve_tril(lower, b):
    """y with lower @ y = b for lower (..., d, d) lower-triangular and b (..., d, k); the
    leading dimensions broadcast. See Note [Triangular solves in MultivariateNormal]."""
    d = lower.shape[-1]
    rows = []
    for i in range(d):
        r = b[..., i, :]
        if i:
            done = F.stack(rows, axis=-2)  # (..., i, k)
            r = r - F.sum(F.expand_dims(lower[..., i, :i], -1) * done, axis=-2)
        rows.append(r / F.expand_dims(lower[..., i, i], -1))
    return F.stack(rows, axis=-2)


def _triangular_logdet(lower):
    eye = utils._send_like(lower, numpy.eye(lower.shape[-1], dtype=lower.dtype))
    diag = F.sum(lower * F.broadcast_to(eye, lower.shape), axis=-1)
    return F.sum(F.log(abs(diag)), axis=-1)


class MultivariateNormal(distribution.Distribution):
    """MultivariateNormal(loc, scale_tril=...): loc (..., d), scale_tril (..., d, d)."""

    def __init__(self, loc, **kwargs):
        scale_tril = kwargs.pop('scale_tril', None)
        if kwargs:
            raise TypeError('MultivariateNormal: unexpected keyword arguments: {}'.format(', '.join(sorted(kwargs))))
        if scale_tril is None:
            raise ValueError('`scale_tril` must have a value.')
        self.__loc = loc
        self.__scale_tril = scale_tril

    @functools.cached_property
    def loc(self):
        return rensa.as_variable(self.__loc)

    @functools.cached_property
    def scale_tril(self):
        return rensa.as_variable(self.__scale_tril)

    @functools.cached_property
    def _logdet_scale(self):
        return _triangular_logdet(self.scale_tril)

    @property
    def d(self):
        """The event dimension ``d``: the size of the last axis of ``scale_tril``."""
        return self.scale_tril.shape[-1]

    def __copy__(self):
        return self._copy_to(MultivariateNormal(self.loc, scale_tril=self.scale_tril))

    @property
    def batch_shape(self):
        return self.loc.shape[:-1]

    @property
    def event_shape(self):
        return self.loc.shape[-1:]

    def log_prob(self, x):
        diff = F.expand_dims(x - self.loc, -1)
        m = F.sum(_solve_tril(self.scale_tril, diff) ** 2, axis=(-1, -2))
        return (LOGPROBC * self.d - self._logdet_scale) - 0.5 * m

    @functools.cached_property
    def entropy(self):
        return self._logdet_scale + ENTROPYC * self.d

    @functools.cached_property
    def mean(self):
        return self.loc

    @property
    def covariance(self):
        lower = self.scale_tril
        return F.sum(F.expand_dims(lower, -2) * F.expand_dims(lower, -3), axis=-1)

    @property
    def params(self):
        return {'loc': self.loc, 'scale_tril': self.scale_tril}

    @property
    def support(self):
        return 'real'

    def sample_n(self, n):
        eps = utils._host_noise(self.loc, numpy.random.standard_normal, (n,) + self.loc.shape)
        eps = F.expand_dims(rensa.as_variable(eps), -2)  # (n, ..., 1, d)
        return self.loc + F.sum(self.scale_tril * eps, axis=-1)


@distribution.register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(dist1, dist2):
    trace = F.sum(_solve_tril(dist2.scale_tril, dist1.scale_tril) ** 2, axis=(-1, -2))
    mu = F.expand_dims(dist1.loc - dist2.loc, -1)
    mah = F.sum(_solve_tril(dist2.scale_tril, mu) ** 2, axis=(-1, -2))
    return dist2._logdet_scale - dist1._logdet_scale + 0.5 * trace + 0.5 * mah - 0.5 * dist1.d
