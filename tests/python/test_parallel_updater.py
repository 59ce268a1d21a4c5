"""ParallelUpdater and MultiprocessParallelUpdater over native devices: the same parameters
as StandardUpdater on the full batch (to rounding), reports of the copies, errors."""
import warnings

import numpy
import pytest

import rensa
from rensa import datasets as D
from rensa import functions as F
from rensa import iterators as I
from rensa import links as L
from rensa import optimizers as O
from rensa.training import updaters as U


class MLP(rensa.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(4, 5)
            self.l2 = L.Linear(5, 3)

    def forward(self, x):
        return self.l2(F.tanh(self.l1(x)))


def make_model(seed=0):
    model = L.Classifier(MLP())
    rs = numpy.random.RandomState(seed)
    for _, p in sorted(model.namedparams()):
        p.array[...] = rs.standard_normal(p.array.shape) * 0.5
    return model


def make_data(n=24, seed=1):
    rs = numpy.random.RandomState(seed)
    return rs.standard_normal((n, 4)).astype(numpy.float32), rs.randint(0, 3, n).astype(numpy.int32)


def params(model):
    return {name: p.array.copy() for name, p in sorted(model.namedparams())}


def assert_same_params(a, b):
    assert a.keys() == b.keys()
    for name in a:
        numpy.testing.assert_allclose(a[name], b[name], rtol=1e-5, atol=1e-6, err_msg=name)


def train_standard(x, t, lr, steps, batch_size):
    model = make_model()
    opt = O.SGD(lr=lr)
    opt.setup(model)
    it = I.SerialIterator(D.TupleDataset(x, t), batch_size, shuffle=False)
    updater = U.StandardUpdater(it, opt)
    for _ in range(steps):
        updater.update()
    return params(model)


def sum_loss(model):
    def loss(x, t):
        return F.sum(F.softmax_cross_entropy(model(x), t, reduce='no'))
    return loss


@pytest.mark.parametrize('devices', [{'main': '@numpy', 'second': -1},
                                     {'main': 'native:0', 'b': '@numpy', 'c': -1}])
def test_parallel_updater_equals_one_device(devices):
    x, t = make_data()
    n = len(devices)
    model = make_model()
    opt = O.SGD(lr=0.1)
    opt.setup(model)
    it = I.SerialIterator(D.TupleDataset(x, t), 6, shuffle=False)
    updater = U.ParallelUpdater(it, opt, devices=devices)
    for _ in range(4):
        updater.update()
    # each copy's loss is its sub-batch's mean: the summed gradient is n times the full mean's
    assert_same_params(params(model), train_standard(x, t, 0.1 * n, 4, 6))
    for name, copy in updater._models.items():
        assert_same_params(params(copy), params(model))  # the copies took the master's parameters
    assert updater.iteration == 4 and updater.epoch == 1


def test_parallel_updater_given_models():
    x, t = make_data()
    model = make_model()
    other = make_model()  # Chainer never copies the master's parameters before the first update
    opt = O.SGD(lr=0.05)
    opt.setup(model)
    it = I.SerialIterator(D.TupleDataset(x, t), 8, shuffle=False)
    updater = U.ParallelUpdater(it, opt, models={'main': model, 'other': other},
                                devices={'main': '@numpy', 'other': '@numpy'})
    for _ in range(3):
        updater.update()
    assert_same_params(params(model), train_standard(x, t, 0.1, 3, 8))
    assert_same_params(params(other), params(model))
    stranger = make_model(seed=5)
    U.ParallelUpdater(I.SerialIterator(D.TupleDataset(x, t), 8), opt, models={'main': model, 'x': stranger},
                      devices={'main': -1, 'x': -1}).update()
    assert_same_params(params(stranger), params(model))  # copyparams after the update


def test_parallel_updater_sum_loss_func():
    # As Chainer, loss_func serves every sub-batch (it is bound to the master): with a
    # sum-reduced loss the dealt sub-batches sum to the full batch's loss.
    x, t = make_data()
    model = make_model()
    opt = O.SGD(lr=0.02)
    opt.setup(model)
    it = I.SerialIterator(D.TupleDataset(x, t), 8, shuffle=False)
    updater = U.ParallelUpdater(it, opt, devices={'main': -1, 'second': -1}, loss_func=sum_loss(model.predictor))
    for _ in range(3):
        updater.update()
    ref = make_model()
    opt_ref = O.SGD(lr=0.02)
    opt_ref.setup(ref)
    ref_updater = U.StandardUpdater(I.SerialIterator(D.TupleDataset(x, t), 8, shuffle=False), opt_ref,
                                    loss_func=sum_loss(ref.predictor))
    for _ in range(3):
        ref_updater.update()
    assert_same_params(params(model), params(ref))


def test_parallel_updater_reports_copies(tmp_path):
    x, t = make_data()
    model = make_model()
    opt = O.SGD(lr=0.1)
    opt.setup(model)
    it = I.SerialIterator(D.TupleDataset(x, t), 6, shuffle=False)
    updater = U.ParallelUpdater(it, opt, devices={'main': '@numpy', 'second': '@numpy'})
    trainer = rensa.training.Trainer(updater, (2, 'iteration'), out=str(tmp_path))
    seen = []

    @rensa.training.make_extension(trigger=(1, 'iteration'))
    def record(trainer):
        seen.append(sorted(k for k in trainer.observation if k.endswith('/loss')))
    trainer.extend(record)
    trainer.run()
    assert seen == [['main/loss', 'second/loss']] * 2


def test_parallel_updater_errors():
    model = make_model()
    opt = O.SGD()
    opt.setup(model)
    it = I.SerialIterator(D.TupleDataset(*make_data()), 4)
    with pytest.raises(ValueError, match='ParallelUpdater: either models or devices must be specified'):
        U.ParallelUpdater(it, opt)
    with pytest.raises(KeyError, match="must contain a 'main' key"):
        U.ParallelUpdater(it, opt, devices={'a': -1, 'b': -1})
    with pytest.raises(KeyError, match='no device for the models'):
        U.ParallelUpdater(it, opt, models={'main': model, 'x': make_model()}, devices={'main': -1})


def interleaved(x, t, batch, n):
    """The data in the order of n workers' batches concatenated step by step."""
    parts = len(x) // n
    order = [w * parts + k * batch + j for k in range(parts // batch) for w in range(n) for j in range(batch)]
    return x[order], t[order]


@pytest.mark.parametrize('devices', [['@numpy', -1], {'main': -1, 'a': 'native:0', 'b': '@numpy'}])
def test_multiprocess_parallel_updater_equals_one_device(devices):
    x, t = make_data()
    n = len(devices)
    data = D.TupleDataset(x, t)
    iterators = [I.SerialIterator(part, 2, shuffle=False) for part in D.split_dataset_n(data, n)]
    model = make_model()
    opt = O.SGD(lr=0.3)
    opt.setup(model)
    with pytest.warns(UserWarning, match='optimizer.lr is changed to'):
        updater = U.MultiprocessParallelUpdater(iterators, opt, devices=devices)
    try:
        for _ in range(5):
            updater.update()
    finally:
        updater.finalize()
    assert all(not w.is_alive() for w in updater._workers)
    xi, ti = interleaved(x, t, 2, n)
    assert_same_params(params(model), train_standard(xi, ti, 0.3, 5, 2 * n))


def test_multiprocess_parallel_updater_in_trainer(tmp_path):
    x, t = make_data()
    iterators = [I.SerialIterator(part, 3) for part in D.split_dataset_n(D.TupleDataset(x, t), 2)]
    model = make_model()
    opt = O.MomentumSGD(lr=0.1)
    opt.setup(model)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        updater = U.MultiprocessParallelUpdater(iterators, opt, devices={'main': '@numpy', 'second': -1})
    trainer = rensa.training.Trainer(updater, (2, 'epoch'), out=str(tmp_path))
    trainer.run()
    assert updater.iteration == 8 and updater.epoch == 2
    assert updater._workers == []  # the trainer's finalize stopped them


def test_multiprocess_parallel_updater_with_multiprocess_iterators():
    x, t = make_data()
    parts = D.split_dataset_n(D.TupleDataset(x, t), 2)
    iterators = [I.MultiprocessIterator(p, 3, shuffle=False, n_processes=1) for p in parts]
    model = make_model()
    opt = O.SGD(lr=0.2)
    opt.setup(model)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        updater = U.MultiprocessParallelUpdater(iterators, opt, devices=['@numpy', '@numpy'])
    try:
        for _ in range(3):
            updater.update()
    finally:
        updater.finalize()
    xi, ti = interleaved(x, t, 3, 2)
    assert_same_params(params(model), train_standard(xi, ti, 0.2, 3, 6))


def test_multiprocess_parallel_updater_worker_error():
    x, t = make_data(8)
    good = D.TupleDataset(x[:4], t[:4])
    bad = D.TupleDataset(x[4:, :3].copy(), t[4:])  # 3 features: Linear(4, 5) rejects them
    model = make_model()
    opt = O.SGD(lr=0.1)
    opt.setup(model)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        updater = U.MultiprocessParallelUpdater([I.SerialIterator(good, 2), I.SerialIterator(bad, 2)], opt,
                                                devices=['@numpy', '@numpy'])
    try:
        with pytest.raises(RuntimeError, match='MultiprocessParallelUpdater.update: a worker failed:\n'
                                               'worker 1 \\(device'):
            updater.update()
    finally:
        updater.finalize()


def test_multiprocess_parallel_updater_arguments():
    model = make_model()
    opt = O.Adam()
    opt.setup(model)
    its = [I.SerialIterator(D.TupleDataset(*make_data(8)), 2) for _ in range(2)]
    with pytest.raises(ValueError, match='one iterator per device, Actual: 2 iterators for 3 devices'):
        U.MultiprocessParallelUpdater(its, opt, devices=[-1, -1, -1])
    with pytest.raises(ValueError, match='devices as a dict, list or tuple'):
        U.MultiprocessParallelUpdater(its, opt, devices='@numpy')
    with pytest.raises(KeyError, match="'main' key"):
        U.MultiprocessParallelUpdater(its, opt, devices={'a': -1, 'b': -1})
    with pytest.warns(UserWarning, match='optimizer.eps is changed'):
        U.MultiprocessParallelUpdater(its, opt, devices=[-1, -1]).finalize()
    assert U.MultiprocessParallelUpdater.available()


OPENMP_SCRIPT = '''
import warnings
import numpy
import rensa
from rensa import datasets as D, functions as F, iterators as I, links as L, optimizers as O
from rensa.training import updaters as U
x = numpy.random.RandomState(0).standard_normal((400, 300)).astype(numpy.float32)
t = numpy.zeros(400, numpy.int32)
model = L.Classifier(L.Linear(300, 300))
opt = O.SGD()
opt.setup(model)
F.tanh(x)  # a parallel region in the parent before the fork
its = [I.SerialIterator(p, 200) for p in D.split_dataset_n(D.TupleDataset(F.tanh(x).array, t), 2)]
warnings.simplefilter('ignore')
updater = U.MultiprocessParallelUpdater(its, opt, devices=[-1, -1])
for _ in range(2):
    updater.update()
updater.finalize()
print('done')
'''


def test_workers_survive_openmp_in_the_parent(tmp_path):
    # See Note [OpenMP after fork]: without the single-thread setting the worker hangs.
    import os
    import subprocess
    import sys
    script = tmp_path / 'openmp_fork.py'
    script.write_text(OPENMP_SCRIPT)
    env = dict(os.environ, OMP_NUM_THREADS='2')
    proc = subprocess.Popen([sys.executable, str(script)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)  # the script and its hung worker
        proc.communicate()
        pytest.fail('a forked worker hung (OpenMP after fork)')
    assert proc.returncode == 0 and 'done' in output, output[-2000:]
