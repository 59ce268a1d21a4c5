"""SpectralNormalization and WeightStandardization (chainer.link_hooks): link hooks that put
a weight computed from the link's parameter in its place for one forward.

Chainer assigns the computed Variable to the link's attribute and puts the Parameter back
after the forward. rensa's links read their parameters in C++, so the hooks swap the
registered parameter itself (``Link._replace_param``: the computed Variable stands in for
the parameter, gradients flow through it into the parameter) and restore it after the
forward, also when the forward raises.
"""
import numpy

import rensa
from rensa import _core
from rensa import functions as F
from rensa.link_hook import LinkHook

_DECONVOLUTIONS = ('Deconvolution2D', 'DeconvolutionND')


class _WeightHook(LinkHook):
    """What both hooks share: the swap around the forward, one link per hook."""

    weight_name = 'W'

    def __enter__(self):
        raise NotImplementedError('{} is added to a link (link.add_hook), not used as a context manager'.format(
            type(self).__name__))

    def __exit__(self, *_):
        raise NotImplementedError

    def _check_weight(self, link):
        if link is None:
            raise NotImplementedError('{} is added to a link, not registered globally'.format(type(self).__name__))
        names = [name for name, _ in link._own_params()]
        if self.weight_name not in names:
            raise ValueError("{}: weight '{}' does not exist in {} (its parameters: {})".format(
                type(self).__name__, self.weight_name, type(link).__name__, names))

    def _weight(self, link, cb_args):
        weight = getattr(link, self.weight_name)
        if weight.array is None:  # a lazy Linear: its input fixes the shape, as its forward would
            x = cb_args.args[0] if cb_args.args else None
            if type(link).__name__ != 'Linear' or x is None:
                raise NotImplementedError(
                    '{}: the weight {!r} of this {} is not initialised yet; give the link its input size or run '
                    'one forward before adding the hook'.format(type(self).__name__, self.weight_name,
                                                                type(link).__name__))
            weight.initialize((link.out_size, int(numpy.prod(x.shape[1:]))))
        return weight

    def forward_preprocess(self, cb_args):
        link = cb_args.link
        weight = self._weight(link, cb_args)
        self._prepare(link, weight)
        self.original_weight = link._replace_param(self.weight_name, self.normalize_weight(link, weight))

    def forward_postprocess(self, cb_args):
        cb_args.link._restore_param(self.weight_name, self.original_weight)
        self.original_weight = None

    def _prepare(self, link, weight):
        pass


def _l2normalize(v, eps):
    return v / (numpy.linalg.norm(v) + eps)


class SpectralNormalization(_WeightHook):
    """Divides the weight by its largest singular value, estimated by power iteration (the
    first left singular vector is the persistent ``<weight_name>_u`` of the link)."""

    name = 'SpectralNormalization'

    def __init__(self, n_power_iteration=1, eps=1e-6, use_gamma=False, factor=None, weight_name='W', name=None):
        if n_power_iteration < 1:
            raise ValueError('SpectralNormalization: n_power_iteration must be positive, got {}'.format(
                n_power_iteration))
        self.n_power_iteration = n_power_iteration
        self.eps = eps
        self.use_gamma = use_gamma
        self.factor = factor
        self.weight_name = weight_name
        self.vector_name = weight_name + '_u'
        self._initialized = False
        self.axis = 0
        self.v = None
        if name is not None:
            self.name = name

    def added(self, link):
        self._check_weight(link)
        if type(link).__name__ in _DECONVOLUTIONS:
            self.axis = 1
        weight = getattr(link, self.weight_name)
        if weight.array is not None:
            self._prepare(link, weight)

    def deleted(self, link):
        # Chainer also deletes u (and gamma) here; rensa's registries cannot drop an entry
        # yet, so they stay on the link, and a hook added again takes them up.
        pass

    def _prepare(self, link, weight):
        if self._initialized:
            return
        if weight.shape[self.axis] == 0:
            raise ValueError('SpectralNormalization: expected {}.shape[{}] > 0, got shape {}'.format(
                self.weight_name, self.axis, weight.shape))
        persistents = dict(link._own_persistents())
        if persistents.get(self.vector_name) is None:
            u = numpy.random.normal(size=(weight.shape[self.axis],)).astype(weight.dtype)
            link._add_persistent(self.vector_name, u)
        if self.use_gamma and 'gamma' not in dict(link._own_params()):
            s = numpy.linalg.svd(self.reshape_W(weight.array), compute_uv=False)
            link._add_param('gamma', (), weight.dtype, None)
            link.gamma.array[...] = s[0]
        self._initialized = True

    def reshape_W(self, W):
        """W as a 2-D matrix with the output axis first."""
        if self.axis != 0:
            W = W.transpose([self.axis] + [i for i in range(W.ndim) if i != self.axis])
        return W if W.ndim == 2 else W.reshape(W.shape[0], -1)

    def normalize_weight(self, link, W):
        """The weight ``W`` (a Variable) divided by its estimated largest singular value
        ``sigma`` (divided by ``factor`` when given), scaled by ``link.gamma`` when
        ``use_gamma``. ``n_power_iteration`` steps refine the vector ``u``, which is stored
        back on the link only in training."""
        u = getattr(link, self.vector_name)
        matrix = self.reshape_W(W)
        m = matrix.array
        uu = u
        for _ in range(self.n_power_iteration):
            v = _l2normalize(uu @ m, self.eps)
            uu = _l2normalize(m @ v, self.eps)
        sigma = F.sum(F.matmul(matrix, v.reshape(-1, 1).astype(m.dtype)) * uu.reshape(-1, 1).astype(m.dtype))
        if self.factor is not None:
            sigma = sigma / self.factor
        W = F.broadcast_to(link.gamma, W.shape) * W if self.use_gamma else W
        W = W / F.broadcast_to(sigma, W.shape)
        self.v = v
        if rensa.config.train:
            u[...] = uu
        return W


class WeightStandardization(_WeightHook):
    """Standardises the weight per output unit: zero mean, unit variance over the other axes
    (group_normalization with one group, as Chainer computes it)."""

    name = 'WeightStandardization'

    def __init__(self, *, eps=1e-5, weight_name='W', name=None):
        self.eps = eps
        self.weight_name = weight_name
        if name is not None:
            self.name = name

    def added(self, link):
        self._check_weight(link)

    def normalize_weight(self, link, W):
        """The weight ``W`` (a Variable) standardised along the axes after the first: zero
        mean and unit variance per output unit, ``eps`` added to the variance."""
        gamma = numpy.ones((W.shape[1],), dtype=W.dtype)
        beta = numpy.zeros((W.shape[1],), dtype=W.dtype)
        return F.group_normalization(W, 1, gamma, beta, eps=self.eps)


del _core
