"""Categorical distribution (chainer.distributions.Categorical) over the last axis."""
import functools

import numpy

import rensa
from rensa import distribution
from rensa import functions as F
from rensa.distributions import utils


class Categorical(distribution.Distribution):
    """Categorical(p) or Categorical(logit=...): probabilities (or logits) on the last axis."""

    def __init__(self, p=None, **kwargs):
        logit = kwargs.pop('logit', None)
        if kwargs:
            raise TypeError('Categorical: unexpected keyword arguments: {}'.format(', '.join(sorted(kwargs))))
        if not (p is None) ^ (logit is None):
            raise ValueError('Either `p` or `logit` (not both) must have a value.')
        self.__p = p
        self.__logit = logit

    @functools.cached_property
    def p(self):
        if self.__p is not None:
            return rensa.as_variable(self.__p)
        return F.exp(self.log_p)

    @functools.cached_property
    def log_p(self):
        if self.__p is not None:
            return F.log(self.__p)
        return F.log_softmax(rensa.as_variable(self.__logit), axis=-1)

    @property
    def batch_shape(self):
        return self.p.shape[:-1]

    @property
    def event_shape(self):
        return ()

    @functools.cached_property
    def entropy(self):
        return -F.sum(utils._modified_xlogx(self.p), axis=-1)

    def log_prob(self, x):
        """log p[..., x] for integer x of shape sample_shape + batch_shape."""
        x = utils._host_array(x).astype(numpy.int32)
        k = self.p.shape[-1]
        log_p = F.broadcast_to(self.log_p, x.shape + (k,)).reshape(-1, k)
        t = utils._send_like(self.p, x.reshape(-1))
        return F.select_item(log_p, t).reshape(x.shape)

    @property
    def params(self):
        return {'p': self.p}

    def sample_n(self, n):
        p = utils._host_array(self.p)
        rows = p.reshape(-1, p.shape[-1])
        eps = [numpy.random.choice(row.shape[0], size=(n,), p=row) for row in rows]
        eps = numpy.vstack(eps).T.reshape((n,) + self.batch_shape) if eps else numpy.zeros((n,) + self.batch_shape)
        return rensa.Variable(utils._send_like(self.p, eps.astype(numpy.int32)))


@distribution.register_kl(Categorical, Categorical)
def _kl_categorical_categorical(dist1, dist2):
    return F.sum(dist1.p * (dist1.log_p - dist2.log_p), axis=-1)
