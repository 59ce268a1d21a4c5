"""rensa.training.updaters (chainer.training.updaters)."""
from rensa.training.updaters.standard_updater import StandardUpdater  # noqa: F401
from rensa.training.updaters.multiprocess_parallel_updater import MultiprocessParallelUpdater  # noqa: F401
from rensa.training.updaters.parallel_updater import ParallelUpdater  # noqa: F401

__all__ = ['StandardUpdater', 'ParallelUpdater', 'MultiprocessParallelUpdater']
