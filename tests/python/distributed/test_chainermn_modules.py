"""chainermn's modules on rensa.distributed, run by every rank (mpiexec -n 2, -n 3): the
module layout, datasets, iterators, ObservationAggregator, create_mnbn_model,
create_multi_node_n_step_rnn."""
import numpy
import pytest

import rensa
import rensa.distributed as chainermn
import rensa.functions as F
import rensa.links as L
from rensa import training
from rensa.training import extensions


@pytest.fixture(scope='module')
def comm():
    return chainermn.create_communicator('naive')


def test_layout():
    # What ChainerMN scripts name, after `import rensa.distributed as chainermn`.
    from rensa.distributed.datasets import DataSizeError, create_empty_dataset, scatter_dataset, scatter_index
    from rensa.distributed.extensions import (AllreducePersistent, GenericMultiNodeEvaluator, ObservationAggregator,
                                              create_multi_node_checkpointer, create_multi_node_evaluator)
    from rensa.distributed.functions import allgather, alltoall, bcast, gather, pseudo_connect, recv, scatter, send
    from rensa.distributed.iterators import create_multi_node_iterator, create_synchronized_iterator
    from rensa.distributed.links import (MultiNodeBatchNormalization, MultiNodeChainList, create_mnbn_model,
                                         create_multi_node_n_step_rnn)
    assert chainermn.scatter_dataset is scatter_dataset and chainermn.scatter_index is scatter_index
    assert chainermn.DataSizeError is DataSizeError and issubclass(DataSizeError, RuntimeError)
    assert chainermn.MultiNodeChainList is MultiNodeChainList
    assert chainermn.create_multi_node_evaluator is create_multi_node_evaluator
    assert chainermn.create_multi_node_checkpointer is create_multi_node_checkpointer
    assert all(callable(f) for f in (create_empty_dataset, AllreducePersistent, GenericMultiNodeEvaluator,
                                     ObservationAggregator, allgather,
                                     alltoall, bcast, gather, pseudo_connect, recv, scatter, send,
                                     create_multi_node_iterator, create_synchronized_iterator,
                                     MultiNodeBatchNormalization, create_mnbn_model, create_multi_node_n_step_rnn))


def test_create_empty_dataset_and_scatter_index(comm):
    empty = chainermn.datasets.create_empty_dataset(list(range(7)))
    assert len(empty) == 7 and empty[3] == ()
    shards = comm.allgather_obj(chainermn.scatter_index(10, comm, force_equal_length=False))
    assert shards[0][0] == 0 and shards[-1][1] == 10
    assert all(a[1] == b[0] for a, b in zip(shards, shards[1:]))


def test_multi_node_iterator_gives_the_masters_batches(comm):
    master = comm.size - 1
    data = [(numpy.full(2, i, numpy.float32), numpy.int32(i)) for i in range(7)]
    actual = rensa.iterators.SerialIterator(data, 3, repeat=False, shuffle=True) if comm.rank == master else None
    it = chainermn.iterators.create_multi_node_iterator(actual, comm, rank_master=master)
    batches, epochs = [], []
    for batch in it:
        batches.append([int(t) for _, t in batch])
        epochs.append((it.epoch, it.current_position, it.is_new_epoch))
    assert sum(len(b) for b in batches) == 7 and sorted(sum(batches, [])) == list(range(7))
    everyone = comm.allgather_obj((batches, epochs))
    assert all(e == everyone[master] for e in everyone)


def test_multi_node_iterator_bad_master(comm):
    with pytest.raises(ValueError, match='rank_master=.* is not a rank'):
        chainermn.iterators.create_multi_node_iterator(None, comm, rank_master=comm.size)


def test_synchronized_iterator_shares_the_order(comm):
    data = list(range(10))
    it = chainermn.iterators.create_synchronized_iterator(rensa.iterators.SerialIterator(data, 4), comm)
    mine = [next(it) for _ in range(5)]  # two epochs: each a permutation
    assert sorted(mine[0] + mine[1] + mine[2][:2]) == data
    everyone = comm.allgather_obj(mine)
    assert all(e == everyone[0] for e in everyone)
    assert everyone[0][:3] != [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 0, 1]]  # shuffled


def test_synchronized_iterator_needs_an_order_sampler(comm):
    with pytest.raises(ValueError, match='must have an order_sampler'):
        chainermn.iterators.create_synchronized_iterator(iter([]), comm)


class Recorder(training.Extension):
    """Reads the observation after the aggregator (a lower priority)."""
    priority = training.PRIORITY_READER

    def __init__(self):
        self.seen = []

    def __call__(self, trainer):
        obs = trainer.observation
        self.seen.append((float(obs['main/loss']), float(obs['main/loss_mean']) if 'main/loss_mean' in obs else None))


