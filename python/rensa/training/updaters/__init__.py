"""rensa.training.updaters (chainer.training.updaters)."""
from rensa._core.training.updaters import StandardUpdater  # noqa: F401

__all__ = ['StandardUpdater']
