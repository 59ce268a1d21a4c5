"""Independent (chainer.distributions.Independent): the rightmost batch dimensions of a
distribution reinterpreted as event dimensions; log_prob and entropy sum over them."""
import functools

import numpy

from rensa import distribution
from rensa import functions as F
from rensa.distributions import utils


class Independent(distribution.Distribution):
    """Independent(distribution, reinterpreted_batch_ndims=None); None reinterprets all batch
    dimensions but the first."""

    def __init__(self, distribution, reinterpreted_batch_ndims=None):
        batch_shape = tuple(distribution.batch_shape)
        if reinterpreted_batch_ndims is None:
            reinterpreted_batch_ndims = max(0, len(batch_shape) - 1)
        elif reinterpreted_batch_ndims > len(batch_shape):
            raise ValueError('reinterpreted_batch_ndims must be less than or equal to the '
                             'number of dimensions of `distribution.batch_shape`.')
        self.__distribution = distribution
        self.__ndims = reinterpreted_batch_ndims
        batch_ndim = len(batch_shape) - reinterpreted_batch_ndims
        self.__batch_shape = batch_shape[:batch_ndim]
        self.__event_shape = batch_shape[batch_ndim:] + tuple(distribution.event_shape)

    @property
    def distribution(self):
        """The base distribution whose batch dimensions are reinterpreted."""
        return self.__distribution

    @property
    def reinterpreted_batch_ndims(self):
        """How many of the base distribution's rightmost batch dimensions are event dimensions here."""
        return self.__ndims

    @property
    def batch_shape(self):
        return self.__batch_shape

    @property
    def event_shape(self):
        return self.__event_shape

    def _reduce(self, op, stat):
        if self.__ndims == 0:
            return stat
        return op(stat, axis=tuple(range(-self.__ndims, 0)))

    @property
    def entropy(self):
        return self._reduce(F.sum, self.distribution.entropy)

    def cdf(self, x):
        return self._reduce(F.prod, self.distribution.cdf(x))

    def icdf(self, x):
        raise RuntimeError('Cumulative distribution function for multivariate variable is not invertible.')

    def log_cdf(self, x):
        return self._reduce(F.sum, self.distribution.log_cdf(x))

    def log_prob(self, x):
        return self._reduce(F.sum, self.distribution.log_prob(x))

    def log_survival_function(self, x):
        return self._reduce(F.sum, self.distribution.log_survival_function(x))

    def prob(self, x):
        return self._reduce(F.prod, self.distribution.prob(x))

    def perplexity(self, x):
        return self._reduce(F.prod, self.distribution.perplexity(x))

    def survival_function(self, x):
        return self._reduce(F.prod, self.distribution.survival_function(x))

    def sample_n(self, n):
        return self.distribution.sample_n(n)

    @property
    def mean(self):
        return self.distribution.mean

    @property
    def mode(self):
        return self.distribution.mode

    @property
    def stddev(self):
        return self.distribution.stddev

    @property
    def variance(self):
        return self.distribution.variance

    @property
    def params(self):
        return self.distribution.params

    @property
    def support(self):
        return self.distribution.support

    @property
    def xp(self):
        return self.distribution.xp

    @functools.cached_property
    def covariance(self):
        """Block-diagonal: the base covariance (event_shape (dim,)) repeated for each
        reinterpreted batch element."""
        base_batch = tuple(self.distribution.batch_shape)
        n_repeats = int(numpy.prod(base_batch[len(base_batch) - self.__ndims:], dtype=numpy.int64))
        dim = int(numpy.prod(tuple(self.distribution.event_shape), dtype=numpy.int64))
        cov = F.reshape(self.distribution.covariance, self.batch_shape + (1, n_repeats, dim, dim))
        cov = F.repeat(cov, n_repeats, axis=-4)
        nb = len(self.batch_shape)
        cov = F.transpose(cov, tuple(range(nb)) + (nb + 0, nb + 2, nb + 1, nb + 3))
        cov = F.reshape(cov, self.batch_shape + (n_repeats * dim, n_repeats * dim))
        i = numpy.arange(n_repeats * dim)
        block = (i[:, None] // dim == i[None, :] // dim).astype(cov.dtype)
        return cov * utils._send_like(cov, numpy.broadcast_to(block, cov.shape).copy())


@distribution.register_kl(Independent, Independent)
def _kl_independent_independent(dist1, dist2):
    p, q = dist1.distribution, dist2.distribution
    if dist1.event_shape != dist2.event_shape:
        raise ValueError('Event shapes do not match.')
    if p.event_shape != q.event_shape:
        raise NotImplementedError('KL between Independents with different event shapes not supported.')
    n_axes = len(dist1.event_shape) - len(p.event_shape)
    kl = distribution.kl_divergence(p, q)
    if n_axes == 0:
        return kl
    return F.sum(kl, axis=tuple(-i - 1 for i in range(n_axes)))
