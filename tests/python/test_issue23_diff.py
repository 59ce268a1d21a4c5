"""Issue 23, "where rensa still differs from Chainer": normalize over a tuple axis,
group_normalization of (N, C), pad in every numpy mode with Chainer's signature,
softmax_cross_entropy with soft targets, get_item with several advanced indices and
boolean masks. Values are numpy's (Chainer's pad forward is numpy.pad) and, where real
Chainer 7.8.1 is installed, Chainer's own, computed by it in a subprocess."""
import json
import subprocess

import numpy as np
import pytest

import rensa
import rensa.functions as F
from rensa import gradient_check

import chainer_style_harness as harness


def chainer_values(code):
    """Runs `code` (which sets `out`, a dict of lists) under real Chainer; None without it."""
    python = harness.chainer_python()
    if python is None:
        return None
    script = 'import json\nimport numpy as np\nimport chainer\nimport chainer.functions as F\n' + code + \
        '\nprint(json.dumps({k: np.asarray(v).tolist() for k, v in out.items()}))\n'
    result = subprocess.run([python, '-c', script], capture_output=True, text=True, timeout=120, check=True)
    return {k: np.array(v) for k, v in json.loads(result.stdout.splitlines()[-1]).items()}


def rand(*shape, seed=0):
    return np.random.RandomState(seed).uniform(-1, 1, shape)


# --- normalize, group_normalization


def test_normalize_tuple_axis():
    x = rand(2, 3, 4)
    y = F.normalize(x, axis=(1, 2))
    expected = x / (np.sqrt((x * x).sum(axis=(1, 2), keepdims=True)) + 1e-5)
    np.testing.assert_allclose(y.array, expected, rtol=1e-6)
    gradient_check.check_backward(lambda v: F.normalize(v, axis=(0, -1)), rand(2, 3, 2), rand(2, 3, 2, seed=1))
    with pytest.raises(ValueError):
        F.normalize(x, axis=(1, 1))


def test_group_normalization_2d():
    x, gamma, beta = rand(3, 6), rand(6, seed=1), rand(6, seed=2)
    g = x.reshape(3, 2, 3)
    xn = ((g - g.mean(axis=2, keepdims=True)) / np.sqrt(g.var(axis=2, keepdims=True) + 1e-5)).reshape(3, 6)
    np.testing.assert_allclose(F.group_normalization(x, 2, gamma, beta).array, xn * gamma + beta, rtol=1e-5,
                               atol=1e-6)
    gradient_check.check_backward(lambda a, b, c: F.group_normalization(a, 2, b, c), (x, gamma, beta),
                                  rand(3, 6, seed=3), atol=1e-3, rtol=1e-3)


# --- pad

PAD_CASES = [
    ('constant', {}), ('constant', {'constant_values': ((1, 2), (3, 4))}), ('edge', {}), ('wrap', {}),
    ('reflect', {}), ('reflect', {'reflect_type': 'odd'}), ('symmetric', {}), ('symmetric', {'reflect_type': 'odd'}),
    ('linear_ramp', {}), ('linear_ramp', {'end_values': (5, -2)}), ('maximum', {}), ('minimum', {'stat_length': 2}),
    ('mean', {'stat_length': ((1, 2), (2, 1))}), ('median', {}),
]


@pytest.mark.parametrize('mode,keywords', PAD_CASES)
def test_pad_modes_are_numpys(mode, keywords):
    x = rand(2, 3).astype(np.float32)
    width = ((2, 5), (4, 1))
    y = F.pad(x, width, mode, **keywords)
    np.testing.assert_allclose(y.array, np.pad(x, width, mode, **keywords), rtol=1e-6, atol=1e-6)


def test_pad_gradient_is_chainers_interior_slice():
    # Note [Pad gradient]: gy[interior] in every mode, as Chainer's Pad.backward.
    x = rensa.Variable(rand(2, 3))
    y = F.pad(x, ((1, 0), (2, 1)), 'reflect')
    y.grad = np.arange(18, dtype=np.float64).reshape(3, 6)
    y.backward()
    np.testing.assert_array_equal(x.grad, y.grad[1:, 2:5])
    gradient_check.check_backward(lambda v: F.pad(v, ((1, 2), (0, 1)), 'constant', constant_values=2.0), rand(2, 3),
                                  rand(5, 4, seed=1))
    gradient_check.check_double_backward(lambda v: F.pad(v, 1, 'constant'), rand(2, 3), rand(4, 5, seed=1),
                                         rand(2, 3, seed=2))


