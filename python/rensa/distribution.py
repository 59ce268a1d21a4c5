"""chainer.distribution: the Distribution base class and the KL divergence registry.

A distribution holds Variables as parameters; its statistics (``mean``, ``variance``,
``entropy``, ...) are properties and its ``log_prob``, ``cdf``, ... methods are built from
differentiable functions, so gradients flow to the parameters. ``kl_divergence(p, q)`` looks
up the function registered for ``(type(p), type(q))`` with ``register_kl``.
"""
import copy

from rensa import backend


def _undefined(name):
    def method(self, *args):
        raise NotImplementedError(
            '{}.{} is not defined for this distribution'.format(type(self).__name__, name))
    method.__name__ = name
    return method


def _undefined_property(name):
    return property(_undefined(name))


class Distribution(object):
    """The interface of Chainer's distributions: every statistic or method a subclass does
    not define raises NotImplementedError."""

    batch_shape = _undefined_property('batch_shape')
    event_shape = _undefined_property('event_shape')
    covariance = _undefined_property('covariance')
    entropy = _undefined_property('entropy')
    mean = _undefined_property('mean')
    mode = _undefined_property('mode')
    params = _undefined_property('params')
    stddev = _undefined_property('stddev')
    support = _undefined_property('support')
    variance = _undefined_property('variance')
    cdf = _undefined('cdf')
    icdf = _undefined('icdf')
    log_cdf = _undefined('log_cdf')
    log_prob = _undefined('log_prob')
    log_survival_function = _undefined('log_survival_function')
    perplexity = _undefined('perplexity')
    prob = _undefined('prob')
    sample_n = _undefined('sample_n')
    survival_function = _undefined('survival_function')

    def _copy_to(self, target):
        target.__dict__ = copy.copy(self.__dict__)
        return target

    def sample(self, sample_shape=()):
        """Samples of shape ``sample_shape + batch_shape + event_shape`` (an int counts as
        ``(n,)``), drawn by ``sample_n``."""
        if isinstance(sample_shape, int):
            sample_shape = (sample_shape,)
        sample_shape = tuple(sample_shape)
        n = 1
        for extent in sample_shape:
            n *= extent
        samples = self.sample_n(n)
        return samples.reshape(sample_shape + tuple(self.batch_shape) + tuple(self.event_shape))

    @property
    def xp(self):
        return backend.get_array_module(*self.params.values())


_KLDIVERGENCE = {}


def register_kl(Dist1, Dist2):
    """Decorator registering ``kl(dist1, dist2)`` as the KL divergence of a Dist1 from a
    Dist2; returns the function unchanged."""
    def register(kl):
        _KLDIVERGENCE[Dist1, Dist2] = kl
        return kl
    return register


def kl_divergence(dist1, dist2):
    """KL(dist1 || dist2), elementwise over the batch shape. NotImplementedError when no
    function is registered for the pair of types."""
    key = (type(dist1), type(dist2))
    if key not in _KLDIVERGENCE:
        raise NotImplementedError(
            'kl_divergence: Expect: a KL divergence registered for ({}, {}), Actual: none '
            '(register one with register_kl)'.format(key[0].__name__, key[1].__name__))
    return _KLDIVERGENCE[key](dist1, dist2)


def cross_entropy(dist1, dist2):
    """H(dist1, dist2) = entropy(dist1) + KL(dist1 || dist2)."""
    return dist1.entropy + kl_divergence(dist1, dist2)
