"""rensa.iterators: Chainer's chainer.iterators.

SerialIterator and MultithreadIterator are C++: over a C++ dataset no Python runs per
example; Python datasets are read through an adapter that takes the GIL. MultiprocessIterator
is Python (worker processes and shared memory) with SerialIterator's orders. ``next(it)``
gives a list of examples in Chainer's form.
"""
import abc

from rensa import _core
from rensa._core.iterators import MultithreadIterator  # noqa: F401
from rensa._core.iterators import ShuffleOrderSampler  # noqa: F401
from rensa.iterators.multiprocess_iterator import MultiprocessIterator  # noqa: F401
from rensa.iterators import _python_serial

__all__ = ['MultiprocessIterator', 'MultithreadIterator', 'OrderSampler',
           'SerialIterator', 'ShuffleOrderSampler']


# chainer.iterators.SerialIterator(dataset, batch_size, repeat=True, shuffle=None,
# order_sampler=None) is C++ over C++ datasets and over Python datasets of arrays and numbers;
# over a Python dataset of other objects (strings, nested lists, ...) it gives a Python iterator
# with the same batches that hands the examples back unchanged (Note [Python examples] in
# rensa/iterators/_python_serial.py).
SerialIterator = _core.iterators.SerialIterator
_cpp_new = SerialIterator.__new__


def _serial_iterator_new(cls, dataset=None, *args, **kwargs):
    if cls is SerialIterator and dataset is not None and _python_serial.holds_python_objects(dataset):
        return _python_serial.PythonSerialIterator(dataset, *args, **kwargs)
    return _cpp_new(cls)


SerialIterator.__new__ = _serial_iterator_new


class OrderSampler(metaclass=abc.ABCMeta):
    """Base of order samplers: ``sampler(current_order, current_position)`` returns the
    next epoch's order. Any callable works; ``serialize(serializer)`` is optional."""

    def __call__(self, current_order, current_position):
        """The order of the next epoch (an array of indices), given the current order and position."""
        raise NotImplementedError

    def serialize(self, serializer):
        """Saves or loads the sampler's state through ``serializer`` (nothing by default)."""
        pass


OrderSampler.register(_core.iterators._OrderSampler)


# Chainer's iterators keep their counters in plain attributes, and Chainer's tutorial
# rewinds a test iterator by assigning them (it.epoch = 0; it.current_position = 0;
# it.is_new_epoch = False; it._previous_epoch_detail = -1.). The C++ iterators keep
# them private, so an assignment goes through serialize: the state is saved, the one
# entry is changed, and the state is loaded back (checked like a snapshot's).
def _state_setter(key, convert):
    def setter(self, value):
        from rensa import serializers
        saved = serializers.DictionarySerializer()
        saved.save(self)
        state = dict(saved.target)
        state[key] = _numpy.asarray(convert(value))
        serializers.NpzDeserializer(state).load(self)
    return setter


def _add_state_setters(cls):
    entries = [('epoch', 'epoch', int), ('current_position', 'current_position', int),
               ('is_new_epoch', 'is_new_epoch', bool)]
    for name, key, convert in entries:
        bound = getattr(cls, name)
        setattr(cls, name, property(bound.fget, _state_setter(key, convert), doc=bound.__doc__))
    previous = cls.previous_epoch_detail.fget

    def previous_or_negative(self):
        value = previous(self)
        return -1. if value is None else value
    cls._previous_epoch_detail = property(
        previous_or_negative,
        _state_setter('previous_epoch_detail', lambda v: -1. if v is None else float(v)))


import numpy as _numpy  # noqa: E402

_add_state_setters(SerialIterator)
