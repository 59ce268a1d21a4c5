"""chainer.dataset.convert: concat_examples, to_device and the converter decorator."""
# Note [Converter devices]: as Chainer 7, updaters and evaluators hand a converter the device
# as an object (``rensa.backend.get_device``'s) when it is new-style, an instance of
# ``Converter`` (what the ``converter()`` decorator makes, and ``concat_examples``), and as
# Chainer's old integer when it is a plain function: ``-1`` for the CPU, the GPU's id for a
# GPU, None for none (``_call_converter``). The decorator turns an integer or string it is
# called with back into a device object, so a decorated converter always sees one.

import numpy

from rensa import backend
from rensa._core.dataset import concat_examples  # noqa: F401  (C++: no Python per batch)
from rensa._core.dataset import to_device as _to_device

__all__ = ['concat_examples', 'to_device', 'Converter', 'converter']


class Converter(object):
    """Base of converters: ``converter(batch, device)`` returns the model's inputs; ``device``
    is a device object (``rensa.backend.get_device``) or None."""

    def __call__(self, batch, device):
        raise NotImplementedError(
            'Converter subclasses must implement __call__(batch, device)')


def _get_device(device_spec):
    # chainer.dataset.convert._get_device: None stays None, anything else a device object.
    if device_spec is None:
        return None
    return backend.get_device(device_spec)


class _ArbitraryCallableConverter(Converter):
    # What the converter() decorator makes of a function: the device argument (second
    # positional or `device=`) becomes a device object, the rest passes through.

    def __init__(self, base_callable):
        if not callable(base_callable):
            raise TypeError('converter: can only wrap a callable. Actual: {}'.format(type(base_callable)))
        self.base_callable = base_callable
        self.__doc__ = getattr(base_callable, '__doc__', None)
        self.__name__ = getattr(base_callable, '__name__', type(self).__name__)

    def __call__(self, *args, **kwargs):
        if len(args) >= 2:
            args = list(args)
            args[1] = _get_device(args[1])
        elif 'device' in kwargs:
            kwargs['device'] = _get_device(kwargs['device'])
        return self.base_callable(*args, **kwargs)


def converter():
    """Decorator making a function ``f(batch, device)`` a Converter (Chainer v7): it is then
    called with a device object (See Note [Converter devices])."""
    def wrap(func):
        return _ArbitraryCallableConverter(func)
    return wrap


def _old_style_device(device):
    # The integer Chainer hands a plain-function converter: -1 for the CPU, the GPU's id.
    if getattr(device, 'xp', None) is numpy:
        return -1
    device_id = getattr(device, 'device_id', None)
    if device_id is None:
        device_id = getattr(getattr(device, 'device', None), 'id', None)
    if isinstance(device_id, int):
        return device_id
    raise RuntimeError('Converter does not support the device {!r}: a plain-function converter takes '
                       '-1 or a GPU id; use the rensa.dataset.converter() decorator'.format(device))


def _call_converter(converter, batch, device):
    """Calls ``converter`` as Chainer's updaters and evaluators do; ``device`` is None or a
    device object. See Note [Converter devices]."""
    if device is not None and not isinstance(device, backend.Device):
        device = _get_device(device)
    if isinstance(converter, Converter) or converter is concat_examples:
        return converter(batch, device)
    if device is None:
        return converter(batch, None)
    return converter(batch, _old_style_device(device))


def to_device(device, x):
    """``x`` on ``device`` (None: x unchanged; -1 or a CPU device: numpy). Chainer's
    ``to_device``; a device object sends through its ``send``."""
    if device is None:
        return x
    if isinstance(device, backend.Device):
        return device.send(x)
    return _to_device(device, x)
