"""chainer.dataset.Iterator: the base of dataset iterators.

The class is C++ (rensa._core.dataset.Iterator) with a trampoline, so a Python subclass
(``__next__`` returning a list of examples, attributes ``epoch``, ``epoch_detail``,
``is_new_epoch``, ``serialize``) runs inside C++ updaters and stays alive while only
C++ holds it. Chainer's subclasses need not call ``Iterator.__init__``; the hook below
calls it after their ``__init__`` when they did not.
"""
import functools

from rensa import _core

__all__ = ['Iterator']

Iterator = _core.dataset.Iterator
_base_init = Iterator.__init__


def _init_subclass(cls, **kwargs):
    init = cls.__dict__.get('__init__')
    if init is None or getattr(init, '_rensa_wraps_init', False):
        return

    @functools.wraps(init)
    def __init__(self, *args, **kw):
        init(self, *args, **kw)
        if not _core.dataset._is_constructed(self):
            _base_init(self)

    __init__._rensa_wraps_init = True
    cls.__init__ = __init__


Iterator.__init_subclass__ = classmethod(_init_subclass)
