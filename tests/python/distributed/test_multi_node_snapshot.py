"""chainermn.extensions.multi_node_snapshot on rensa.distributed, every rank (mpiexec -n 2, -n 3):
the masters of the replica sets write the snapshots (the rank in the file name), and autoload
gives every rank of a set its master's state."""
import glob
import os
import shutil
import tempfile

import numpy
import pytest

import rensa
import rensa.distributed as chainermn
import rensa.links as L
from rensa import training
from rensa.training import extensions


@pytest.fixture(scope='module')
def comm():
    return chainermn.create_communicator('naive')


@pytest.fixture
def shared_dir(comm):
    path = tempfile.mkdtemp(prefix='rensa-mns-') if comm.rank == 0 else None
    path = comm.bcast_obj(path)
    yield path
    comm.bcast_obj(None)  # every rank is done with it
    if comm.rank == 0:
        shutil.rmtree(path, ignore_errors=True)


def make_trainer(out, seed):
    rs = numpy.random.RandomState(0)
    data = rensa.datasets.TupleDataset(rs.standard_normal((8, 3)).astype(numpy.float32),
                                       rs.randint(0, 2, 8).astype(numpy.int32))
    model = L.Classifier(L.Linear(3, 2))
    model.predictor.W.array[...] = numpy.random.RandomState(seed).uniform(-1, 1, (2, 3))
    optimizer = rensa.optimizers.SGD(lr=0.1)
    optimizer.setup(model)
    it = rensa.iterators.SerialIterator(data, 4, shuffle=False)
    updater = training.updaters.StandardUpdater(it, optimizer)
    return training.Trainer(updater, (2, 'iteration'), out=out), model


def test_only_masters_write_and_autoload_spreads_the_master_state(comm, shared_dir):
    trainer, model = make_trainer(shared_dir, seed=comm.rank)  # the ranks start apart
    snap = extensions.snapshot(filename='snap_iter_{.updater.iteration}', autoload=True)
    trainer.extend(chainermn.extensions.multi_node_snapshot(comm, snap, [list(range(comm.size))]),
                   trigger=(1, 'iteration'))
    trainer.run()
    comm.bcast_obj(None)
    names = sorted(os.path.basename(f) for f in glob.glob(os.path.join(shared_dir, 'snap_iter_*')))
    assert names == ['snap_iter_1.0', 'snap_iter_2.0']
    master_W = comm.bcast_obj(model.predictor.W.array.copy())

    resumed, model2 = make_trainer(shared_dir, seed=100 + comm.rank)
    snap2 = extensions.snapshot(filename='snap_iter_{.updater.iteration}', autoload=True)
    ext = chainermn.extensions.multi_node_snapshot(comm, snap2, [list(range(comm.size))])
    assert ext.is_master == (comm.rank == 0)
    resumed.extend(ext, trigger=(1, 'iteration'))
    resumed.run()  # loads iteration 2, which is already the end
    numpy.testing.assert_array_equal(model2.predictor.W.array, master_W)
    assert resumed.updater.iteration == 2


def test_each_replica_set_has_its_master(comm, shared_dir):
    if comm.size < 2:
        pytest.skip('needs two ranks')
    trainer, _ = make_trainer(shared_dir, seed=0)
    sets = [[0], list(range(1, comm.size))]
    ext = chainermn.extensions.multi_node_snapshot(
        comm, extensions.snapshot(filename='s_{.updater.iteration}'), sets)
    assert ext.master == (0 if comm.rank == 0 else 1)
    trainer.extend(ext, trigger=(2, 'iteration'))
    trainer.run()
    comm.bcast_obj(None)
    names = sorted(os.path.basename(f) for f in glob.glob(os.path.join(shared_dir, 's_*')))
    assert names == ['s_2.0', 's_2.1']


def test_bad_replica_sets_and_snapshots(comm):
    with pytest.raises(ValueError, match='names rank'):
        chainermn.extensions.multi_node_snapshot(comm, extensions.snapshot(), [[comm.size]])
    if comm.size > 1:
        with pytest.raises(ValueError, match='more than one replica set'):
            chainermn.extensions.multi_node_snapshot(comm, extensions.snapshot(), [[0, 1], [1]])
    with pytest.raises(TypeError, match='expected a snapshot'):
        chainermn.extensions.multi_node_snapshot(comm, extensions.LogReport(), [])
