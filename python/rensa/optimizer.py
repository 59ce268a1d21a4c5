"""rensa.optimizer: chainer.optimizer's base classes and its (deprecated) hook aliases.

Optimizer, GradientMethod, UpdateRule and Hyperparameter are the C++ classes; the
concrete optimizers are in rensa.optimizers, the hooks in rensa.optimizer_hooks.
"""
try:
    from rensa._core.optimizers import (  # noqa: F401
        GradientMethod, Hyperparameter, Optimizer, UpdateRule)
    # chainer.optimizer still exports these hooks under their old names.
    from rensa._core.optimizer_hooks import (  # noqa: F401
        GradientClipping, GradientHardClipping, GradientNoise, Lasso, WeightDecay)
    from rensa import _optimizer_support  # noqa: F401  UpdateRule.state, copies and pickle
    __all__ = ['Optimizer', 'GradientMethod', 'UpdateRule', 'Hyperparameter',
               'WeightDecay', 'Lasso', 'GradientClipping', 'GradientHardClipping',
               'GradientNoise']
except ImportError:  # a development build without the optimizers bind files
    __all__ = []
