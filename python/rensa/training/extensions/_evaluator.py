"""chainer.training.extensions.Evaluator, with Chainer's Python pass for custom converters."""
# Note [Python evaluation pass]: the C++ Evaluator (rensa._core.training.extensions.Evaluator)
# runs the pass without Python per batch when the converter is rensa's concat_examples; its
# batches are arrays. A custom converter may return anything (lists of variable-length arrays,
# dicts, nested structures), so an Evaluator given one runs Chainer's ``evaluate`` in Python:
# the converter called as Chainer calls it (Note [Converter devices] in
# python/rensa/dataset/convert.py), its result passed to ``eval_func`` (default: the 'main' target) as
# Chainer's StandardUpdater does (tuple: ``*args``, dict: ``**kwargs``, else one argument).
# The switch is a subclass chosen in ``__new__``, never an instance attribute: pybind11 caches,
# per type, that a type does not override ``evaluate``, and the multi-node evaluator keeps its
# exact per-example pass for Evaluators without an override
# (Note [Stock evaluators from Python] in python/src/distributed/training.cc).

from rensa import backend
from rensa import configuration
from rensa._core import no_backprop_mode
from rensa._core import Reporter
from rensa._core.training import DictSummary
from rensa._core.training import extensions as _extensions
from rensa.dataset import convert

__all__ = ['Evaluator']


def _is_custom(converter):
    return converter is not None and converter is not convert.concat_examples


class Evaluator(_extensions.Evaluator):
    """Evaluates the target over a validation iterator (chainer.training.extensions.Evaluator);
    reports the means as ``<name>/<key>`` (``validation/main/loss``)."""

    def __new__(cls, iterator=None, target=None, converter=convert.concat_examples, *args, **kwargs):
        if _is_custom(converter) and not _overrides_evaluate(cls):
            cls = _with_python_pass(cls)
        return super().__new__(cls)

    def __init__(self, iterator, target, converter=convert.concat_examples, device=None,
                 eval_hook=None, eval_func=None, **kwargs):
        kwargs.pop('progress_bar', None)  # Chainer 7's progress bar of the pass; not drawn here
        if kwargs:
            raise TypeError('Evaluator: unexpected keyword arguments {}'.format(sorted(kwargs)))
        if device is not None:
            device = backend.get_device(device)
        # __new__ chose the class from its guess of the arguments; a subclass's own __init__ may
        # take others, so what runs follows the class: the Python pass converts in Python, else
        # the C++ pass calls the converter (arrays only).
        python_pass = _is_custom(converter) and getattr(type(self), 'evaluate', None) is _python_evaluate
        super().__init__(iterator, target, None if python_pass else converter, device, eval_hook, eval_func)
        self._python_converter = converter if python_pass else None
        self._python_device = device

    @property
    def converter(self):
        """The converter applied to each batch (``rensa.dataset.concat_examples`` by default)."""
        if self._python_converter is not None:
            return self._python_converter
        return super().converter


def _overrides_evaluate(cls):
    return any('evaluate' in c.__dict__ for c in cls.__mro__ if c not in (Evaluator, _extensions.Evaluator)
               and issubclass(c, Evaluator))


_with_pass = {}


def _with_python_pass(cls):
    # cls with Chainer's Python evaluate (cached, so pybind11's override cache sees one type).
    sub = _with_pass.get(cls)
    if sub is None:
        sub = type(cls.__name__, (cls,), {'evaluate': _python_evaluate, '__module__': cls.__module__,
                                          '__qualname__': cls.__qualname__})
        _with_pass[cls] = sub
    return sub


def _call(func, in_arrays):
    if isinstance(in_arrays, tuple):
        return func(*in_arrays)
    if isinstance(in_arrays, dict):
        return func(**in_arrays)
    return func(in_arrays)


def _python_evaluate(self):
    # Chainer's Evaluator.evaluate, keys without the extension's prefix (the C++ __call__
    # adds it), the reporter made here as the C++ pass makes its own. The C++ constructor
    # already refused an iterator that repeats.
    if self._python_converter is None:  # the default converter after all: the C++ pass
        return _extensions.Evaluator.evaluate(self)
    iterator = self.get_iterator('main')
    targets = self.get_all_targets()
    eval_func = self.eval_func or targets['main']
    reporter = Reporter()
    for name, target in targets.items():
        reporter.add_observer(name, target)
        reporter.add_observers(name, target.namedlinks(skipself=True))
    summary = DictSummary()
    with configuration.using_config('train', False):
        if self.eval_hook:
            self.eval_hook(self)
        iterator.reset()
        for batch in iterator:
            observation = {}
            with reporter.scope(observation):
                in_arrays = convert._call_converter(self._python_converter, batch, self._python_device)
                with no_backprop_mode():
                    _call(eval_func, in_arrays)
            summary.add(observation)
    return summary.compute_mean()
