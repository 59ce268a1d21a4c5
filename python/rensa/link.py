"""Link, Chain, ChainList, Sequential and Parameter (chainer.link, chainer.Parameter).

The C++ classes in rensa._core carry the registry (parameters, persistents, children)
and Chainer's conveniences (params, namedparams, cleargrads, copyparams, to_device,
serialize, ...), so built-in links such as L.Linear have them too. This module adds what
only Python subclasses need: ``init_scope`` and attribute registration, ``forward``
dispatch from ``__call__``, copies that keep the Python class, and the editing of
ChainList and Sequential (Chainer's list methods). copy.copy, copy.deepcopy and pickle of
every link are in rensa._link_copy.
"""
import contextlib
import copy as _copy

import numpy

from rensa import _core
from rensa import _link_copy
from rensa import link_hook as _link_hook

Parameter = _core.Parameter

__all__ = ['Link', 'Chain', 'ChainList', 'Sequential', 'Parameter']


_core_base = _link_copy.core_base


class _LinkMixin(object):
    """Chainer's Python-side Link behaviour, shared by Link, Chain, ChainList, Sequential."""

    def __call__(self, *args, **kwargs):
        if _link_hook.any_registered():  # Note [Link hooks and C++ calls] in rensa.link_hook
            return _link_hook.call_with_hooks(self, self.forward, args, kwargs)
        return self.forward(*args, **kwargs)

    # Marks this __call__ as the dispatcher, so that C++ calling a subclass's forward does
    # not come back here (a class defining its own __call__ only is called through that).
    __call__._rensa_dispatch = True

    @contextlib.contextmanager
    def init_scope(self):
        """Attributes assigned in this scope register Parameters (and, in a Chain, Links)."""
        old = self.__dict__.get('_within_init_scope', False)
        object.__setattr__(self, '_within_init_scope', True)
        try:
            yield
        finally:
            object.__setattr__(self, '_within_init_scope', old)

    @property
    def within_init_scope(self):
        return self.__dict__.get('_within_init_scope', False)

    def __setattr__(self, name, value):
        d = self.__dict__
        if name in d.get('_rensa_persistents', ()):
            self._set_persistent(name, value)
            return
        if d.get('_within_init_scope', False):
            if isinstance(value, _core.Parameter):
                if not value.name:
                    value.name = name
                self._add_param_object(name, value)
            elif isinstance(value, _core.Link):
                self._register_child(name, value)
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if name in self.__dict__.get('_rensa_persistents', ()):
            raise AttributeError(
                'cannot delete persistent {!r}: rensa keeps the registry in C++'.format(name))
        object.__delattr__(self, name)

    def _register_child(self, name, link):
        # Only Chain registers children by attribute (as in Chainer).
        pass

    def add_param(self, name, shape=None, dtype=numpy.float32, initializer=None):
        """Registers a new parameter ``name`` (Chainer's Link.add_param)."""
        param = self._add_param(name, shape, dtype, initializer)
        param.name = name
        object.__setattr__(self, name, param)
        return param

    def add_persistent(self, name, value):
        """Registers a persistent value (array or scalar), saved by serializers."""
        self._add_persistent(name, value)
        persistents = self.__dict__.get('_rensa_persistents')
        if persistents is None:
            persistents = set()
            object.__setattr__(self, '_rensa_persistents', persistents)
        persistents.add(name)

    def register_persistent(self, name):
        """Makes the existing attribute ``name`` persistent."""
        if name not in self.__dict__:
            raise AttributeError(
                'register_persistent: {} has no attribute {!r}'.format(type(self).__name__, name))
        value = self.__dict__.pop(name)
        self.add_persistent(name, value)

    def repeat(self, n_repeat, mode='init'):
        """``n_repeat`` copies of this link in a Sequential."""
        return Sequential(*[self.copy(mode) for _ in range(n_repeat)])


def _init_clone(clone, source):
    """Called by C++ (Link.copy) on a new, uninitialised object of source's Python class:
    builds the C++ part from source's registry and copies source's plain attributes.
    Registered parameters and children are left out: Link.copy rebinds them in the
    registry next, and the clone reaches them through __getattr__."""
    _core_base(type(source)).__init__(clone, source)
    registered = {name for name, _ in source._own_params()}
    registered.update(child.name for child in source.children())
    for key, value in source.__dict__.items():
        if key in registered:
            continue
        if key in ('_rensa_persistents', '_layers'):
            value = _copy.copy(value)
        object.__setattr__(clone, key, value)


