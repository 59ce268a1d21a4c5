"""chainer.training.updaters.StandardUpdater, with Chainer's Python update step."""
# Note [Python update step]: the C++ class (rensa._core.training.updaters.StandardUpdater)
# keeps the iterators, optimizers, counters and serialization; this subclass runs Chainer's
# ``update_core`` in Python, so a converter may return anything (lists of variable-length
# arrays, dicts of them, nested structures) and it reaches the loss function unchanged: a
# tuple as ``*args``, a dict as ``**kwargs``, anything else as one argument. The converter is
# called as Chainer calls it (Note [Converter devices] in python/rensa/dataset/convert.py) with
# ``input_device``. ``converter`` and ``loss_func`` are plain attributes a script may assign.

from rensa import backend
from rensa._core.training import updaters as _updaters
from rensa.dataset import convert

__all__ = ['StandardUpdater']


def _optimizer_dict(optimizer):
    return dict(optimizer) if isinstance(optimizer, dict) else {'main': optimizer}


class StandardUpdater(_updaters.StandardUpdater):
    """One step: next batch of the 'main' iterator, the converter, ``optimizer.update``
    with the loss function (default: the 'main' optimizer's target)."""

    def __init__(self, iterator, optimizer, converter=convert.concat_examples, device=None,
                 loss_func=None, loss_scale=None, auto_new_epoch=True, **kwargs):
        input_device = kwargs.pop('input_device', None)
        if kwargs:
            raise TypeError('StandardUpdater: unexpected keyword arguments {}'.format(sorted(kwargs)))
        if device is not None:
            device = backend.get_device(device)
        # input_device falls back to device (Chainer's rule)
        input_device = device if input_device is None else backend.get_device(input_device)
        super().__init__(iterator, optimizer, None, None, None, loss_scale, auto_new_epoch)
        if device is not None:
            for opt in _optimizer_dict(optimizer).values():
                opt.target.to_device(device)
        # Names only: a Python reference to an optimizer or iterator the C++ base holds would
        # hide cycles through them from the collector (Note [Garbage collection through C++]).
        self._iterator_names = sorted(iterator) if isinstance(iterator, dict) else ['main']
        # rensa's updaters took converter=None for concat_examples; kept.
        self.converter = convert.concat_examples if converter is None else converter
        self.loss_func = loss_func
        self.loss_scale = loss_scale
        self._device = device
        self._input_device = input_device

    # Plain attributes in Chainer: these shadow the C++ base's read-only properties.
    converter = None
    loss_func = None
    _tuple_batches = False  # See Note [C++ update step]

    @property
    def _iterators(self):
        return {name: self.get_iterator(name) for name in self._iterator_names}

    @property
    def _optimizers(self):
        return dict(self.get_all_optimizers())

    @property
    def device(self):
        """The device object the optimizers' targets were sent to (None when not given)."""
        return self._device

    @property
    def input_device(self):
        """The device object the converter sends each batch to: ``input_device`` if given, else
        ``device`` (Chainer's rule)."""
        return self._input_device

    def update_core(self):
        """One step: the next batch of the ``'main'`` iterator through the converter, then
        ``optimizer.update(loss_func, *batch)`` of the ``'main'`` optimizer (a tuple batch as
        positional arguments, a dict as keywords, anything else as one argument); with
        ``auto_new_epoch`` the optimizer's ``new_epoch()`` at the end of each epoch."""
        # Note [C++ update step]: the step Chainer's update_core defines is also the C++
        # base's for tuple batches through concat_examples into the target: after the first
        # batch showed tuples, such steps run there, with no Python object per step but this
        # call (Trainer.run of a Chainer MNIST script stays in C++). Dict batches go to the
        # target as keywords, which only the Python step does.
        if (self._tuple_batches and self.converter is convert.concat_examples and self.loss_func is None
                and self._input_device is None and type(self).update_core is StandardUpdater.update_core):
            return _updaters.StandardUpdater.update_core(self)
        iterator = self.get_iterator('main')
        if self.converter is convert.concat_examples:
            # The same batch without a Python object per example (C++ next + concat_examples).
            in_arrays = self._next_concatenated(self.input_device)
        else:
            batch = iterator.next()
            in_arrays = convert._call_converter(self.converter, batch, self.input_device)

        self._tuple_batches = isinstance(in_arrays, tuple)
        optimizer = self.get_optimizer('main')
        loss_func = self.loss_func or optimizer.target
        if isinstance(in_arrays, tuple):
            optimizer.update(loss_func, *in_arrays)
        elif isinstance(in_arrays, dict):
            optimizer.update(loss_func, **in_arrays)
        else:
            optimizer.update(loss_func, in_arrays)

        if self.auto_new_epoch and iterator.is_new_epoch:
            optimizer.new_epoch()
