"""Issue 23's links and initializers: L.InceptionBN, L.NegativeSampling, L.Parameter (the
link) and the initializers UpsamplingDeconvFilter / DownsamplingConvFilter.

Where real Chainer 7.8.1 is present (chainer_style_harness.chainer_python()), one run of it
writes each link's NPZ file, its input and its outputs; rensa loads the files, must give
Chainer's outputs, and saves back the same keys. Without Chainer those comparisons skip.
"""
import math
import os
import subprocess

import numpy
import pytest

import rensa
import rensa.functions as F
import rensa.initializers as I
import rensa.links as L
from chainer_style_harness import chainer_python

# Built with Chainer: every parameter and statistic from RandomState(0), so the outputs
# depend on the layout of the file only.
CHAINER_SCRIPT = r'''
import sys
import numpy as np
import chainer
import chainer.initializers as I
import chainer.links as L
out = sys.argv[1]
rs = np.random.RandomState(0)

p = L.Parameter(rs.randn(2, 3).astype(np.float32))
chainer.serializers.save_npz(out + '/parameter.npz', p)

ib = L.InceptionBN(3, 2, 2, 3, 2, 3, 'max', proj_pool=2)
for _, param in sorted(ib.namedparams()):
    param.array[...] = rs.uniform(0.5, 1.5, param.shape) if param.name == 'gamma' else rs.randn(*param.shape) * 0.5
for _, link in sorted(ib.namedlinks()):
    if isinstance(link, L.BatchNormalization):
        link.avg_mean[...] = rs.randn(*link.avg_mean.shape)
        link.avg_var[...] = rs.uniform(0.5, 1.5, link.avg_var.shape)
x = rs.randn(2, 3, 5, 5).astype(np.float32)
chainer.serializers.save_npz(out + '/inception_bn.npz', ib)
with chainer.using_config('train', False):
    y_test = ib(x).array
y_train = ib(x).array
ib_avg = L.InceptionBN(3, 0, 2, 3, 2, 3, 'avg', stride=2)
chainer.serializers.save_npz(out + '/inception_bn_avg.npz', ib_avg)

ns = L.NegativeSampling(4, [3, 1, 2, 5, 1], 2)
ns.W.array[...] = rs.randn(5, 4)
chainer.serializers.save_npz(out + '/negative_sampling.npz', ns)
ns_zero = L.NegativeSampling(4, [3, 1, 2, 5, 1], 3)
h = rs.randn(3, 4).astype(np.float32)
t = np.array([0, 3, -1], np.int32)
zero_sum = ns_zero(h, t).array
zero_no = ns_zero(h, t, reduce='no').array

filters = {}
for name, shape in [('up_4x4', (2, 2, 4, 4)), ('up_3', (3, 1, 3)), ('up_2x2x2', (1, 1, 2, 2, 2))]:
    a = np.full(shape, 7, np.float32)
    I.UpsamplingDeconvFilter()(a)
    filters[name] = a
for name, shape in [('down_3x3', (2, 2, 3, 3)), ('down_5', (2, 1, 5))]:
    a = np.full(shape, 7, np.float64)
    I.DownsamplingConvFilter()(a)
    filters[name] = a
np.savez(out + '/values.npz', x=x, y_test=y_test, y_train=y_train, h=h, t=t, zero_sum=zero_sum,
         zero_no=zero_no, **filters)
'''


