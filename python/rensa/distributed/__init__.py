"""rensa.distributed: chainermn's API over rensa's MPI communicators.

A ChainerMN script runs after ``import chainermn`` becomes
``import rensa.distributed as chainermn``. This import loads the MPI library (the
extension rensa._distributed; ``import rensa`` alone does not), and MPI starts when the first
communicator is created. Run the script under ``mpiexec -n N``. The submodules are
chainermn's: datasets, iterators, functions, links, extensions.
"""
try:
    from rensa import _distributed as _d  # noqa: F401
except ImportError as e:  # pragma: no cover - a build without MPI
    raise ImportError('rensa.distributed needs rensa built with MPI (MPICH was not found at '
                      'configure time)') from e

from rensa._distributed import CommunicatorBase  # noqa: F401
from rensa._distributed import MpiError  # noqa: F401
from rensa._distributed import create_multi_node_optimizer  # noqa: F401
from rensa.distributed import _communicator
from rensa.distributed._communicator import create_communicator  # noqa: F401

_communicator.install()

from rensa.distributed import datasets  # noqa: F401,E402
from rensa.distributed import extensions  # noqa: F401,E402
from rensa.distributed import functions  # noqa: F401,E402
from rensa.distributed import iterators  # noqa: F401,E402
from rensa.distributed import links  # noqa: F401,E402
from rensa.distributed.datasets import DataSizeError  # noqa: F401,E402
from rensa.distributed.datasets import create_empty_dataset  # noqa: F401,E402
from rensa.distributed.datasets import scatter_dataset  # noqa: F401,E402
from rensa.distributed.datasets import scatter_index  # noqa: F401,E402
from rensa.distributed.extensions import create_multi_node_checkpointer  # noqa: F401,E402
from rensa.distributed.extensions import create_multi_node_evaluator  # noqa: F401,E402
from rensa.distributed.links import MultiNodeChainList  # noqa: F401,E402

__all__ = ['CommunicatorBase', 'DataSizeError', 'MpiError', 'MultiNodeChainList', 'create_communicator',
           'create_empty_dataset', 'create_multi_node_checkpointer', 'create_multi_node_evaluator',
           'create_multi_node_optimizer', 'datasets', 'extensions', 'functions', 'iterators', 'links',
           'scatter_dataset', 'scatter_index']
