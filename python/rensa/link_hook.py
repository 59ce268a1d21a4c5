"""chainer.LinkHook and the hook calls around Link.__call__ (Chainer's link hooks).

A hook sees every call of a link made from Python: ``forward_preprocess(args)`` before the
link's forward and ``forward_postprocess(args)`` after it, ``args`` holding ``link``,
``forward_name``, ``args``, ``kwargs`` (and ``out`` after). Hooks are global (``with hook:``,
this thread only, as in Chainer) or local to one link (``link.add_hook(hook)``); the global
ones run first.
See Note [Link hooks and C++ calls] below.
"""
import collections
import threading

from rensa import _core

# Note [Link hooks and C++ calls]: built-in links are C++ objects whose ``__call__`` goes
# straight to C++, and links called by C++ (the layers of a Sequential, a Classifier's
# predictor) are called without Python. Hooks see the calls made through Python: a Python
# link's ``__call__`` checks for hooks (a dict lookup when there are none), and while at least
# one hook is registered anywhere, the built-in classes' ``__call__`` is a Python wrapper that
# runs them (installed on the first registration, removed after the last, so that built-in
# calls pay nothing otherwise). A Sequential or Classifier whose children must be hooked is a
# Python link whose forward calls them.

__all__ = ['LinkHook']

_local = threading.local()
_n_registered = 0          # global hooks of every thread plus links with local hooks
_lock = threading.Lock()
_builtin_calls = {}        # built-in class -> its own __call__ while the wrappers are in


def global_link_hooks():
    """This thread's global hooks by name (an OrderedDict)."""
    hooks = getattr(_local, 'hooks', None)
    if hooks is None:
        hooks = _local.hooks = collections.OrderedDict()
    return hooks


class _ForwardPreprocessCallbackArgs(object):
    def __init__(self, link, forward_name, args, kwargs):
        self.link = link
        self.forward_name = forward_name
        self.args = args
        self.kwargs = kwargs

    def __repr__(self):
        return '<_ForwardPreprocessCallbackArgs link={} forward_name={}>'.format(
            type(self.link).__name__, self.forward_name)


class _ForwardPostprocessCallbackArgs(_ForwardPreprocessCallbackArgs):
    def __init__(self, link, forward_name, args, kwargs, out):
        super(_ForwardPostprocessCallbackArgs, self).__init__(link, forward_name, args, kwargs)
        self.out = out


class LinkHook(object):
    """chainer.LinkHook: override ``forward_preprocess`` / ``forward_postprocess`` (and
    ``added`` / ``deleted``); use as a context manager (global) or ``link.add_hook(hook)``."""

    name = 'LinkHook'

    def __enter__(self):
        hooks = global_link_hooks()
        if self.name in hooks:
            raise KeyError('hook {} already exists'.format(self.name))
        hooks[self.name] = self
        _registered(+1)
        self.added(None)
        return self

    def __exit__(self, *_):
        hooks = global_link_hooks()
        hooks[self.name].deleted(None)
        del hooks[self.name]
        _registered(-1)

    def added(self, link):
        """Called when the hook is registered (``link`` None for a global hook)."""

    def deleted(self, link):
        """Called when the hook is unregistered (``link`` None for a global hook)."""

    def forward_preprocess(self, args):
        """Called before the link's forward."""

    def forward_postprocess(self, args):
        """Called after the link's forward; ``args.out`` is what it returned."""


def _hooks_of(link):
    hooks = global_link_hooks()
    local = link.__dict__.get('_local_link_hooks') if hasattr(link, '__dict__') else None
    if local:
        hooks = collections.OrderedDict(hooks)
        hooks.update(local)
    return list(hooks.values())


def call_with_hooks(link, forward, args, kwargs):
    """``forward(*args, **kwargs)`` with the hooks of ``link`` around it."""
    hooks = _hooks_of(link)
    if not hooks:
        return forward(*args, **kwargs)
    pre = _ForwardPreprocessCallbackArgs(link, 'forward', args, kwargs)
    for hook in hooks:
        hook.forward_preprocess(pre)
    out = forward(*args, **kwargs)
    post = _ForwardPostprocessCallbackArgs(link, 'forward', args, kwargs, out)
    for hook in hooks:
        hook.forward_postprocess(post)
    return out


def any_registered():
    return _n_registered > 0


# --- Built-in links: their __call__ wrapped while any hook is registered -----------------

def _wrap_builtin(cls, call):
    def __call__(self, *args, **kwargs):
        return call_with_hooks(self, lambda *a, **k: call(self, *a, **k), args, kwargs)
    __call__.__doc__ = call.__doc__
    return __call__


def _builtin_classes():
    return [c for c in vars(_core.links).values()
            if isinstance(c, type) and issubclass(c, _core.Link) and '__call__' in vars(c)] + [_core.Link]


def _registered(delta):
    global _n_registered
    with _lock:
        before = _n_registered
        _n_registered += delta
        if before == 0 and _n_registered > 0:
            for cls in _builtin_classes():
                _builtin_calls[cls] = vars(cls)['__call__']
                cls.__call__ = _wrap_builtin(cls, _builtin_calls[cls])
        elif before > 0 and _n_registered == 0:
            for cls, call in _builtin_calls.items():
                cls.__call__ = call
            _builtin_calls.clear()


# --- Link.add_hook / delete_hook / local_link_hooks (every link) ---------------------------

def _local_link_hooks(self):
    hooks = self.__dict__.get('_local_link_hooks')
    if hooks is None:
        hooks = collections.OrderedDict()
        object.__setattr__(self, '_local_link_hooks', hooks)
    return hooks


def _add_hook(self, hook, name=None):
    if not isinstance(hook, LinkHook):
        raise TypeError('Link.add_hook: the hook must be a LinkHook, got {}'.format(type(hook).__name__))
    if name is None:
        name = hook.name
    hooks = _local_link_hooks(self)
    if name in hooks:
        raise KeyError('Link.add_hook: hook {} already exists on this {}'.format(name, type(self).__name__))
    hooks[name] = hook
    if len(hooks) == 1:
        _registered(+1)
    hook.added(self)
    return self


def _delete_hook(self, name):
    hooks = _local_link_hooks(self)
    if name not in hooks:
        raise KeyError('Link.delete_hook: hook {} does not exist on this {}'.format(name, type(self).__name__))
    hooks[name].deleted(self)
    del hooks[name]
    if not hooks:
        _registered(-1)


_core.Link.local_link_hooks = property(_local_link_hooks)
_core.Link.add_hook = _add_hook
_core.Link.delete_hook = _delete_hook
