"""rensa.distributed's training side, run by every rank (mpiexec -n 2 and -n 3).

Models are Python Chains; each rank's data is made from a seed so the numpy reference
of the whole job is computed locally. Every rank takes the same collectives in order.
"""
import os
import shutil
import tempfile

import numpy
import pytest

import rensa
import rensa.distributed as dist
import rensa.links as L


@pytest.fixture(scope='module')
def comm():
    return dist.create_communicator('flat')


class MLP(rensa.Chain):
    def __init__(self, n_in=3, n_hidden=4, n_out=2):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(n_in, n_hidden)
            self.l2 = L.Linear(n_hidden, n_out)

    def forward(self, x):
        return self.l2(self.l1(x))


def seeded_model(seed):
    model = MLP()
    rng = numpy.random.default_rng(seed)
    for _, param in sorted(model.namedparams()):
        param.array[...] = rng.standard_normal(param.shape)
    return model


def backward_sum_of_squares(y):
    """backward() of sum(y ** 2): its gradient 2y is set on y (no rensa.functions needed)."""
    y.grad = 2 * numpy.array(y.array)
    y.backward()


def rank_x(rank, n=5):
    return numpy.random.default_rng(1000 + rank).standard_normal((n, 3)).astype(numpy.float32)


def params(model):
    return {name: numpy.array(p.array) for name, p in sorted(model.namedparams())}


def grads(model):
    return {name: numpy.array(p.grad) for name, p in sorted(model.namedparams())}


def test_bcast_data_and_mean_grad(comm):
    model = seeded_model(comm.rank)
    comm.bcast_data(model)
    root_params = params(seeded_model(0))
    for name, value in params(model).items():
        numpy.testing.assert_array_equal(value, root_params[name])

    model.cleargrads()
    backward_sum_of_squares(model(rank_x(comm.rank)))
    comm.multi_node_mean_grad(model)

    expected = {}
    for r in range(comm.size):
        ref = seeded_model(0)
        ref.cleargrads()
        backward_sum_of_squares(ref(rank_x(r)))
        for name, g in grads(ref).items():
            expected[name] = expected.get(name, 0) + g / comm.size
    for name, g in grads(model).items():
        numpy.testing.assert_allclose(g, expected[name], rtol=1e-5, atol=1e-6)


def test_mismatched_models_raise_mpi_error(comm):
    if comm.size < 2:
        pytest.skip('needs two ranks')
    model = MLP(n_hidden=4 + comm.rank)  # l1/W and l2/W differ between ranks
    with pytest.raises(dist.MpiError, match='l1/W'):
        comm.bcast_data(model)


@pytest.mark.parametrize('double_buffering', [False, True])
def test_multi_node_optimizer_keeps_ranks_identical(comm, double_buffering):
    model = seeded_model(comm.rank)
    lr = 0.1
    optimizer = dist.create_multi_node_optimizer(rensa.optimizers.SGD(lr=lr), comm,
                                                 double_buffering=double_buffering)
    optimizer.setup(model)
    assert optimizer.lr == lr  # attribute access falls through to the actual optimizer
    optimizer.lr = lr / 2
    assert optimizer.actual_optimizer.lr == lr / 2
    optimizer.lr = lr
    for step in range(3):
        model.cleargrads()
        backward_sum_of_squares(model(rank_x(comm.rank + 10 * step)))
        local_grads = grads(model)
        before = params(model)
        optimizer.update()
        after = params(model)
        everyone = comm.allgather_obj(after)
        for other in everyone:
            for name in after:
                numpy.testing.assert_array_equal(other[name], after[name])
        if double_buffering:  # updates lag one step behind: only the agreement is checked
            continue
        if step > 0:  # the first update only broadcasts rank 0's parameters
            all_grads = comm.allgather_obj(local_grads)
            for name in after:
                mean = numpy.mean([g[name] for g in all_grads], axis=0)
                numpy.testing.assert_allclose(after[name], before[name] - lr * mean, rtol=1e-5, atol=1e-6)
        else:
            root_params = params(seeded_model(0))
            for name in after:
                numpy.testing.assert_array_equal(after[name], root_params[name])
    if double_buffering:  # step 2 applied step 1's averaged grads
        root_params = params(seeded_model(0))
        assert any(not numpy.array_equal(after[name], root_params[name]) for name in after)


def make_classification(n=7):
    rng = numpy.random.default_rng(7)
    x = rng.standard_normal((n, 3)).astype(numpy.float32)
    t = rng.integers(0, 2, n).astype(numpy.int32)
    return x, t