def test_pad_against_chainer():
    out = chainer_values('x = np.arange(6, dtype=np.float32).reshape(2, 3)\n'
                         'v = chainer.Variable(x)\n'
                         'y = F.pad(v, ((1, 2), (3, 1)), "symmetric", reflect_type="odd")\n'
                         'y.grad = np.ones(y.shape, np.float32) * np.arange(y.shape[1], dtype=np.float32)\n'
                         'y.backward()\n'
                         'out = {"y": y.array, "gx": v.grad}')
    if out is None:
        pytest.skip('real Chainer 7.8.1 is not installed')
    v = rensa.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
    y = F.pad(v, ((1, 2), (3, 1)), 'symmetric', reflect_type='odd')
    y.grad = np.ones(y.shape, np.float32) * np.arange(y.shape[1], dtype=np.float32)
    y.backward()
    np.testing.assert_allclose(y.array, out['y'])
    np.testing.assert_allclose(v.grad, out['gx'])


def test_pad_errors():
    x = rand(2, 3)
    with pytest.raises(TypeError):
        F.pad(x, 1)  # mode is required, as in Chainer
    with pytest.raises(ValueError, match="unsupported keyword arguments for mode 'edge'"):
        F.pad(x, 1, 'edge', constant_values=1)
    with pytest.raises(ValueError, match="mode 'foo' is not supported"):
        F.pad(x, 1, 'foo')
    with pytest.raises(TypeError, match='unexpected keyword'):
        F.pad(x, 1, 'constant', colour=1)


# --- softmax_cross_entropy with soft targets

SCE_CODE = '''
x = np.array([[1.0, 2.0, 0.5, -1.0], [0.0, -1.0, 3.0, 0.2], [0.3, 0.1, -0.4, 1.2]], np.float32)
t = np.array([[0.2, 0.5, 0.3, 0.0], [0.6, 0.1, 0.2, 0.1], [0.25, 0.25, 0.25, 0.25]], np.float32)
out = {}
for loss in ('cross-entropy', 'kl-divergence'):
    for reduce in ('mean', 'no'):
        v = chainer.Variable(x)
        y = F.softmax_cross_entropy(v, t, reduce=reduce, soft_target_loss=loss, normalize=False,
                                    class_weight=np.array([1, 2, 3, 4], np.float32))
        F.sum(y * np.arange(1, y.size + 1, dtype=np.float32).reshape(y.shape)).backward()
        out[loss + reduce] = y.array
        out[loss + reduce + 'gx'] = v.grad
'''


def test_softmax_cross_entropy_soft_targets():
    namespace = {'np': np, 'chainer': rensa, 'F': F}
    exec(SCE_CODE, namespace)
    got = namespace['out']
    x = np.array(namespace['x'], np.float64)
    t = np.array(namespace['t'], np.float64)
    log_y = x - x.max(axis=1, keepdims=True)
    log_y -= np.log(np.exp(log_y).sum(axis=1, keepdims=True))
    ce = -(t * log_y).sum(axis=1)
    kl = (t * (np.log(t + 1e-7) - log_y)).sum(axis=1)
    np.testing.assert_allclose(got['cross-entropyno'], ce, rtol=1e-5)
    np.testing.assert_allclose(got['kl-divergenceno'], kl, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got['cross-entropymean'], ce.mean(), rtol=1e-5)
    np.testing.assert_allclose(got['kl-divergencemean'], kl.mean(), rtol=1e-5)
    np.testing.assert_allclose(got['cross-entropynogx'], (np.exp(log_y) - t) * np.array([[1], [2], [3]]), rtol=1e-5,
                               atol=1e-6)
    out = chainer_values(SCE_CODE)
    if out is None:
        pytest.skip('real Chainer 7.8.1 is not installed')
    for key, value in out.items():
        np.testing.assert_allclose(got[key], value, rtol=1e-5, atol=1e-6, err_msg=key)


def test_softmax_cross_entropy_soft_targets_gradients():
    t = np.random.RandomState(1).uniform(0.1, 1, (3, 4))
    t /= t.sum(axis=1, keepdims=True)
    for loss in ('cross-entropy', 'kl-divergence'):
        gradient_check.check_backward(lambda v: F.softmax_cross_entropy(v, t, soft_target_loss=loss), rand(3, 4),
                                      None)
        gradient_check.check_double_backward(
            lambda v: F.softmax_cross_entropy(v, t, soft_target_loss=loss, enable_double_backprop=True, reduce='no'),
            rand(3, 4), rand(3, seed=2), rand(3, 4, seed=3))
    with pytest.raises(ValueError, match='soft_target_loss'):
        F.softmax_cross_entropy(rand(3, 4), t, soft_target_loss='kl')