def test_observation_aggregator_means_over_ranks(comm):
    rng = numpy.random.default_rng(comm.rank)
    x = rng.standard_normal((6, 3)).astype(numpy.float32)
    t = rng.integers(0, 2, 6).astype(numpy.int32)
    model = L.Classifier(L.Linear(3, 2))
    optimizer = rensa.optimizers.SGD(lr=0.0)  # the loss stays each rank's own
    optimizer.setup(model)
    it = rensa.iterators.SerialIterator(rensa.datasets.TupleDataset(x, t), 6)
    trainer = training.Trainer(training.updaters.StandardUpdater(it, optimizer), (4, 'iteration'))
    trainer.extend(chainermn.extensions.ObservationAggregator(comm, 'main/loss', 'main/loss_mean',
                                                              comm_trigger=(2, 'iteration')))
    recorder = Recorder()
    trainer.extend(recorder)
    trainer.run()
    losses = comm.allgather_obj([loss for loss, _ in recorder.seen])
    assert [mean for _, mean in recorder.seen][0::2] == [None, None]
    for k in (1, 3):  # the mean of every rank's two losses since the last communication
        expected = numpy.mean([rank_losses[k - 1:k + 1] for rank_losses in losses])
        assert recorder.seen[k][1] == pytest.approx(expected, rel=1e-5)