class Link(_LinkMixin, _core.Link):
    """chainer.Link: a building block with parameters and persistent values.

    ``Link(W=(3, 4))`` adds parameters of the given shapes (or ``(shape, dtype)``).
    """

    def __init__(self, **params):
        super(Link, self).__init__()
        for name, value in params.items():
            if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], tuple):
                shape, dtype = value
            else:
                shape, dtype = value, numpy.float32
            self.add_param(name, shape, dtype=dtype)


class Chain(_LinkMixin, _core.Chain):
    """chainer.Chain: a link with named child links (``self.l1 = L.Linear(...)`` in
    ``init_scope``, or ``Chain(l1=..., l2=...)``)."""

    def __init__(self, **links):
        super(Chain, self).__init__()
        for name, link in links.items():
            self.add_link(name, link)

    def _register_child(self, name, link):
        _core.Chain.add_link(self, name, link)

    def add_link(self, name, link):
        """Registers ``link`` as the child named ``name`` (also set as the attribute ``name``)
        and returns it; the same as ``self.name = link`` inside ``init_scope``."""
        _core.Chain.add_link(self, name, link)
        object.__setattr__(self, name, link)
        return link


class ChainList(_LinkMixin, _core.ChainList):
    """chainer.ChainList: children numbered in order (``model[0]``, ``len(model)``)."""

    def __init__(self, *links):
        super(ChainList, self).__init__()
        for link in links:
            self.add_link(link)


# --- Every link, built-in ones included: copy.copy, copy.deepcopy, pickle (rensa._link_copy).
_core.Link.__copy__ = _link_copy.shallow_copy
_core.Link.__deepcopy__ = _link_copy.deep_copy
_core.Link.__reduce__ = _link_copy.reduce_link
for _cls in vars(_core.links).values():
    if isinstance(_cls, type) and issubclass(_cls, _core.Link):
        _link_copy.record_init_arguments(_cls)


# --- ChainList editing (Chainer's ChainList __setitem__, __delitem__, insert), on every
# ChainList, built-in ones included. The children are renamed "0", "1", ... afterwards.

def _chainlist_setitem(self, index, value):
    links = list(self.children())
    if isinstance(index, slice):
        value = list(value)
    elif not isinstance(index, int):
        raise TypeError('ChainList indices must be integers or slices, not {}'.format(type(index).__name__))
    links[index] = value
    for link in links:
        if not isinstance(link, _core.Link):
            raise TypeError('ChainList: a child must be a Link, got {}'.format(type(link).__name__))
    self._set_links(links)


def _chainlist_delitem(self, index):
    links = list(self.children())
    del links[index]
    self._set_links(links)


def _chainlist_insert(self, index, link):
    if not isinstance(link, _core.Link):
        raise TypeError('ChainList.insert: a child must be a Link, got {}'.format(type(link).__name__))
    links = list(self.children())
    links.insert(index, link)
    self._set_links(links)


_core.ChainList.__setitem__ = _chainlist_setitem
_core.ChainList.__delitem__ = _chainlist_delitem
_core.ChainList.insert = _chainlist_insert


