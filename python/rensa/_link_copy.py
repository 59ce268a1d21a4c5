"""copy.copy, copy.deepcopy and pickle of links (Chainer's semantics), for rensa.link.

- ``copy.copy(link)``: a new link of the same class over the same parameters and children
  (Chainer's shallow copy: ``c.W`` is the same parameter as ``link.W``, grads included);
  Python attributes are copied shallowly.
- ``copy.deepcopy(link)``: a link that owns new arrays (data, grads, persistents), with the
  Python attributes deep-copied (``memo`` kept, so shared objects stay shared).
- ``pickle``: a link is rebuilt from its class and its state: the parameters' data, grads and
  update flags, the persistents and the Python attributes. A Python subclass of
  Link/Chain/ChainList/Sequential is rebuilt without calling its ``__init__`` (as pickle
  does), its children pickled with it. A built-in link (``L.Linear``, or a Python subclass of
  one) is rebuilt by calling the built-in constructor again with the arguments it was created
  with (recorded at construction; see ``record_init_arguments``), then its state is loaded.
  A built-in link that C++ created on its own (a child of ``L.CifarVGG16``) travels with its parent.
"""
import copy
import functools

import numpy

from rensa import _core

_INTERNAL = ('_rensa_persistents', '_layers', '_within_init_scope', '_local_link_hooks')


def core_base(cls):
    """The first class of ``cls``'s MRO bound in C++ (rensa._core or rensa._core.links)."""
    for c in cls.__mro__:
        if c.__module__.split('.')[:2] == ['rensa', '_core']:
            return c
    raise TypeError('{} derives from no rensa._core link class'.format(cls.__name__))


def _is_python_container(cls):
    return core_base(cls) in (_core.Link, _core.Chain, _core.ChainList, _core.Sequential)


# --- Constructor arguments of the built-in links ------------------------------------------

def record_init_arguments(cls):
    """Wraps the built-in link class ``cls``'s ``__init__`` so that each instance remembers
    the arguments it was built with (for pickle)."""
    init = cls.__init__
    if getattr(init, '_rensa_records', False):
        return

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        if '_source' not in kwargs:
            # Kept by the C++ link (its copies share it), so it outlives this Python object.
            self._set_init_args((cls, args, kwargs))

    __init__._rensa_records = True
    cls.__init__ = __init__


# --- State ---------------------------------------------------------------------------------

def _registered_names(link):
    names = {name for name, _ in link._own_params()}
    names.update(child.name for child in link.children())
    names.update(name for name, _ in link._own_persistents())
    return names


def _python_attributes(link):
    registered = _registered_names(link)
    return {k: v for k, v in link.__dict__.items() if k not in registered and k not in _INTERNAL}


def _param_state(param):
    grad = param.grad
    return {
        'array': None if param.array is None else numpy.array(param.array),
        'grad': None if grad is None else numpy.array(grad),
        'update_enabled': param.update_enabled,
    }


def _load_param(param, state):
    if state['array'] is not None:
        if not param.is_initialized:
            param.initialize(state['array'].shape)
        param.array[...] = state['array']
        param.grad = None if state['grad'] is None else state['grad'].copy()
    if not state['update_enabled']:
        param.disable_update()


def _tree_state(link):
    """Parameters and persistents of ``link`` and its descendants, by path."""
    params = {path: _param_state(p) for path, p in link.namedparams()}
    persistents = {}
    for path, sub in link.namedlinks():
        for name, value in sub._own_persistents():
            persistents[(path, name)] = copy.deepcopy(value)
    return {'params': params, 'persistents': persistents}


def _load_tree_state(link, state):
    params = dict(link.namedparams())
    for path, value in state['params'].items():
        if path not in params:
            raise ValueError('unpickling {}: the rebuilt link has no parameter {!r}'.format(
                type(link).__name__, path))
        _load_param(params[path], value)
    links = dict(link.namedlinks())
    for (path, name), value in state['persistents'].items():
        if path not in links or not links[path]._set_persistent(name, value):
            raise ValueError('unpickling {}: the rebuilt link has no persistent {!r} at {!r}'.format(
                type(link).__name__, name, path))


