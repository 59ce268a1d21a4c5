"""rensa.optimizers: chainer.optimizers (the C++ optimizers, Chainer's keywords and defaults).

Hyperparameters are attributes (``optimizer.lr = 0.1``), as in Chainer.
"""
_NAMES = ['SGD', 'MomentumSGD', 'CorrectedMomentumSGD', 'NesterovAG', 'AdaGrad',
          'AdaDelta', 'RMSprop', 'RMSpropGraves', 'SMORMS3', 'MSVAG', 'Adam', 'AdamW',
          'AMSGrad', 'AdaBound', 'AMSBound']
try:
    from rensa._core import optimizers as _impl
    globals().update({name: getattr(_impl, name) for name in _NAMES})
    __all__ = list(_NAMES)
except ImportError:  # a development build without the optimizers bind files
    __all__ = []
