"""rensa.optimizer_hooks: chainer.optimizer_hooks (the C++ hooks).

Besides these, ``optimizer.add_hook`` takes any Python callable ``hook(optimizer)``, or
an object with ``name``, ``timing`` ('pre' or 'post'), ``call_for_each_param = True``
and ``__call__(self, rule, param)``, as Chainer does.
"""
_NAMES = ['WeightDecay', 'Lasso', 'GradientClipping', 'GradientHardClipping',
          'GradientNoise', 'GradientLARS']
try:
    from rensa._core import optimizer_hooks as _impl
    globals().update({name: getattr(_impl, name) for name in _NAMES})
    __all__ = list(_NAMES)
except ImportError:  # a development build without the optimizers bind files
    __all__ = []
