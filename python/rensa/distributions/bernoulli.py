"""Bernoulli distribution (chainer.distributions.Bernoulli)."""
import functools

import numpy

import rensa
from rensa import distribution
from rensa import functions as F
from rensa.distributions import utils


def _bernoulli_log_prob(logit, x, binary_check):
    """x * logit - softplus(logit) = logit * (x - 1) - log(1 + exp(-logit)), x held constant;
    the gradient for logit is x - sigmoid(logit). Infinite logits give log(x) or log(1 - x),
    and with binary_check an x outside {0, 1} gives -inf, as Chainer; those entries pass no
    gradient (Chainer's is NaN there)."""
    xa = x.array if isinstance(x, rensa.Variable) else x
    if not hasattr(xa, 'astype') or isinstance(xa, numpy.generic):
        xa = numpy.asarray(xa)
    if isinstance(xa, numpy.ndarray):
        xa = utils._send_like(logit, xa)
    xa = xa.astype(logit.dtype)
    y = logit * (xa - 1) - F.softplus(-logit)
    la = numpy.broadcast_to(utils._host_array(logit), y.shape)
    xh = numpy.broadcast_to(utils._host_array(xa), y.shape)
    replaced = numpy.isinf(la)
    invalid = ((xh != 0) & (xh != 1)) if binary_check else numpy.zeros(y.shape, bool)
    if not (replaced.any() or invalid.any()):
        return y
    with numpy.errstate(divide='ignore', invalid='ignore'):
        special = numpy.where(la > 0, numpy.log(xh), numpy.log(1 - xh))
    special = numpy.where(invalid, -numpy.inf, special).astype(logit.dtype)
    return F.where(utils._send_like(logit, replaced | invalid), utils._send_like(logit, special), y)


class Bernoulli(distribution.Distribution):
    """Bernoulli(p=...) or Bernoulli(logit=...): exactly one of the two."""

    def __init__(self, p=None, logit=None, binary_check=False):
        if not (p is None) ^ (logit is None):
            raise ValueError('Either `p` or `logit` (not both) must have a value.')
        self.__p = p
        self.__logit = logit
        self.binary_check = binary_check

    @functools.cached_property
    def p(self):
        if self.__p is not None:
            return rensa.as_variable(self.__p)
        return F.sigmoid(self.logit)

    @functools.cached_property
    def logit(self):
        if self.__logit is not None:
            return rensa.as_variable(self.__logit)
        return F.log(self.p) - F.log1p(-self.p)

    @property
    def batch_shape(self):
        return self.p.shape

    @property
    def event_shape(self):
        return ()

    @property
    def entropy(self):
        p = self.p
        return -utils._modified_xlogx(p) - utils._modified_xlogx(1. - p)

    def log_prob(self, x):
        return _bernoulli_log_prob(self.logit, x, self.binary_check)

    def prob(self, x):
        x = rensa.as_variable(x)
        prob = x * self.p + (1 - x) * (1 - self.p)
        if self.binary_check:
            valid = (x.array == 0) | (x.array == 1)
            prob = prob * valid.astype(prob.dtype)
        return prob

    @functools.cached_property
    def mean(self):
        return self.p

    @functools.cached_property
    def variance(self):
        return self.p * (1 - self.p)

    @functools.cached_property
    def stddev(self):
        return self.variance ** 0.5

    @property
    def params(self):
        return {'logit': self.logit}

    @property
    def support(self):
        return '{0, 1}'

    def sample_n(self, n):
        p = utils._host_array(self.p)
        eps = numpy.random.binomial(1, p, size=(n,) + self.p.shape)
        return rensa.Variable(utils._send_like(self.p, eps))


@distribution.register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(dist1, dist2):
    return ((dist1.logit - dist2.logit) * (dist1.p - 1.)
            - F.softplus(-dist1.logit) + F.softplus(-dist2.logit))
