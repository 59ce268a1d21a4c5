"""chainer.dataset.convert: concat_examples, to_device and the converter decorator."""
from rensa._core.dataset import concat_examples  # noqa: F401  (C++: no Python per batch)
from rensa._core.dataset import to_device  # noqa: F401

__all__ = ['concat_examples', 'to_device', 'Converter', 'converter']


class Converter(object):
    """Base of converters: ``converter(batch, device=None)`` returns the model's inputs."""

    def __call__(self, batch, device=None):
        raise NotImplementedError(
            'Converter subclasses must implement __call__(batch, device)')


class _CallableConverter(Converter):
    # What the converter() decorator makes of a function.

    def __init__(self, func):
        self._func = func
        self.__doc__ = getattr(func, '__doc__', None)
        self.__name__ = getattr(func, '__name__', type(self).__name__)

    def __call__(self, batch, device=None):
        return self._func(batch, device)


def converter():
    """Decorator making a function ``f(batch, device)`` a Converter (Chainer v7)."""
    def wrap(func):
        return _CallableConverter(func)
    return wrap
