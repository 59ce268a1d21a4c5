"""chainer.utils.argument: keyword-argument helpers for functions that take ``**kwargs``."""
import inspect

__all__ = ['check_unexpected_kwargs', 'parse_kwargs', 'assert_kwargs_empty']


def check_unexpected_kwargs(kwargs, **unexpected):
    """Raises ValueError(message) for the first ``key=message`` of ``unexpected`` whose key is
    in ``kwargs`` (arguments that were removed, with a message saying what replaces them)."""
    for key, message in unexpected.items():
        if key in kwargs:
            raise ValueError(message)


def parse_kwargs(kwargs, *name_and_values, **unexpected):
    """Pops each ``(name, default)`` from ``kwargs`` and returns the values as a tuple.
    Leftover keys raise ValueError when listed in ``unexpected``, else TypeError naming the
    calling function and the keys, as Python does for an unknown keyword argument."""
    values = tuple(kwargs.pop(name, default) for name, default in name_and_values)
    if kwargs:
        check_unexpected_kwargs(kwargs, **unexpected)
        caller = inspect.stack()[1][3]
        names = ', '.join(repr(key) for key in sorted(kwargs))
        raise TypeError('{}() got unexpected keyword argument(s) {}'.format(caller, names))
    return values


def assert_kwargs_empty(kwargs):
    """Raises TypeError naming the keys when ``kwargs`` is not empty."""
    if kwargs:
        caller = inspect.stack()[1][3]
        names = ', '.join(repr(key) for key in sorted(kwargs))
        raise TypeError('{}() got unexpected keyword argument(s) {}'.format(caller, names))