class Sequential(_LinkMixin, _core.Sequential):
    """chainer.Sequential: calls its layers in order; a layer is a link or a function of
    one Variable (``F.relu``, a lambda)."""

    def __init__(self, *layers):
        super(Sequential, self).__init__()
        object.__setattr__(self, '_layers', [])
        for layer in layers:
            self.append(layer)

    def append(self, layer):
        """Appends a layer: a Link (registered as a child) or any callable of one argument.
        Anything else is a TypeError."""
        if isinstance(layer, _core.Link):
            self._append_link(layer)
        elif callable(layer):
            self._append_function(layer)
        else:
            raise TypeError(
                'Sequential.append: a layer must be a Link or a callable, got {}'.format(
                    type(layer).__name__))
        self._layers.append(layer)

    def _replace_layers(self, layers, op):
        for layer in layers:
            if not callable(layer):
                raise ValueError('Sequential.{}: every layer must be callable, got {!r}'.format(op, layer))
        self._set_layers(layers)
        object.__setattr__(self, '_layers', layers)

    def __getitem__(self, index):
        return self._layers[index]

    def __setitem__(self, index, layer):
        layers = list(self._layers)
        layers[index] = layer
        self._replace_layers(layers, '__setitem__')

    def __delitem__(self, index):
        layers = list(self._layers)
        del layers[index]
        self._replace_layers(layers, '__delitem__')

    def __len__(self):
        return len(self._layers)

    def __iter__(self):
        return iter(self._layers)

    def __reversed__(self):
        return reversed(self._layers)

    def __contains__(self, layer):
        return layer in self._layers

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError('Sequential: + takes another Sequential, got {}'.format(type(other).__name__))
        return Sequential(*(list(self._layers) + list(other._layers)))

    def __iadd__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError('Sequential: += takes another Sequential, got {}'.format(type(other).__name__))
        self.extend(other)
        return self

    def extend(self, layers):
        """Appends every layer of the iterable ``layers`` (which may be another Sequential)."""
        self._replace_layers(list(self._layers) + list(layers), 'extend')

    def insert(self, index, layer):
        """Inserts ``layer`` before position ``index`` (``-len(self) <= index <= len(self)``,
        IndexError otherwise)."""
        n = len(self._layers)
        if not -n <= index <= n:
            raise IndexError('Sequential.insert: index {} is out of range for {} layers'.format(index, n))
        layers = list(self._layers)
        layers.insert(index, layer)
        self._replace_layers(layers, 'insert')

    def pop(self, index=-1):
        """Removes the layer at ``index`` (the last by default) and returns it."""
        layer = self._layers[index]
        del self[index]
        return layer

    def remove(self, layer):
        """Removes the first occurrence of ``layer``; ValueError when it is not there."""
        if layer not in self._layers:
            raise ValueError('Sequential.remove: there is no layer {!r}'.format(layer))
        del self[self._layers.index(layer)]

    def remove_by_layer_type(self, type_name):
        """Removes every layer whose type name is ``type_name``: a link's class name (e.g.
        ``'Linear'``) or a function's ``__name__`` (e.g. ``'relu'``)."""
        self._replace_layers([layer for layer in self._layers if _layer_type(layer) != type_name],
                             'remove_by_layer_type')

    def clear(self):
        """Removes all the layers."""
        self._replace_layers([], 'clear')

    def index(self, layer, start=None, end=None):
        """The position of the first occurrence of ``layer`` in ``self[start:end]``, counted
        from ``start`` as in Chainer (ValueError when absent)."""
        return self._layers[start:end].index(layer)  # relative to start, as in Chainer

    def count(self, layer):
        """The number of occurrences of ``layer``."""
        return self._layers.count(layer)

    def count_by_layer_type(self, type_name):
        """The number of layers whose type name is ``type_name`` (see ``remove_by_layer_type``)."""
        return sum(1 for layer in self._layers if _layer_type(layer) == type_name)

    def flatten(self):
        """A Sequential with the layers of nested Sequentials in place of them."""
        flat = Sequential()
        for layer in self._layers:
            if isinstance(layer, Sequential):
                flat.extend(layer.flatten())
            else:
                flat.append(layer)
        return flat

    def copy(self, mode='share'):
        """A copy of this Sequential whose link layers are ``layer.copy(mode)`` (``'share'``,
        ``'copy'`` or ``'init'``, as in Link.copy); function layers are shared."""
        cls = type(self)
        new = cls.__new__(cls)
        _core_base(cls).__init__(new)
        for key, value in self.__dict__.items():
            if key != '_layers':
                object.__setattr__(new, key, value)
        object.__setattr__(new, '_layers', [])
        for layer in self._layers:
            new.append(layer.copy(mode) if isinstance(layer, _core.Link) else layer)
        return new


def _layer_type(layer):
    """Chainer's name of a layer's type: a link's class name, a function's name."""
    if isinstance(layer, _core.Link):
        return type(layer).__name__
    return getattr(layer, '__name__', type(layer).__name__)