def test_multi_node_evaluator_exact_mean(comm):
    x, t = make_classification()
    dataset = rensa.datasets.TupleDataset(x, t) if comm.rank == 0 else None
    shard = dist.scatter_dataset(dataset, comm, force_equal_length=False)
    model = L.Classifier(seeded_model(0))
    iterator = rensa.iterators.SerialIterator(shard, 2, repeat=False, shuffle=False)
    evaluator = dist.create_multi_node_evaluator(rensa.training.extensions.Evaluator(iterator, model), comm)
    result = evaluator.evaluate()
    with rensa.no_backprop_mode():
        y = numpy.array(model.predictor(x).array, dtype=numpy.float64)
    log_softmax = y - y.max(axis=1, keepdims=True)
    log_softmax -= numpy.log(numpy.exp(log_softmax).sum(axis=1, keepdims=True))
    loss = -log_softmax[numpy.arange(len(t)), t].mean()
    accuracy = (y.argmax(axis=1) == t).mean()
    assert float(result['main/loss']) == pytest.approx(loss, rel=1e-5)
    assert float(result['main/accuracy']) == pytest.approx(accuracy, rel=1e-6)


@pytest.mark.parametrize('force_equal_length', [True, False])
def test_scatter_dataset_of_list(comm, force_equal_length):
    n = 10
    data = [(i, 'example %d' % i) for i in range(n)] if comm.rank == 0 else None
    shard = dist.scatter_dataset(data, comm, shuffle=True, seed=3, force_equal_length=force_equal_length)
    shards = comm.allgather_obj(list(shard))
    lengths = [len(s) for s in shards]
    seen = sorted(e for s in shards for e in s)
    if force_equal_length:
        assert lengths == [-(-n // comm.size)] * comm.size
        assert sorted(set(seen)) == [(i, 'example %d' % i) for i in range(n)]
    else:
        assert sum(lengths) == n and max(lengths) - min(lengths) <= 1
        assert seen == [(i, 'example %d' % i) for i in range(n)]


def test_scatter_dataset_of_tuple_dataset(comm):
    n = 11
    x = numpy.arange(n * 2, dtype=numpy.float32).reshape(n, 2)
    t = numpy.arange(n, dtype=numpy.int32)
    shard = dist.scatter_dataset(rensa.datasets.TupleDataset(x, t) if comm.rank == 0 else None, comm,
                                 force_equal_length=False)
    begin, end = dist.scatter_index(n, comm, force_equal_length=False)
    assert len(shard) == end - begin
    for i in range(len(shard)):
        xi, ti = shard[i]
        numpy.testing.assert_array_equal(xi, x[begin + i])
        assert int(ti) == t[begin + i]
    assert sum(comm.allgather_obj(len(shard))) == n


def test_send_recv_through_the_graph(comm):
    # rank 0: y = x * 2 -> rank 1: z = sum(y ** 2) -> gradient back to rank 0's x.
    if comm.size < 2:
        pytest.skip('needs two ranks')
    x_value = rank_x(0, 2)
    if comm.rank == 0:
        x = rensa.Variable(x_value)
        delegate = dist.functions.send(x * 2, comm, rank=1)
        delegate.backward()
        numpy.testing.assert_allclose(x.grad, 8 * x_value, rtol=1e-6)  # d/dx sum((2x)^2)
    elif comm.rank == 1:
        y = dist.functions.recv(comm, rank=0)
        numpy.testing.assert_array_equal(y.array, 2 * x_value)
        backward_sum_of_squares(y)
    comm.barrier()


def test_multi_node_batch_normalization_matches_concatenated_batch(comm):
    bn = dist.links.MultiNodeBatchNormalization(3, comm)
    x = rank_x(comm.rank, 4)
    y = bn(x)
    everything = numpy.concatenate([rank_x(r, 4) for r in range(comm.size)])
    mean, var = everything.mean(axis=0), everything.var(axis=0)
    numpy.testing.assert_allclose(y.array, (x - mean) / numpy.sqrt(var + 2e-5), rtol=1e-4, atol=1e-5)


class Identity(rensa.Chain):
    def forward(self, x):
        return x


class Pipeline(dist.MultiNodeChainList):
    """Rank 0: l0 (3 -> 4), output to rank 1; rank 1: l1 (4 -> 2), back to rank 0."""

    def __init__(self, comm, first):
        super().__init__(comm=comm)
        if comm.rank == 0:
            self.add_link(first, rank_in=None, rank_out=1)
            self.add_link(Identity(), rank_in=1, rank_out=None)
        elif comm.rank == 1:
            self.add_link(seeded_linear(4, 2, 1), rank_in=0, rank_out=0)


def seeded_linear(n_in, n_out, seed):
    link = L.Linear(n_in, n_out)
    rng = numpy.random.default_rng(seed)
    link.W.array[...] = rng.standard_normal((n_out, n_in))
    link.b.array[...] = rng.standard_normal(n_out)
    return link


def test_multi_node_chain_list_subclass(comm):
    if comm.size < 2:
        pytest.skip('needs two ranks')
    first = seeded_linear(3, 4, 0)
    model = Pipeline(comm, first)
    x = rank_x(0, 3)
    if comm.rank == 0:
        y = model(x)
        backward_sum_of_squares(y)
        # The single-process reference with the same weights.
        l0, l1 = seeded_linear(3, 4, 0), seeded_linear(4, 2, 1)
        y_ref = l1(l0(x))
        backward_sum_of_squares(y_ref)
        numpy.testing.assert_allclose(y.array, y_ref.array, rtol=1e-5)
        numpy.testing.assert_allclose(first.W.grad, l0.W.grad, rtol=1e-4, atol=1e-5)
    elif comm.rank == 1:
        model().backward()
    comm.barrier()


def test_allreduce_persistent(comm):
    bn = dist.links.MultiNodeBatchNormalization(3, comm)
    bn(rank_x(comm.rank, 4))  # running statistics of the global batch: equal on every rank
    bn.avg_mean[...] = comm.rank + numpy.arange(3)
    dist.extensions.allreduce_persistent(bn, comm)
    numpy.testing.assert_allclose(bn.avg_mean, numpy.mean(range(comm.size)) + numpy.arange(3), rtol=1e-6)


@pytest.fixture
def shared_dir(comm):
    """A folder every rank sees (pytest's tmp_path would race: ranks share its base)."""
    path = comm.bcast_obj(tempfile.mkdtemp(prefix='rensa-dist-') if comm.rank == 0 else None)
    yield path
    comm.barrier()
    if comm.rank == 0:
        shutil.rmtree(path, ignore_errors=True)


def test_multi_node_checkpointer_resumes(comm, shared_dir):
    path = os.path.join(shared_dir, 'checkpoints')
    x, t = make_classification(8)

    def make_trainer():
        model = L.Classifier(seeded_model(comm.rank))
        optimizer = dist.create_multi_node_optimizer(rensa.optimizers.SGD(lr=0.1), comm)
        optimizer.setup(model)
        iterator = rensa.iterators.SerialIterator(rensa.datasets.TupleDataset(x, t), 4, shuffle=False)
        updater = rensa.training.StandardUpdater(iterator, optimizer)
        return rensa.training.Trainer(updater, (3, 'iteration'), out=path), model

    trainer, model = make_trainer()
    checkpointer = dist.extensions.create_multi_node_checkpointer('run', comm, path=path, cleanup=False)
    trainer.extend(checkpointer, trigger=(1, 'iteration'))
    trainer.run()
    assert checkpointer.iterations == [1, 2, 3]

    resumed, resumed_model = make_trainer()
    loader = dist.extensions.create_multi_node_checkpointer('run', comm, path=path)
    assert loader.maybe_load(resumed) == 3
    assert resumed.updater.iteration == 3
    for name, value in params(resumed_model).items():
        numpy.testing.assert_array_equal(value, params(model)[name])


def test_multi_node_early_stopping_trigger(comm, shared_dir):
    x, t = make_classification(8)
    model = L.Classifier(seeded_model(0))
    optimizer = dist.create_multi_node_optimizer(rensa.optimizers.SGD(lr=0.0), comm)  # the loss never improves
    optimizer.setup(model)
    iterator = rensa.iterators.SerialIterator(rensa.datasets.TupleDataset(x, t), 8, shuffle=False)  # same batch each time
    updater = rensa.training.StandardUpdater(iterator, optimizer)
    stop = dist.extensions.MultiNodeEarlyStoppingTrigger(comm, check_trigger=(1, 'iteration'), monitor='main/loss',
                                                         patience=2, mode='min', max_trigger=(50, 'iteration'))
    trainer = rensa.training.Trainer(updater, stop, out=os.path.join(shared_dir, 'rank%d' % comm.rank))
    trainer.run()
    # Checks at 1 (best set), 2 and 3 (no improvement twice): every rank stops at 3.
    assert comm.allgather_obj(updater.iteration) == [3] * comm.size
