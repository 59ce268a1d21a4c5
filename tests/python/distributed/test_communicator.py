"""rensa.distributed communicators, run by every rank (mpiexec -n 2 and -n 3).

Each rank builds every rank's data from a seed, so the numpy reference is local. All ranks
take the same collectives in the same order; a failing rank ends the job via the watchdog.
"""
import numpy
import pytest

import rensa.distributed as dist

NAMES = ['flat', 'naive']


@pytest.fixture(scope='module', params=NAMES)
def comm(request):
    return dist.create_communicator(request.param)


def data(rank, shape=(3, 4), dtype=numpy.float32):
    return numpy.random.default_rng(rank).standard_normal(shape).astype(dtype)


def test_topology(comm):
    assert 0 <= comm.rank < comm.size
    assert comm.allgather_obj(comm.rank) == list(range(comm.size))
    assert comm.intra_size * comm.inter_size == comm.size
    places = comm.allgather_obj((comm.intra_rank, comm.inter_rank))
    assert len(set(places)) == comm.size  # (intra, inter) names a rank


@pytest.mark.parametrize('op,reduce', [
    ('sum', lambda xs: numpy.sum(xs, axis=0)),
    ('mean', lambda xs: numpy.mean(xs, axis=0)),
    ('max', lambda xs: numpy.max(xs, axis=0)),
    ('min', lambda xs: numpy.min(xs, axis=0)),
])
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_allreduce(comm, op, reduce, dtype):
    y = comm.allreduce(data(comm.rank, dtype=dtype), op=op)
    expected = reduce([data(r, dtype=dtype) for r in range(comm.size)])
    assert y.dtype == dtype and y.shape == (3, 4)
    numpy.testing.assert_allclose(y, expected, rtol=1e-6, atol=1e-6)


def test_allreduce_int(comm):
    y = comm.allreduce(numpy.arange(5, dtype=numpy.int32) * (comm.rank + 1))
    numpy.testing.assert_array_equal(y, numpy.arange(5) * sum(range(1, comm.size + 1)))


def test_allreduce_bad_op(comm):
    with pytest.raises(ValueError, match='prod'):
        comm.allreduce(data(0), op='prod')


def test_bcast(comm):
    root = comm.size - 1
    y = comm.bcast(data(root, (2, 5)) if comm.rank == root else None, root=root)
    numpy.testing.assert_array_equal(y, data(root, (2, 5)))
    z = comm.bcast(data(7) if comm.rank == 0 else None, 1 << 20)  # chainermn: (data, max_buf_len, root)
    numpy.testing.assert_array_equal(z, data(7))


def test_gather_and_allgather(comm):
    mine = data(comm.rank, (comm.rank + 1, 2))
    gathered = comm.gather(mine, root=0)
    everything = comm.allgather(mine)
    expected = [data(r, (r + 1, 2)) for r in range(comm.size)]
    if comm.rank == 0:
        assert len(gathered) == comm.size
        for got, want in zip(gathered, expected):
            numpy.testing.assert_array_equal(got, want)
    else:
        assert gathered is None
    assert len(everything) == comm.size
    for got, want in zip(everything, expected):
        numpy.testing.assert_array_equal(got, want)


def test_scatter(comm):
    xs = [data(10 + r, (r + 2,)) for r in range(comm.size)]
    y = comm.scatter(xs if comm.rank == 0 else None, root=0)
    numpy.testing.assert_array_equal(y, xs[comm.rank])


def test_alltoall(comm):
    # rank r sends data(100 * r + j) to rank j
    ys = comm.alltoall([data(100 * comm.rank + j, (2, 2)) for j in range(comm.size)])
    for r, y in enumerate(ys):
        numpy.testing.assert_array_equal(y, data(100 * r + comm.rank, (2, 2)))


def test_send_recv_ring(comm):
    if comm.size < 2:
        pytest.skip('a blocking send to oneself waits forever')
    nxt, prev = (comm.rank + 1) % comm.size, (comm.rank - 1) % comm.size
    x = data(comm.rank, (4,), numpy.float64)
    if comm.rank == 0:
        comm.send(x, nxt, tag=3)
        y = comm.recv(prev, tag=3)
    else:
        y = comm.recv(prev, tag=3)
        comm.send(x, nxt, tag=3)
    numpy.testing.assert_array_equal(y, data(prev, (4,), numpy.float64))


def test_object_collectives(comm):
    obj = {'rank': comm.rank, 'name': 'r%d' % comm.rank, 'arr': numpy.full(3, comm.rank), 'none': None}
    root = comm.size - 1
    got = comm.bcast_obj(obj if comm.rank == root else 'ignored', root=root)
    assert got['rank'] == root and got['name'] == 'r%d' % root and got['none'] is None
    numpy.testing.assert_array_equal(got['arr'], numpy.full(3, root))

    gathered = comm.gather_obj((comm.rank, [comm.rank] * comm.rank))
    if comm.rank == 0:
        assert gathered == [(r, [r] * r) for r in range(comm.size)]
    else:
        assert gathered is None
    assert comm.allgather_obj('x' * comm.rank) == ['x' * r for r in range(comm.size)]
    assert comm.allreduce_obj(comm.rank + 1) == sum(range(1, comm.size + 1))
    numpy.testing.assert_array_equal(comm.allreduce_obj(numpy.full(2, comm.rank)),
                                     numpy.full(2, sum(range(comm.size))))


def test_send_recv_obj(comm):
    if comm.rank == 0:
        for dest in range(1, comm.size):
            comm.send_obj({'to': dest, 'payload': list(range(dest))}, dest)
    else:
        assert comm.recv_obj(0) == {'to': comm.rank, 'payload': list(range(comm.rank))}
    comm.barrier()


def test_large_object(comm):
    big = b'\x01' * (3 << 20) if comm.rank == 0 else None
    assert comm.bcast_obj(big) == b'\x01' * (3 << 20)


def test_split(comm):
    color = comm.rank % 2
    sub = comm.split(color, comm.rank)
    members = [r for r in range(comm.size) if r % 2 == color]
    assert sub.size == len(members)
    assert sub.rank == members.index(comm.rank)
    total = sub.allreduce(numpy.array([comm.rank], dtype=numpy.int64))
    assert int(total[0]) == sum(members)


def test_create_communicator_errors():
    with pytest.raises(ValueError, match='flat'):
        dist.create_communicator('no-such-communicator')
    with pytest.raises(ValueError, match='mpi_comm'):
        dist.create_communicator('flat', mpi_comm=object())


def test_mpi_error_is_runtime_error():
    assert issubclass(dist.MpiError, RuntimeError)


def test_allreduce_grad_dtype():
    comm = dist.create_communicator('flat', allreduce_grad_dtype='float32')
    assert comm.allreduce_grad_dtype == numpy.float32
    assert dist.create_communicator('naive').allreduce_grad_dtype is None
