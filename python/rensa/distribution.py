"""chainer.distribution: the Distribution base class and the KL divergence registry.

A distribution holds Variables as parameters; its statistics (``mean``, ``variance``,
``entropy``, ...) are properties and its ``log_prob``, ``cdf``, ... methods are built from
differentiable functions, so gradients flow to the parameters. ``kl_divergence(p, q)`` looks
up the function registered for ``(type(p), type(q))`` with ``register_kl``.
"""
import copy

from rensa import backend


def _undefined(name, doc):
    def method(self, *args):
        raise NotImplementedError(
            '{}.{} is not defined for this distribution'.format(type(self).__name__, name))
    method.__name__ = name
    method.__doc__ = doc + '\n\nA distribution that does not define it raises NotImplementedError.'
    return method


def _undefined_property(name, doc):
    return property(_undefined(name, doc))


_AT_X = """

Args:
    x (rensa.Variable or numpy.ndarray): Points in the domain of the distribution; they
        broadcast against ``batch_shape + event_shape``.

Returns:
    rensa.Variable: """


class Distribution(object):
    """The interface of Chainer's distributions: every statistic or method a subclass does
    not define raises NotImplementedError."""

    batch_shape = _undefined_property(
        'batch_shape', 'The shape of a batch of distributions: the leading dimensions of a sample that are '
        'independent but not identically distributed (a tuple).')
    event_shape = _undefined_property(
        'event_shape', 'The shape of one event: the trailing dimensions of a sample that are drawn jointly (a '
        'tuple, ``()`` for a univariate distribution).')
    covariance = _undefined_property(
        'covariance', 'The covariance matrix of each distribution of the batch, a Variable of shape '
        '``batch_shape + (d, d)``.')
    entropy = _undefined_property('entropy', 'The entropy of each distribution of the batch (a Variable).')
    mean = _undefined_property('mean', 'The mean of the distribution (a Variable).')
    mode = _undefined_property('mode', 'The mode of the distribution (a Variable).')
    params = _undefined_property(
        'params', 'The parameters of the distribution: a dict from parameter name to Variable.')
    stddev = _undefined_property('stddev', 'The standard deviation of the distribution (a Variable).')
    support = _undefined_property(
        'support', "The support of the distribution as a string, e.g. ``'real'``, ``'positive'`` or "
        "``'[0, 1]'``.")
    variance = _undefined_property('variance', 'The variance of the distribution (a Variable).')
    cdf = _undefined('cdf', 'Evaluates the cumulative distribution function at ``x``.' + _AT_X +
                     'the cumulative distribution function at ``x``.')
    icdf = _undefined('icdf', 'Evaluates the inverse cumulative distribution function (the quantile '
                      'function) at ``x``.' + _AT_X + 'the point whose cumulative probability is ``x``.')
    log_cdf = _undefined('log_cdf', 'Evaluates the logarithm of the cumulative distribution function at '
                         '``x``.' + _AT_X + 'the log of the cumulative distribution function at ``x``.')
    log_prob = _undefined('log_prob', 'Evaluates the logarithm of the probability (density or mass) at '
                          '``x``.' + _AT_X + 'the log-probability of ``x``.')
    log_survival_function = _undefined(
        'log_survival_function', 'Evaluates the logarithm of the survival function ``1 - cdf(x)`` at '
        '``x``.' + _AT_X + 'the log of the survival function at ``x``.')
    perplexity = _undefined('perplexity', 'Evaluates the perplexity function at ``x``.' + _AT_X +
                            'the perplexity at ``x``.')
    prob = _undefined('prob', 'Evaluates the probability (density or mass) at ``x``.' + _AT_X +
                      'the probability of ``x``.')
    sample_n = _undefined(
        'sample_n', 'Draws ``n`` samples, of shape ``(n,) + batch_shape + event_shape``.\n\n'
        'Args:\n    n (int): The number of samples.\n\nReturns:\n    rensa.Variable: The samples.')
    survival_function = _undefined(
        'survival_function', 'Evaluates the survival function ``1 - cdf(x)`` at ``x``.' + _AT_X +
        'the survival function at ``x``.')

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
        """The array module (numpy, or rensa's device array module) of the parameters."""
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
