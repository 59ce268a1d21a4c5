"""chainer.training.extension: Extension, make_extension and the priorities."""
import functools

from rensa._core import training as _training

__all__ = ['Extension', 'make_extension', 'PRIORITY_WRITER', 'PRIORITY_EDITOR',
           'PRIORITY_READER']

PRIORITY_WRITER = _training.PRIORITY_WRITER
PRIORITY_EDITOR = _training.PRIORITY_EDITOR
PRIORITY_READER = _training.PRIORITY_READER


def _ensure_base_init(self):
    # The C++ part must be constructed exactly once, whether or not the subclass's
    # __init__ calls super().__init__() (Chainer's Extension has no __init__ to call).
    if not self.__dict__.get('_rensa_extension_init', False):
        self.__dict__['_rensa_extension_init'] = True
        _training.Extension.__init__(self)


class Extension(_training.Extension):
    """Base of Python extensions (chainer.training.Extension).

    Override ``__call__(self, trainer)`` and optionally ``initialize``, ``finalize``,
    ``on_error(trainer, exc, tb)`` and ``serialize(serializer)``; set ``trigger``,
    ``priority`` and ``default_name`` as class attributes. The C++ trainer keeps the
    overrides alive while it holds the extension.
    """

    trigger = 1, 'iteration'
    invoke_before_training = False

    def __init__(self):
        _ensure_base_init(self)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get('__init__')
        if init is None or getattr(init, '_rensa_wrapped', False):
            return

        @functools.wraps(init)
        def __init__(self, *args, **kw):
            _ensure_base_init(self)
            init(self, *args, **kw)

        __init__._rensa_wrapped = True
        cls.__init__ = __init__

    def __call__(self, trainer):
        raise NotImplementedError(
            '{}.__call__(trainer) is not implemented'.format(type(self).__name__))

    @property
    def default_name(self):
        """The name the trainer registers the extension under when ``extend`` gets none: the class
        name."""
        return type(self).__name__


def make_extension(trigger=None, default_name=None, priority=None,
                   finalizer=None, initializer=None, on_error=None, **kwargs):
    """Decorator that turns a function ``f(trainer)`` into an extension (Chainer's)."""
    if kwargs:
        if 'invoke_before_training' in kwargs:
            raise ValueError('invoke_before_training is not supported; use '
                             'trainer.extend(..., call_before_training=True)')
        raise TypeError('make_extension: unexpected keyword arguments {}'.format(
            sorted(kwargs)))
    if trigger is None:
        trigger = Extension.trigger
    if priority is None:
        priority = PRIORITY_READER

    def decorator(ext):
        ext.trigger = trigger
        ext.default_name = default_name or ext.__name__
        ext.priority = priority
        ext.finalize = finalizer
        ext.on_error = on_error
        ext.initialize = initializer
        return ext

    return decorator