# --- get_item with several advanced indices and masks

X = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
ITEMS = [
    (np.array([0, 1]), slice(None), np.array([1, 2])),
    (np.array([0, 1]), np.array([1, 2])),
    (slice(None), np.array([[0], [1]]), np.array([1, 2])),
    (np.array([True, False]), slice(None), np.array([1, 2])),
    X > 10,
    (1, np.array([[True, False, False, True]] * 3)),
    (Ellipsis, np.array([0, 3, 3]), None),
    (slice(None), [2, 0], [-1, 1]),
]


@pytest.mark.parametrize('index', ITEMS, ids=range(len(ITEMS)))
def test_get_item_advanced_as_numpy(index):
    y = F.get_item(X, index)
    np.testing.assert_array_equal(y.array, X[index])
    np.testing.assert_array_equal(rensa.Variable(X)[index].array, X[index])
    gy = rand(*X[index].shape)
    gradient_check.check_backward(lambda v: F.get_item(v, index), X.copy(), gy)
    gradient_check.check_double_backward(lambda v: F.get_item(v, index), X.copy(), gy, rand(*X.shape, seed=3))


def test_get_item_gradient_accumulates_repeats():
    x = rensa.Variable(X.copy())
    y = F.get_item(x, (np.array([0, 0, 1]), slice(None), np.array([2, 2, 0])))
    y.grad = np.ones(y.shape)
    y.backward()
    expected = np.zeros_like(X)
    np.add.at(expected, (np.array([0, 0, 1]), slice(None), np.array([2, 2, 0])), 1.0)
    np.testing.assert_array_equal(x.grad, expected)


def test_get_item_errors():
    with pytest.raises(IndexError, match='boolean index did not match'):
        F.get_item(X, np.array([True, False, True]))
    with pytest.raises(IndexError, match='out of bounds'):
        F.get_item(X, (np.array([0, 1]), np.array([1, 3])))
    with pytest.raises(ValueError):
        F.get_item(X, (np.array([0, 1]), np.array([1, 2, 0])))


# --- negative_sampling double backprop, split_axis, argmax/argmin, maximum/minimum


def test_negative_sampling_double_backprop():
    t = np.array([1, -1, 4, 0], np.int32)

    def sampler(shape):
        return (np.arange(shape[0])[:, None] * 2 + np.arange(shape[1]) * 3 + 1).astype(np.int32) % 5

    for reduce in ('sum', 'no'):
        def f(x, W):
            return F.negative_sampling(x, t, W, sampler, 2, reduce=reduce)
        x, W = rand(4, 3), rand(5, 3, seed=1)
        gy = rand(seed=2) if reduce == 'sum' else rand(4, seed=2)
        gradient_check.check_backward(f, (x, W), gy)
        gradient_check.check_double_backward(f, (x, W), gy, (rand(4, 3, seed=3), rand(5, 3, seed=4)))
    loss, samples = F.negative_sampling(rand(4, 3), t, rand(5, 3, seed=1), sampler, 2, return_samples=True)
    np.testing.assert_array_equal(samples[:, 0], t)


def test_split_axis_force_tuple():
    x = rand(2, 6)
    ys = F.split_axis(x, 1, 1)
    assert isinstance(ys, tuple) and len(ys) == 1
    y = F.split_axis(x, 1, 1, force_tuple=False)
    assert isinstance(y, rensa.Variable)
    np.testing.assert_array_equal(y.array, x)
    assert [v.shape for v in F.split_axis(x, [1, 4], 1)] == [(2, 1), (2, 3), (2, 2)]


def test_argmax_argmin_dtype_and_maximum_shapes_as_chainer():
    # Chainer 7.8.1: int32 indices; maximum/minimum broadcast (type_check.expect_broadcast_shapes)
    # but need one float dtype.
    x = rand(2, 3)
    assert F.argmax(x, axis=1).dtype == np.int32 and F.argmin(x).dtype == np.int32
    assert F.argmax(x.astype(np.float32)).shape == ()
    assert F.maximum(x, rand(1, 3)).shape == (2, 3)
    assert F.minimum(x, rand(3, seed=1)).shape == (2, 3)
    with pytest.raises(ValueError, match='cannot be broadcast'):
        F.maximum(x, rand(3, 2))
    with pytest.raises(TypeError, match=r"x1.dtype.kind == 'f'"):
        F.minimum(x.astype(np.int32), x.astype(np.int32))
    with pytest.raises(TypeError):
        F.maximum(x, x.astype(np.float32))
