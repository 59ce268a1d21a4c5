"""The Python side of chainermn's CommunicatorBase: object collectives and ``mpi_comm``.

The C++ communicator (rensa._distributed.CommunicatorBase) gives array and byte-string
collectives; the object ones pickle through the byte strings, and ``mpi_comm`` is the same MPI
communicator seen through mpi4py.
"""
import functools
import operator
import pickle
import sys

from rensa import _distributed as _d
from rensa._distributed import CommunicatorBase


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
    """Sends the picklable ``obj`` to rank ``dest``; ``recv_obj`` on ``dest`` receives it."""
    self._send_bytes(_dumps(obj), dest, tag)


def _recv_obj(self, source, status=None, tag=0):
    """Receives the object that rank ``source`` sent with ``send_obj`` (``status`` is accepted for
    chainermn compatibility and ignored)."""
    return pickle.loads(self._recv_bytes(source, tag))


_bcast_array = CommunicatorBase.bcast


def _bcast(self, data, max_buf_len=None, root=0):
    """Root's array on every rank (chainermn's signature; the others may pass None)."""
    return _bcast_array(self, data, root)


def _import_mpi4py():
    # Note [mpi4py over rensa's MPI]: rensa initialises MPI (MPI_THREAD_MULTIPLE, at the
    # first communicator) and finalises it at exit after its exit protocol (README, "Several
    # processes"). So mpi4py, when this is its first import, is told to do neither; a script
    # that imported mpi4py.MPI itself earlier keeps mpi4py's settings (rensa then finds MPI
    # initialised and leaves finalising to mpi4py).
    try:
        import mpi4py
    except ImportError as e:
        raise ImportError('CommunicatorBase.mpi_comm: needs the mpi4py package, which is not installed '
                          '(pip install mpi4py, built against the MPI library rensa uses: '
                          'MPICH here)') from e
    if 'mpi4py.MPI' not in sys.modules:
        mpi4py.rc.initialize = False
        mpi4py.rc.finalize = False
    from mpi4py import MPI
    return MPI


def _mpi_comm(self):
    """This communicator's MPI communicator as an ``mpi4py.MPI.Intracomm`` (the same
    communicator, not a copy: see Note [mpi4py over rensa's MPI])."""
    MPI = _import_mpi4py()
    return MPI.Intracomm.f2py(self._mpi_comm_fortran_handle)


def create_communicator(communicator_name='flat', mpi_comm=None, allreduce_grad_dtype=None, debug=False):
    """chainermn.create_communicator: 'flat', 'naive', 'dummy' (and 'pure_nccl',
    'hierarchical' with CUDA); MPI starts here. ``mpi_comm`` may be None or an mpi4py
    communicator over every process (MPI.COMM_WORLD or one congruent to it): rensa's
    communicators span MPI_COMM_WORLD; make sub-communicators with ``comm.split``."""
    if mpi_comm is not None:
        try:
            MPI = _import_mpi4py()
        except ImportError as e:
            raise ValueError('create_communicator: Expect: mpi_comm None (mpi4py is not installed), Actual: %r'
                             % (mpi_comm,)) from e
        if not isinstance(mpi_comm, MPI.Comm) or MPI.Comm.Compare(mpi_comm, MPI.COMM_WORLD) not in (MPI.IDENT,
                                                                                                   MPI.CONGRUENT):
            raise ValueError('create_communicator: Expect: mpi_comm None or MPI.COMM_WORLD (or congruent to it), '
                             'Actual: %r; rensa\'s communicators span MPI_COMM_WORLD, make sub-communicators '
                             'with comm.split(color, key)' % (mpi_comm,))
    return _d.create_communicator(communicator_name, None, allreduce_grad_dtype, debug)


def install():
    """Adds the Python methods to CommunicatorBase (once, at import of rensa.distributed)."""
    CommunicatorBase.bcast = _bcast
    CommunicatorBase.bcast_obj = _bcast_obj
    CommunicatorBase.gather_obj = _gather_obj
    CommunicatorBase.allgather_obj = _allgather_obj
    CommunicatorBase.allreduce_obj = _allreduce_obj
    CommunicatorBase.send_obj = _send_obj
    CommunicatorBase.recv_obj = _recv_obj
    CommunicatorBase.mpi_comm = property(_mpi_comm)