@pytest.fixture(scope='module')
def chainer_files(tmp_path_factory):
    """The folder of Chainer's files (skips without real Chainer)."""
    python = chainer_python()
    if python is None:
        pytest.skip('real Chainer not installed (RENSA_CHAINER_PYTHON or .venv-chainermn)')
    out = tmp_path_factory.mktemp('chainer')
    script = out / 'make.py'
    script.write_text(CHAINER_SCRIPT)
    env = dict(os.environ, PYTHONWARNINGS='ignore', CHAINER_WARN_VERSION_MISMATCH='0')
    env.pop('PYTHONPATH', None)
    proc = subprocess.run([python, str(script), str(out)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stdout[-4000:]
    return out


def npz_keys(path):
    with numpy.load(str(path)) as f:
        return sorted(f.files)


def assert_round_trip(link, chainer_file, tmp_path):
    """rensa saves the keys of Chainer's file, with the arrays it loaded."""
    mine = tmp_path / ('rensa_' + chainer_file.name)
    rensa.serializers.save_npz(str(mine), link)
    assert npz_keys(mine) == npz_keys(chainer_file)
    with numpy.load(str(mine)) as a, numpy.load(str(chainer_file)) as b:
        for key in b.files:
            if b[key].dtype != object:  # Chainer's pickled None of an absent array
                numpy.testing.assert_array_equal(a[key], b[key], err_msg=key)


# --- Initializers ----------------------------------------------------------------------------


def _filled(init, shape, dtype=numpy.float32):
    array = numpy.full(shape, 7, dtype)
    init(array)
    return array


def test_sampling_filters_values():
    up = _filled(I.UpsamplingDeconvFilter(), (2, 2, 4, 4))
    kernel = numpy.outer([0.25, 0.75, 0.75, 0.25], [0.25, 0.75, 0.75, 0.25])
    numpy.testing.assert_allclose(up[0, 0], kernel)
    numpy.testing.assert_allclose(up[1, 1], kernel)
    assert not up[0, 1].any() and not up[1, 0].any()
    down = _filled(I.DownsamplingConvFilter(), (3, 1, 5), numpy.float64)
    numpy.testing.assert_allclose(down[:, 0], numpy.tile(numpy.array([1, 2, 3, 2, 1]) / 9.0, (3, 1)))
    assert I.UpsamplingDeconvFilter().interpolation == 'linear'
    assert I.DownsamplingConvFilter(dtype=numpy.float64).dtype == numpy.float64


def test_sampling_filters_as_link_initializers():
    deconv = L.Deconvolution2D(2, 2, 4, stride=2, pad=1, nobias=True, initialW=I.UpsamplingDeconvFilter())
    y = deconv(numpy.ones((1, 2, 3, 3), numpy.float32))
    assert y.shape == (1, 2, 6, 6)
    numpy.testing.assert_allclose(y.array[0, 0, 2:4, 2:4], numpy.ones((2, 2)), rtol=1e-6)  # interior: 1
    conv = L.Convolution2D(2, 2, 3, nobias=True, initialW=I.DownsamplingConvFilter())
    numpy.testing.assert_allclose(conv(numpy.ones((1, 2, 3, 3), numpy.float32)).array, numpy.ones((1, 2, 1, 1)),
                                  rtol=1e-6)


def test_sampling_filters_errors():
    with pytest.raises(ValueError, match="UpsamplingDeconvFilter: Expect: interpolation == 'linear'"):
        I.UpsamplingDeconvFilter(interpolation='nearest')
    with pytest.raises(ValueError, match=r'shape\[0\] == shape\[1\] or shape\[1\] == 1'):
        I.DownsamplingConvFilter()(numpy.zeros((2, 3, 3, 3), numpy.float32))
    with pytest.raises(ValueError, match='ksize must be all same: 3 != 4'):
        I.UpsamplingDeconvFilter()(numpy.zeros((2, 2, 3, 4), numpy.float32))
    with pytest.raises(ValueError, match='array.ndim >= 3'):
        I.UpsamplingDeconvFilter()(numpy.zeros((2, 2), numpy.float32))
    with pytest.raises(TypeError, match="the initializer's dtype is float64"):
        I.UpsamplingDeconvFilter(dtype=numpy.float64)(numpy.zeros((1, 1, 3), numpy.float32))


def test_sampling_filters_match_chainer(chainer_files):
    with numpy.load(str(chainer_files / 'values.npz')) as v:
        for name, shape, init, dtype in [('up_4x4', (2, 2, 4, 4), I.UpsamplingDeconvFilter(), numpy.float32),
                                         ('up_3', (3, 1, 3), I.UpsamplingDeconvFilter(), numpy.float32),
                                         ('up_2x2x2', (1, 1, 2, 2, 2), I.UpsamplingDeconvFilter(), numpy.float32),
                                         ('down_3x3', (2, 2, 3, 3), I.DownsamplingConvFilter(), numpy.float64),
                                         ('down_5', (2, 1, 5), I.DownsamplingConvFilter(), numpy.float64)]:
            numpy.testing.assert_array_equal(_filled(init, shape, dtype), v[name], err_msg=name)


# --- L.Parameter -----------------------------------------------------------------------------


def test_parameter_link_returns_its_parameter():
    array = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    link = L.Parameter(array)
    assert [name for name, _ in link.namedparams()] == ['/W']
    assert link.W.shape == (2, 3) and link.W.dtype == numpy.float32
    array[0, 0] = 10  # W holds the array itself, as Chainer's W.array = array
    y = link()
    assert y is not link.W
    numpy.testing.assert_array_equal(y.array, array)
    F.sum(y * y).backward()
    numpy.testing.assert_array_equal(link.W.grad, 2 * array)
    numpy.testing.assert_array_equal(link(volatile='on').array, array)  # Chainer v1's flag, ignored as in v7


def test_parameter_link_npz(chainer_files, tmp_path):
    link = L.Parameter(numpy.zeros((2, 3), numpy.float32))
    rensa.serializers.load_npz(str(chainer_files / 'parameter.npz'), link)
    with numpy.load(str(chainer_files / 'parameter.npz')) as f:
        numpy.testing.assert_array_equal(link().array, f['W'])
    assert_round_trip(link, chainer_files / 'parameter.npz', tmp_path)


# --- L.InceptionBN ---------------------------------------------------------------------------


def test_inception_bn_forward():
    link = L.InceptionBN(3, 2, 2, 3, 2, 3, 'max', proj_pool=2)
    x = numpy.random.RandomState(1).randn(2, 3, 5, 5).astype(numpy.float32)
    y = link(x)
    assert y.shape == (2, 2 + 3 + 3 + 2, 5, 5)
    assert (y.array >= 0).all()  # every path ends in a ReLU (the max pooling path through poolpn)
    strided = L.InceptionBN(None, 0, 2, 3, 2, 3, 'avg', stride=2)
    assert strided(x).shape == (2, 3 + 3 + 3, 3, 3)
    assert not hasattr(strided, 'conv1') and not hasattr(strided, 'poolp')  # as in Chainer: never built
    assert strided.pooltype == 'avg' and isinstance(strided.conv33bn, L.BatchNormalization)
    assert strided.stride == 2 and strided.proj_pool is None
    with pytest.raises(NotImplementedError):
        L.InceptionBN(3, 0, 2, 3, 2, 3, 'min')


def test_inception_bn_matches_chainer(chainer_files, tmp_path):
    link = L.InceptionBN(3, 2, 2, 3, 2, 3, 'max', proj_pool=2)
    rensa.serializers.load_npz(str(chainer_files / 'inception_bn.npz'), link)
    with numpy.load(str(chainer_files / 'values.npz')) as v:
        with rensa.using_config('train', False):
            numpy.testing.assert_allclose(link(v['x']).array, v['y_test'], rtol=1e-4, atol=1e-5)
        assert_round_trip(link, chainer_files / 'inception_bn.npz', tmp_path)
        numpy.testing.assert_allclose(link(v['x']).array, v['y_train'], rtol=1e-4, atol=1e-4)
    avg = L.InceptionBN(3, 0, 2, 3, 2, 3, 'avg', stride=2)
    rensa.serializers.load_npz(str(chainer_files / 'inception_bn_avg.npz'), avg)
    assert_round_trip(avg, chainer_files / 'inception_bn_avg.npz', tmp_path)


# --- L.NegativeSampling ----------------------------------------------------------------------


def test_negative_sampling_forward():
    link = L.NegativeSampling(4, [3, 1, 2, 5, 1], 2)
    assert link.W.shape == (5, 4) and not link.W.array.any()  # W starts at zero, as in Chainer
    assert link.sample_size == 2
    h = numpy.random.RandomState(2).randn(3, 4).astype(numpy.float32)
    t = numpy.array([0, 3, -1], numpy.int32)
    # With W = 0 every score is 0: each kept row costs (1 + sample_size) * log 2, the ignored one 0.
    numpy.testing.assert_allclose(link(h, t).array, 2 * 3 * math.log(2), rtol=1e-5)
    numpy.testing.assert_allclose(link(h, t, reduce='no').array, [3 * math.log(2), 3 * math.log(2), 0], rtol=1e-5)
    samples = link.sampler.sample((1000,))
    assert samples.dtype == numpy.int32 and samples.min() >= 0 and samples.max() <= 4
    assert link.sampler.values.shape == (5, 2) and link.sampler.threshold.shape == (5,)
    link.W.array[...] = numpy.random.RandomState(3).randn(5, 4)
    loss = link(h, t)
    loss.backward()
    assert link.W.grad.shape == (5, 4) and numpy.abs(link.W.grad).sum() > 0
    with pytest.raises(ValueError):
        link(h, t, reduce='mean')


def test_negative_sampling_return_samples():
    # Chainer's forward(..., return_samples=True): (loss, samples), samples[:, 0] = t and the
    # other columns the negatives the loss used.
    link = L.NegativeSampling(4, [3, 1, 2, 5, 1], 2)
    link.W.array[...] = numpy.random.RandomState(4).randn(5, 4)
    h = numpy.random.RandomState(5).randn(3, 4).astype(numpy.float32)
    t = numpy.array([0, 3, -1], numpy.int32)
    loss, samples = link(h, t, reduce='no', return_samples=True)
    assert samples.shape == (3, 3)
    numpy.testing.assert_array_equal(samples[:, 0], t)
    assert samples[:, 1:].min() >= 0 and samples[:, 1:].max() <= 4
    again = F.negative_sampling(h, t, link.W, lambda shape: samples.copy(), 2, reduce='no')
    numpy.testing.assert_allclose(loss.array, again.array, rtol=1e-6)
    assert not isinstance(link.forward(h, t), tuple)


def test_negative_sampling_matches_chainer(chainer_files, tmp_path):
    link = L.NegativeSampling(4, [3, 1, 2, 5, 1], 2)
    rensa.serializers.load_npz(str(chainer_files / 'negative_sampling.npz'), link)
    with numpy.load(str(chainer_files / 'negative_sampling.npz')) as f:
        numpy.testing.assert_array_equal(link.W.array, f['W'])
    assert_round_trip(link, chainer_files / 'negative_sampling.npz', tmp_path)
    zero = L.NegativeSampling(4, [3, 1, 2, 5, 1], 3)
    with numpy.load(str(chainer_files / 'values.npz')) as v:
        numpy.testing.assert_allclose(zero(v['h'], v['t']).array, v['zero_sum'], rtol=1e-5)
        numpy.testing.assert_allclose(zero(v['h'], v['t'], reduce='no').array, v['zero_no'], rtol=1e-5)