class BNNet(rensa.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l = L.Linear(3, 4)
            self.bn = L.BatchNormalization(4)
            self.seq = rensa.Sequential(L.Linear(4, 4), L.BatchNormalization(4, use_gamma=False), F.relu)
        self.note = 'kept'

    def forward(self, x):
        return self.seq(self.bn(self.l(x)))


def test_create_mnbn_model(comm):
    model = BNNet()
    rng = numpy.random.default_rng(7)  # the same model on every rank
    for _, param in sorted(model.namedparams()):
        param.array[...] = rng.standard_normal(param.shape)
    model.bn.avg_mean[...] = 0.5  # statistics are copied too
    mn = chainermn.links.create_mnbn_model(model, comm)
    assert type(mn) is BNNet and mn.note == 'kept'
    assert isinstance(mn.bn, chainermn.links.MultiNodeBatchNormalization)
    assert isinstance(mn.seq[1], chainermn.links.MultiNodeBatchNormalization) and mn.seq[2] is F.relu
    assert isinstance(model.bn, L.BatchNormalization)  # the original is unchanged
    assert sorted(n for n, _ in mn.namedparams()) == sorted(n for n, _ in model.namedparams())
    for (_, a), (_, b) in zip(sorted(mn.namedparams()), sorted(model.namedparams())):
        numpy.testing.assert_array_equal(a.array, b.array)
        assert a is not b
    numpy.testing.assert_array_equal(mn.bn.avg_mean, numpy.full(4, 0.5, numpy.float32))
    # The batch statistics are over every rank's batch: the whole job's batch at once.
    xs = [numpy.random.default_rng(50 + r).standard_normal((3, 3)).astype(numpy.float32) for r in range(comm.size)]
    y = mn(xs[comm.rank])
    whole = model(numpy.concatenate(xs))
    numpy.testing.assert_allclose(y.array, whole.array[3 * comm.rank:3 * comm.rank + 3], rtol=1e-4, atol=1e-5)


class FakeNStepLSTM(rensa.Chain):
    """An NStep-shaped link (n_cells = 2; (hx, cx, xs) -> (hy, cy, ys)) from Linears."""
    n_cells = 2

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l = L.Linear(2, 2)

    def forward(self, hx, cx, xs):
        h = self.l(xs[0]) if hx is None else self.l(xs[0]) + hx
        c = h * 2.0 if cx is None else h * 2.0 + cx
        return h, c, [h + c]


def test_create_multi_node_n_step_rnn(comm):
    if comm.size < 2:
        pytest.skip('needs two ranks')
    if comm.rank > 1:
        return
    rnn = FakeNStepLSTM()
    rnn.l.W.array[...] = [[1., 2.], [3., 4.]]
    rnn.l.b.array[...] = 0.
    x = rensa.Variable(numpy.ones((1, 2), numpy.float32))
    link = chainermn.links.create_multi_node_n_step_rnn(rnn, comm, rank_in=None if comm.rank == 0 else 0,
                                                        rank_out=1 if comm.rank == 0 else None)
    hy, cy, ys, delegate = link([x])  # the cells come from rank_in (None: none)
    if comm.rank == 0:
        delegate.grad = numpy.zeros_like(delegate.array)
        delegate.backward()
        # rank 1: h1 = l1(x) + h0, c1 = 2 h1 + c0, y = h1 + c1 = 3 l1(x) + 3 h0 + c0, and rank 0's
        # c0 = 2 h0: loss = sum(y) has d/dh0 = 5, so rank 0's W.grad is 5 x (x = ones).
        numpy.testing.assert_allclose(rnn.l.W.grad, numpy.full((2, 2), 5.0))
    else:
        assert delegate is None
        numpy.testing.assert_allclose(hy.array, [[6., 14.]])  # l(x) + rank 0's h0 = 2 l(x)
        F.sum(ys[0]).backward()
        numpy.testing.assert_allclose(rnn.l.W.grad, numpy.full((2, 2), 3.0))


def test_create_multi_node_n_step_rnn_with_nstep_lstm(comm):
    # Rank 0's NStepLSTM hands its final cells to rank 1's, which starts from them: rank 1
    # gets what one process running both stacks one after the other gets.
    if comm.size < 2:
        pytest.skip('needs two ranks')
    if comm.rank > 1:
        return
    rs = numpy.random.RandomState(3)

    def make():
        rnn = L.NStepLSTM(1, 3, 4, 0.0)
        for _, param in sorted(rnn.namedparams()):
            param.array[...] = rs.uniform(-0.5, 0.5, param.shape)
        return rnn

    first, second = make(), make()
    xs = [rs.standard_normal((n, 3)).astype(numpy.float32) for n in (3, 2)]
    link = chainermn.links.create_multi_node_n_step_rnn(first if comm.rank == 0 else second, comm,
                                                        rank_in=None if comm.rank == 0 else 0,
                                                        rank_out=1 if comm.rank == 0 else None)
    hy, cy, ys, delegate = link(xs)
    if comm.rank == 0:
        delegate.grad = numpy.zeros_like(delegate.array)
        delegate.backward()
        assert first.ws[0][0].grad is not None and numpy.abs(first.ws[0][0].grad).sum() > 0
    else:
        assert delegate is None
        h0, c0, _ = first(None, None, xs)
        ref_hy, ref_cy, ref_ys = second(h0, c0, xs)
        numpy.testing.assert_allclose(hy.array, ref_hy.array, rtol=1e-5, atol=1e-6)
        numpy.testing.assert_allclose(cy.array, ref_cy.array, rtol=1e-5, atol=1e-6)
        for y, ref in zip(ys, ref_ys):
            numpy.testing.assert_allclose(y.array, ref.array, rtol=1e-5, atol=1e-6)
        F.sum(F.concat(list(ys), axis=0)).backward()


def test_multi_node_iterator_in_a_trainer(comm):
    # The other ranks' epochs come from the master, so an epoch stop trigger ends every rank
    # after the same iteration.
    rng = numpy.random.RandomState(0)
    x, t = rng.standard_normal((12, 3)).astype(numpy.float32), rng.randint(0, 2, 12).astype(numpy.int32)
    actual = rensa.iterators.SerialIterator(rensa.datasets.TupleDataset(x, t), 4) if comm.rank == 0 else None
    it = chainermn.iterators.create_multi_node_iterator(actual, comm)
    optimizer = rensa.optimizers.SGD()
    optimizer.setup(L.Classifier(L.Linear(3, 2)))
    trainer = training.Trainer(training.updaters.StandardUpdater(it, optimizer), (2, 'epoch'))
    seen = []
    trainer.extend(lambda tr: seen.append((tr.updater.iteration, tr.updater.epoch_detail)), trigger=(1, 'iteration'))
    trainer.run()
    assert seen == [(i, pytest.approx(i / 3)) for i in range(1, 7)]


def test_generic_multi_node_evaluator_gathers_every_batch(comm):
    # Rank r holds 4 + 7r examples in batches of 2: the ranks run out at different rounds,
    # and rank 2 (at np=3) needs more than one gather interval.
    def examples(rank):
        return [numpy.full(2, 100 * rank + i, numpy.float32) for i in range(4 + 7 * rank)]

    class Sums(chainermn.extensions.GenericMultiNodeEvaluator):
        def aggregate(self, results):
            return sorted(results)

    it = rensa.iterators.SerialIterator(examples(comm.rank), 2, repeat=False, shuffle=False)
    evaluator = Sums(comm, it, lambda x: float(x.sum()), root=comm.size - 1)
    for _ in range(2):  # the iterator is reset each call
        got = evaluator()
        if comm.rank == comm.size - 1:
            expected = sorted(float(sum(e.sum() for e in examples(r)[i:i + 2]))
                              for r in range(comm.size) for i in range(0, 4 + 7 * r, 2))
            assert got == expected
        else:
            assert got is None
