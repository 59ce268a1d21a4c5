"""rensa.mixed_bf16 (issue 24): the config value, links and optimizers under it, an NPZ round
trip, and one epoch of Fashion-MNIST in float32 and in mixed_bf16 from the same weights.

Parameters in bfloat16 read back as float32 numpy arrays (numpy has no bfloat16), so the
tests compare values through float32."""
import os
import subprocess
import sys

import numpy
import pytest

import rensa
import rensa.functions as F
import rensa.links as L
import rensa.optimizers as O
from rensa import serializers


def _bf16(a):
    """float32 values rounded to bfloat16 (round to nearest even), as float32."""
    bits = numpy.asarray(a, numpy.float32).view(numpy.uint32).astype(numpy.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(numpy.uint32).view(numpy.float32)


def _values(v):
    """The values of a parameter or Variable of any float dtype, as a float32 numpy array."""
    return numpy.asarray(F.cast(v, numpy.float32).array)


def test_mixed_bf16_value_and_config():
    assert repr(rensa.mixed_bf16) == "dtype('mixed_bf16')"
    assert rensa.config.dtype == numpy.float32
    with rensa.using_config('dtype', rensa.mixed_bf16):
        assert rensa.config.dtype is rensa.mixed_bf16
        assert rensa.get_dtype(map_mixed16=numpy.float32) == numpy.float32
        assert rensa.get_dtype() == rensa.mixed_bf16.dtype
        assert L.Linear(3, 2).W.dtype == rensa.get_dtype()
    with rensa.using_config('dtype', 'mixed_bf16'):
        assert rensa.config.dtype is rensa.mixed_bf16
    with rensa.using_config('dtype', rensa.mixed16):
        assert rensa.config.dtype is rensa.mixed16
        assert rensa.get_dtype() == numpy.float16
    assert rensa.config.dtype == numpy.float32
    with pytest.raises(TypeError, match='mixed16 or mixed_bf16'):
        rensa.config.dtype = numpy.int32


def test_chainer_dtype_environment_variable():
    env = dict(os.environ, CHAINER_DTYPE='mixed_bf16')
    code = 'import rensa; print(repr(rensa.config.dtype), repr(rensa.global_config.dtype))'
    out = subprocess.run([sys.executable, '-c', code], env=env, stdout=subprocess.PIPE, text=True, check=True)
    assert out.stdout.split() == ["dtype('mixed_bf16')"] * 2


def test_links_under_mixed_bf16():
    with rensa.using_config('dtype', rensa.mixed_bf16):
        linear = L.Linear(4, 3)
        bn = L.BatchNormalization(3)
        ln = L.LayerNormalization(3)
        y = ln(bn(linear(numpy.ones((2, 4), numpy.float32))))  # a float32 batch is cast by Linear
    assert linear.W.dtype == rensa.mixed_bf16.dtype and linear.b.dtype == rensa.mixed_bf16.dtype
    for p in (bn.gamma, bn.beta, ln.gamma, ln.beta):
        assert p.dtype == numpy.float32
    assert bn.avg_mean.dtype == numpy.float32
    assert y.dtype == rensa.mixed_bf16.dtype
    with pytest.raises(TypeError, match='linear: Expect: W.dtype == x.dtype'):
        linear(numpy.ones((2, 4), numpy.float32))  # outside the mixed config: no cast


def _saved(obj, path):
    """What save_npz stores for `obj`, as a dict of numpy arrays."""
    serializers.save_npz(str(path), obj)
    with numpy.load(str(path)) as f:
        return {k: f[k] for k in f.files}


def _mixed_setup(optimizer, link):
    with rensa.using_config('dtype', rensa.mixed_bf16):
        optimizer.setup(link)
    return optimizer


def test_optimizer_keeps_float32_masters(tmp_path):
    with rensa.using_config('dtype', rensa.mixed_bf16):
        link = L.Linear(3, 2)
    optimizer = _mixed_setup(O.SGD(lr=1e-3), link)
    assert link.W.update_rule.use_fp32_update
    w0 = _values(link.W)
    for _ in range(50):
        link.cleargrads()
        with rensa.using_config('dtype', rensa.mixed_bf16):
            F.sum(link(numpy.ones((1, 3), numpy.float32))).backward()  # grads of W and b: ones
        optimizer.update()
    stored = _saved(optimizer, tmp_path / 'optimizer.npz')
    master = stored['W/fp32_param']
    assert master.dtype == numpy.float32
    numpy.testing.assert_array_equal(_values(link.W), _bf16(master))
    # b starts at 0; 50 steps of 1e-3 are 0.05 in the master (float32 rounding only).
    numpy.testing.assert_allclose(stored['b/fp32_param'], -0.05, rtol=1e-5)
    # Every element of W's master moved by the 50 steps, also those at or above 0.25 in
    # magnitude, where one step of 1e-3 is below half of bfloat16's spacing (>= 2^-9).
    numpy.testing.assert_allclose(master, w0 - 0.05, atol=1e-6)
    assert (numpy.abs(w0) >= 0.25).any()

    # use_fp32_update(False) after setup turns it off (Note [Automatic fp32 update]).
    optimizer.use_fp32_update(False)
    assert not link.W.update_rule.use_fp32_update


def test_npz_round_trip_continues_exactly(tmp_path):
    def make():
        with rensa.using_config('dtype', rensa.mixed_bf16):
            numpy.random.seed(0)
            return L.Classifier(L.Linear(6, 4))

    rng = numpy.random.RandomState(1)
    batches = [(rng.uniform(-1, 1, (8, 6)).astype(numpy.float32), rng.randint(0, 4, 8).astype(numpy.int32))
               for _ in range(4)]

    def step(model, optimizer, batch):
        with rensa.using_config('dtype', rensa.mixed_bf16):
            optimizer.update(model, *batch)

    model = make()
    optimizer = _mixed_setup(O.Adam(), model)
    for batch in batches[:3]:
        step(model, optimizer, batch)
    serializers.save_npz(str(tmp_path / 'model.npz'), model)
    serializers.save_npz(str(tmp_path / 'optimizer.npz'), optimizer)
    stored = numpy.load(str(tmp_path / 'optimizer.npz'))
    assert stored['predictor/W/fp32_param'].dtype == numpy.float32

    resumed = make()
    resumed_optimizer = _mixed_setup(O.Adam(), resumed)
    serializers.load_npz(str(tmp_path / 'model.npz'), resumed)
    serializers.load_npz(str(tmp_path / 'optimizer.npz'), resumed_optimizer)
    for a, b in zip(model.params(), resumed.params()):
        numpy.testing.assert_array_equal(_values(a), _values(b))
    saved, resaved = _saved(optimizer, tmp_path / 'a.npz'), _saved(resumed_optimizer, tmp_path / 'b.npz')
    assert saved.keys() == resaved.keys()
    for key in saved:
        numpy.testing.assert_array_equal(saved[key], resaved[key])
    step(model, optimizer, batches[3])
    step(resumed, resumed_optimizer, batches[3])
    for a, b in zip(model.params(), resumed.params()):
        numpy.testing.assert_array_equal(_values(a), _values(b))


_FASHION = [os.path.join(os.environ.get('RENSA_DATASET_ROOT', ''), 'fashion-mnist'), '/usr/share/datasets/fashion-mnist']


def _fashion_subset():
    if not any(os.path.isdir(p) for p in _FASHION):
        pytest.skip('Fashion-MNIST is not installed (Debian dataset-fashion-mnist)')
    train, test = rensa.datasets.get_fashion_mnist()
    x, t = rensa.dataset.concat_examples(train[:10000])
    tx, tt = rensa.dataset.concat_examples(test[:2000])
    return (numpy.asarray(x), numpy.asarray(t)), (numpy.asarray(tx), numpy.asarray(tt))


class _MLP(rensa.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(784, 100)
            self.l2 = L.Linear(100, 10)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


def _train_one_epoch(model, dtype, train, test):
    """One epoch (batches of 100, fixed order) and the test accuracy, all under config.dtype."""
    x, t = train
    with rensa.using_config('dtype', dtype):
        optimizer = O.MomentumSGD(lr=0.05)
        optimizer.setup(model)
        for i in range(0, len(x), 100):
            model.cleargrads()
            loss = F.softmax_cross_entropy(model(x[i:i + 100]), t[i:i + 100])
            loss.backward()
            optimizer.update()
        with rensa.using_config('train', False), rensa.no_backprop_mode():
            y = F.cast(model(test[0]), numpy.float32)
            return float(F.accuracy(y, test[1]).array), loss.dtype


def test_one_epoch_of_fashion_mnist_matches_float32(tmp_path):
    """10,000 training images, 1 epoch, test accuracy on 2,000: mixed_bf16 within 1 point."""
    train, test = _fashion_subset()
    numpy.random.seed(3)
    reference = _MLP()
    serializers.save_npz(str(tmp_path / 'init.npz'), reference)
    with rensa.using_config('dtype', rensa.mixed_bf16):
        mixed = _MLP()
    serializers.load_npz(str(tmp_path / 'init.npz'), mixed)  # float32 weights cast to bfloat16
    assert mixed.l1.W.dtype == rensa.mixed_bf16.dtype
    # The float32 run starts from the same (rounded) weights.
    for p in reference.params():
        p.array[...] = _bf16(p.array)
    acc32, loss32_dtype = _train_one_epoch(reference, numpy.float32, train, test)
    acc16, loss16_dtype = _train_one_epoch(mixed, rensa.mixed_bf16, train, test)
    assert loss32_dtype == numpy.float32
    assert loss16_dtype == rensa.mixed_bf16.dtype  # computed in float32, returned in the scores' dtype
    assert acc32 > 0.7
    assert abs(acc16 - acc32) <= 0.01, (acc32, acc16)
