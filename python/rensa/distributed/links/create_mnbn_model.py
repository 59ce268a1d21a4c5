"""chainermn.links.create_mnbn_model: a copy of a model with every BatchNormalization
replaced by a MultiNodeBatchNormalization."""
from rensa import _core
from rensa import link as _link
from rensa import links as L
from rensa._distributed.links import MultiNodeBatchNormalization


def _mnbn_from(bn, comm, communication_backend):
    """A MultiNodeBatchNormalization with bn's options, parameters and statistics."""
    mnbn = MultiNodeBatchNormalization(size=bn.avg_mean.shape, comm=comm, decay=bn.decay, eps=bn.eps,
                                       dtype=bn.avg_mean.dtype, use_gamma=hasattr(bn, 'gamma'),
                                       use_beta=hasattr(bn, 'beta'), communication_backend=communication_backend)
    mnbn.copyparams(bn)
    for name, value in bn._own_persistents():
        mnbn._set_persistent(name, value.copy() if hasattr(value, 'copy') else value)
    return mnbn


def _shell_like(source, skip):
    """A new object of source's Python class with an empty C++ registry and source's plain
    attributes (those not in ``skip``, the registered names)."""
    cls = type(source)
    new = cls.__new__(cls)
    _link._core_base(cls).__init__(new)
    for key, value in source.__dict__.items():
        if key not in skip and key not in ('_rensa_persistents', '_layers'):
            object.__setattr__(new, key, value)
    return new


def _own_registry(src, new):
    """Moves src's own parameters and persistent values (src is a fresh copy) into new."""
    for name, param in src._own_params():
        new._add_param_object(name, param)
        object.__setattr__(new, name, param)
    for name, value in src._own_persistents():
        new.add_persistent(name, value)


def _convert(link, comm, backend):
    if isinstance(link, L.BatchNormalization):
        return _mnbn_from(link, comm, backend)
    if isinstance(link, _link.Sequential):
        new = _shell_like(link, ())
        object.__setattr__(new, '_layers', [])
        for layer in link:
            new.append(_convert(layer, comm, backend) if isinstance(layer, _core.Link) else layer)
        return new
    if isinstance(link, _link.ChainList):
        src = link.copy(mode='copy')
        new = _shell_like(src, ())
        _own_registry(src, new)
        for child in link:
            new.add_link(_convert(child, comm, backend))
        return new
    if isinstance(link, _link.Chain):
        src = link.copy(mode='copy')
        children = [(child.name, child) for child in link.children()]
        new = _shell_like(src, {name for name, _ in children} | {name for name, _ in src._own_params()})
        _own_registry(src, new)
        for name, child in children:
            converted = _convert(child, comm, backend)
            new._register_child(name, converted)
            object.__setattr__(new, name, converted)
        return new
    return link.copy(mode='copy')


def create_mnbn_model(link, comm, communication_backend='auto'):
    """A copy of ``link`` (parameters and statistics copied, not shared) in which every
    L.BatchNormalization, at any depth of Chains, ChainLists and Sequentials, is a
    MultiNodeBatchNormalization over ``comm`` with the same options, parameters and
    statistics. ``link`` itself is unchanged."""
    return _convert(link, comm, communication_backend)