def _rebuild_container(cls, state):
    """A Python subclass of Link/Chain/ChainList/Sequential, without calling its __init__."""
    link = cls.__new__(cls)
    core_base(cls).__init__(link)
    for name, pstate, pname in state['params']:
        param = _core.Parameter(name=pname)
        if pstate['array'] is not None:
            param = _core.Parameter(pstate['array'].copy(), name=pname)
        _load_param(param, pstate)
        link._add_param_object(name, param)
    for name, value in state['persistents']:
        link.add_persistent(name, value)
    if isinstance(link, _core.Sequential):
        link._set_layers(list(state['layers']))
        object.__setattr__(link, '_layers', list(state['layers']))
    elif isinstance(link, _core.ChainList):
        link._set_links(list(state['children']))
    else:
        for name, child in state['children']:
            _core.Chain.add_link(link, name, child)
    for key, value in state['dict'].items():
        object.__setattr__(link, key, value)
    if '_rensa_persistents' in state:
        object.__setattr__(link, '_rensa_persistents', set(state['_rensa_persistents']))
    return link


def _rebuild_builtin(cls, init_args, state, attributes):
    """A built-in link (or a Python subclass of one): its constructor again, then its state."""
    base, args, kwargs = init_args
    link = cls.__new__(cls)
    base.__init__(link, *args, **kwargs)
    _load_tree_state(link, state)
    for key, value in attributes.items():
        object.__setattr__(link, key, value)
    return link


def reduce_link(link):
    """``__reduce__`` of every link (see the module's docstring)."""
    cls = type(link)
    if _is_python_container(cls):
        if isinstance(link, _core.Sequential):
            for layer in link._layers:
                if getattr(layer, '__name__', None) == '<lambda>':
                    raise ValueError(
                        'pickle: this Sequential holds a lambda, which pickle cannot store; use a '
                        'named function or functools.partial instead')
        state = {
            'params': [(name, _param_state(p), p.name) for name, p in link._own_params()],
            'persistents': [(name, copy.deepcopy(v)) for name, v in link._own_persistents()],
            'dict': _python_attributes(link),
        }
        if isinstance(link, _core.Sequential):
            state['layers'] = list(link._layers)
        elif isinstance(link, _core.ChainList):
            state['children'] = list(link.children())
        else:
            state['children'] = [(child.name, child) for child in link.children()]
        if '_rensa_persistents' in link.__dict__:
            state['_rensa_persistents'] = sorted(link.__dict__['_rensa_persistents'])
        return _rebuild_container, (cls, state)
    init_args = link._init_args()
    if init_args is None:
        raise TypeError(
            'pickle: cannot pickle this {} on its own: C++ built it as part of another link, so '
            'its constructor arguments are unknown; pickle the link that holds it'.format(cls.__name__))
    base, args, kwargs = init_args
    # Initializers only make the first values, which the state replaces: the defaults do.
    args = tuple(None if isinstance(a, _initializer_types()) else a for a in args)
    kwargs = {k: None if isinstance(v, _initializer_types()) else v for k, v in kwargs.items()}
    return _rebuild_builtin, (cls, (base, args, kwargs), _tree_state(link), _python_attributes(link))


def _initializer_types():
    from rensa import initializers
    return (initializers.Initializer,)


# --- copy.copy and copy.deepcopy ------------------------------------------------------------

def shallow_copy(link):
    """copy.copy: the same parameters and children under a new link of the same class."""
    new = link._clone_object()
    registered = _registered_names(link)
    for key, value in link.__dict__.items():  # a built-in link's clone has none of them yet
        if key not in registered and key not in new.__dict__:
            object.__setattr__(new, key, copy.copy(value) if key in _INTERNAL else value)
    return new


def deep_copy(link, memo):
    """copy.deepcopy: new arrays (data, grads, persistents); Python attributes deep-copied."""
    new = link.copy('copy')
    memo[id(link)] = new
    for (_, src), (_, dst) in zip(link.namedparams(), new.namedparams()):
        if src.grad is not None:
            dst.grad = numpy.array(src.grad)
        if not src.update_enabled:
            dst.disable_update()
    for (_, src), (_, dst) in zip(link.namedlinks(), new.namedlinks()):
        registered = _registered_names(src)
        for key, value in src.__dict__.items():
            if key in registered or key in ('_rensa_persistents', '_layers'):
                continue
            object.__setattr__(dst, key, copy.deepcopy(value, memo))
    return new
