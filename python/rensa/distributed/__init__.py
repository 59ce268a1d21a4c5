"""rensa.distributed: chainermn's API over rensa's MPI communicators.

A ChainerMN script runs after ``import chainermn`` becomes
``import rensa.distributed as chainermn``. This import loads the MPI library (the
extension rensa._distributed; ``import rensa`` alone does not), and MPI starts when the first
communicator is created. Run the script under ``mpiexec -n N``.
"""
import functools
import operator
import pickle

import numpy

try:
    from rensa import _distributed as _d
except ImportError as e:  # pragma: no cover - a build without MPI
    raise ImportError('rensa.distributed needs rensa built with MPI (MPICH was not found at '
                      'configure time)') from e

from rensa._distributed import CommunicatorBase  # noqa: F401
from rensa._distributed import MpiError  # noqa: F401
from rensa._distributed import create_communicator  # noqa: F401
from rensa._distributed import create_multi_node_evaluator  # noqa: F401
from rensa._distributed import create_multi_node_optimizer  # noqa: F401
from rensa._distributed import scatter_index  # noqa: F401

from rensa.distributed import extensions  # noqa: F401,E402
from rensa.distributed import functions  # noqa: F401,E402
from rensa.distributed import links  # noqa: F401,E402
from rensa.distributed.links import MultiNodeChainList  # noqa: F401,E402

__all__ = ['CommunicatorBase', 'MpiError', 'create_communicator', 'create_multi_node_evaluator',
           'create_multi_node_optimizer', 'scatter_dataset', 'scatter_index', 'create_empty_dataset',
           'MultiNodeChainList', 'functions', 'links', 'extensions']


# --- Object collectives: any picklable object through the byte-string collectives --------

def _dumps(obj):
    return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)


def _bcast_obj(self, obj, max_buf_len=None, root=0):
    """Root's ``obj`` on every rank (the others' ``obj`` is ignored)."""
    return pickle.loads(self._bcast_bytes(_dumps(obj) if self.rank == root else None, root))


def _gather_obj(self, obj, root=0):
    """Every rank's ``obj`` in rank order (a list) on root; None elsewhere."""
    items = self._gather_bytes(_dumps(obj), root)
    return [pickle.loads(b) for b in items] if self.rank == root else None


def _allgather_obj(self, obj):
    """Every rank's ``obj`` in rank order (a list), on every rank."""
    return [pickle.loads(b) for b in self._allgather_bytes(_dumps(obj))]


def _allreduce_obj(self, obj):
    """The sum (``+``, in rank order) of every rank's ``obj``, on every rank."""
    return functools.reduce(operator.add, self.allgather_obj(obj))


def _send_obj(self, obj, dest, tag=0):
    self._send_bytes(_dumps(obj), dest, tag)


def _recv_obj(self, source, status=None, tag=0):
    return pickle.loads(self._recv_bytes(source, tag))


_bcast_array = CommunicatorBase.bcast


def _bcast(self, data, max_buf_len=None, root=0):
    """Root's array on every rank (chainermn's signature; the others may pass None)."""
    return _bcast_array(self, data, root)


CommunicatorBase.bcast = _bcast
CommunicatorBase.bcast_obj = _bcast_obj
CommunicatorBase.gather_obj = _gather_obj
CommunicatorBase.allgather_obj = _allgather_obj
CommunicatorBase.allreduce_obj = _allreduce_obj
CommunicatorBase.send_obj = _send_obj
CommunicatorBase.recv_obj = _recv_obj


# --- Datasets -------------------------------------------------------------------------------

class _SubList(object):
    """The examples of one rank's shard of a Python dataset (chainermn's SubDataset)."""

    def __init__(self, examples):
        self._examples = examples

    def __len__(self):
        return len(self._examples)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._examples[i] for i in range(*index.indices(len(self)))]
        return self._examples[index]

    def __iter__(self):
        return iter(self._examples)


def scatter_dataset(dataset, comm, root=0, shuffle=False, seed=None, max_buf_len=256 * 1024 * 1024, *,
                    force_equal_length=True):
    """chainermn.scatter_dataset: this rank's shard of root's dataset (collective).

    C++ datasets (TupleDataset, get_mnist's, DatasetMixin subclasses) take the C++ path: a
    view when every rank holds the data, otherwise stacked arrays sent from root. Other
    sequences (lists, ...) are pickled from root, one message per rank. The other ranks may
    pass None. With ``force_equal_length`` every shard has ceil(n / size) examples.
    """
    if not 0 <= root < comm.size:
        raise ValueError('scatter_dataset: root=%d is not a rank of a communicator of size %d' % (root, comm.size))
    native = comm.bcast_obj(_d._is_native_dataset(dataset) if comm.rank == root else None, root=root)
    if comm.rank == root and dataset is None:
        raise ValueError('scatter_dataset: the root rank %d passed no dataset' % root)
    if native:
        if seed is None:
            seed = int(numpy.random.randint(0, 2 ** 31)) if comm.rank == root else 0
        mine = dataset if dataset is not None and _d._is_native_dataset(dataset) else None
        return _d._scatter_dataset(mine, comm, root, shuffle, int(seed), force_equal_length)
    if comm.rank != root:
        return _SubList(comm.recv_obj(root))
    n = len(dataset)
    order = numpy.random.RandomState(seed).permutation(n) if shuffle else numpy.arange(n)
    own = None
    for rank in range(comm.size):
        begin, end = _d._shard_range(n, comm.size, rank, force_equal_length)
        examples = [dataset[int(i)] for i in order[begin:end]]
        if rank == root:
            own = examples
        else:
            comm.send_obj(examples, rank)
    return _SubList(own)


def create_empty_dataset(dataset):
    """chainermn.datasets.create_empty_dataset: as many empty examples as ``dataset``."""
    return [()] * len(dataset)
