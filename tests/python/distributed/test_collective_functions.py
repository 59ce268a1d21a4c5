"""rensa.distributed.functions' differentiable collectives, run by every rank (mpiexec -n 2, -n 3).

Each rank's input and each rank's loss weights are made from seeds, so every rank can compute
the whole job's closed-form gradient locally: the loss of rank r is sum_i <w[r][i], y_i>, and
the gradient of the sum over ranks of those losses is checked against the backward.
"""
import numpy
import pytest

import rensa
import rensa.distributed as dist
import rensa.functions as F
from rensa.distributed import functions as mnf


@pytest.fixture(scope='module')
def comm():
    return dist.create_communicator('naive')


def x_of(rank, shape=(2, 3), dtype=numpy.float64):
    return numpy.random.default_rng(100 + rank).standard_normal(shape).astype(dtype)


def w_of(rank, i, shape=(2, 3), dtype=numpy.float64):
    """Rank ``rank``'s loss weight for output i."""
    return numpy.random.default_rng(1000 * (rank + 1) + i).standard_normal(shape).astype(dtype)


def weighted_loss(ys, rank):
    return sum(F.sum(y * w_of(rank, i, y.shape, y.dtype)) for i, y in enumerate(ys))


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_allgather(comm, dtype):
    x = rensa.Variable(x_of(comm.rank, dtype=dtype))
    ys = mnf.allgather(comm, x)
    assert isinstance(ys, tuple) and len(ys) == comm.size
    for i, y in enumerate(ys):
        numpy.testing.assert_array_equal(y.array, x_of(i, dtype=dtype))
    weighted_loss(ys, comm.rank).backward()
    # x of rank r is output r of every rank: its grad is the sum over ranks of their weight r.
    expected = sum(w_of(s, comm.rank) for s in range(comm.size))
    numpy.testing.assert_allclose(x.grad, expected, rtol=1e-5)
    assert x.grad.dtype == dtype


def test_allgather_of_shapes_by_rank(comm):
    x = rensa.Variable(x_of(comm.rank, (comm.rank + 1, 2)))
    ys = mnf.allgather(comm, x)
    assert [y.shape for y in ys] == [(i + 1, 2) for i in range(comm.size)]
    F.sum(ys[0] * 3.0).backward()  # every other output has no grad: zeros
    expected = numpy.full((comm.rank + 1, 2), 3.0 * comm.size if comm.rank == 0 else 0.0)
    numpy.testing.assert_allclose(x.grad, expected)


def test_alltoall(comm):
    xs = [rensa.Variable(x_of(10 * comm.rank + j)) for j in range(comm.size)]
    ys = mnf.alltoall(comm, xs)
    assert len(ys) == comm.size
    for j, y in enumerate(ys):  # output j is what rank j sent here
        numpy.testing.assert_array_equal(y.array, x_of(10 * j + comm.rank))
    weighted_loss(ys, comm.rank).backward()
    # my xs[j] became output `rank` of rank j, weighted there by w[j][rank].
    for j, x in enumerate(xs):
        numpy.testing.assert_allclose(x.grad, w_of(j, comm.rank))


def test_alltoall_needs_size_inputs(comm):
    with pytest.raises(ValueError, match='alltoall: Expect: len\\(xs\\) == comm.size'):
        mnf.alltoall(comm, [rensa.Variable(x_of(0))] * (comm.size + 1))


@pytest.mark.parametrize('root', [0, -1])
def test_bcast(comm, root):
    root = root % comm.size
    x = rensa.Variable(x_of(root)) if comm.rank == root else None
    y = mnf.bcast(comm, x, root=root)
    numpy.testing.assert_array_equal(y.array, x_of(root))
    weighted_loss([y], comm.rank).backward()
    if comm.rank == root:  # every rank's weight flows back to root's x
        numpy.testing.assert_allclose(x.grad, sum(w_of(s, 0) for s in range(comm.size)))


def test_gather(comm):
    root = comm.size - 1
    x = rensa.Variable(x_of(comm.rank))
    ys = mnf.gather(comm, x, root=root)
    if comm.rank == root:
        assert len(ys) == comm.size
        for i, y in enumerate(ys):
            numpy.testing.assert_array_equal(y.array, x_of(i))
        weighted_loss(ys, root).backward()
    else:
        delegate, = ys  # an empty output: the backward starts here
        assert delegate.shape == (0,)
        delegate.grad = numpy.zeros((0,), delegate.dtype)
        delegate.backward()
    numpy.testing.assert_allclose(x.grad, w_of(root, comm.rank))


def test_scatter(comm):
    root = 0
    xs = [rensa.Variable(x_of(20 + i)) for i in range(comm.size)] if comm.rank == root else None
    y = mnf.scatter(comm, xs, root=root)
    numpy.testing.assert_array_equal(y.array, x_of(20 + comm.rank))
    weighted_loss([y], comm.rank).backward()
    if comm.rank == root:
        for i, x in enumerate(xs):
            numpy.testing.assert_allclose(x.grad, w_of(i, 0))


def test_collectives_chain_through_a_model(comm):
    # gather on root, a function there, then scatter back: the gradient goes the whole way.
    # Root's one backward runs scatter's backward, then gather's; the others run the same
    # two in the same order: the loss first, then the gather's delegate.
    x = rensa.Variable(x_of(comm.rank))
    ys = mnf.gather(comm, x, root=0)
    z = mnf.scatter(comm, [y * 2.0 for y in ys] if comm.rank == 0 else None, root=0)
    F.sum(z * z).backward()  # z = 2x on every rank: d/dx sum (2x)^2 = 8x
    if comm.rank != 0:
        delegate, = ys
        delegate.grad = numpy.zeros((0,), delegate.dtype)
        delegate.backward()
    numpy.testing.assert_allclose(x.grad, 8 * x_of(comm.rank))


def test_bad_root(comm):
    with pytest.raises(ValueError, match='bcast: Expect: 0 <= root < comm.size'):
        mnf.bcast(comm, rensa.Variable(x_of(0)), root=comm.size)


def test_pseudo_connect_returns_a_tuple(comm):
    a = rensa.Variable(x_of(0))
    out = mnf.pseudo_connect(None, a)
    assert isinstance(out, tuple) and len(out) == 1
    numpy.testing.assert_array_equal(out[0].array, a.array)
