"""comm.mpi_comm: rensa's communicator seen through mpi4py, run by every rank (mpiexec -n 2, -n 3).

MPI is rensa's (it initialises and finalises it), so mpi4py is imported with its automatic
initialisation and finalisation off; the job must still exit 0 (CTest checks the status).
"""
import sys

import pytest

import rensa.distributed as chainermn


@pytest.fixture(scope='module')
def comm():
    return chainermn.create_communicator('naive')


def test_same_communicator(comm):
    assert 'mpi4py.MPI' not in sys.modules  # so mpi_comm is the first to import it
    mpi_comm = comm.mpi_comm
    import mpi4py
    from mpi4py import MPI
    assert isinstance(mpi_comm, MPI.Intracomm)
    assert (mpi_comm.Get_rank(), mpi_comm.Get_size()) == (comm.rank, comm.size)
    assert MPI.Comm.Compare(mpi_comm, comm.mpi_comm) == MPI.IDENT  # no copy
    assert MPI.Comm.Compare(mpi_comm, MPI.COMM_WORLD) == MPI.CONGRUENT  # rensa's own dup of the world
    assert mpi4py.rc.initialize is False and mpi4py.rc.finalize is False


def test_barrier_and_allreduce_max(comm):
    from mpi4py import MPI
    comm.mpi_comm.Barrier()
    assert comm.mpi_comm.allreduce(comm.rank * 10, op=MPI.MAX) == (comm.size - 1) * 10
    assert comm.mpi_comm.bcast('from root' if comm.rank == 0 else None, root=0) == 'from root'
    # rensa's own collectives still line up after mpi4py's on the same communicator.
    assert comm.allgather_obj(comm.rank) == list(range(comm.size))


def test_split_communicator(comm):
    sub = comm.split(comm.rank % 2, comm.rank)
    assert (sub.mpi_comm.Get_rank(), sub.mpi_comm.Get_size()) == (sub.rank, sub.size)
    assert sub.mpi_comm.allgather(comm.rank) == [r for r in range(comm.size) if r % 2 == comm.rank % 2]


def test_missing_mpi4py_names_the_package(comm, monkeypatch):
    monkeypatch.setitem(sys.modules, 'mpi4py', None)  # `import mpi4py` now fails
    with pytest.raises(ImportError, match='mpi_comm: needs the mpi4py package'):
        comm.mpi_comm


def test_create_communicator_from_comm_world(comm):
    from mpi4py import MPI
    other = chainermn.create_communicator('naive', mpi_comm=MPI.COMM_WORLD)
    assert (other.rank, other.size) == (comm.rank, comm.size)
    assert other.allgather_obj(other.rank) == list(range(comm.size))
    half = MPI.COMM_WORLD.Split(comm.rank % 2, comm.rank)
    with pytest.raises(ValueError, match='create_communicator: Expect: mpi_comm None or MPI.COMM_WORLD'):
        chainermn.create_communicator('naive', mpi_comm=half)
    half.Free()
