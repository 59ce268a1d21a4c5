"""rensa.functions group a, forward: activation, math and noise against numpy references.

Every function is called through the Python API with Chainer's keyword arguments on numpy
inputs (implicitly converted to Variables) and compared with a numpy formula.
"""
import math

import numpy
import pytest

import rensa
import rensa.functions as F

Variable = getattr(rensa, 'Variable', rensa._core.Variable)
FLOATS = [numpy.float32, numpy.float64]
_erf = numpy.vectorize(math.erf)


def _tol(dtype):
    return {'rtol': 1e-5, 'atol': 1e-6} if dtype == numpy.float64 else {'rtol': 1e-4, 'atol': 1e-5}


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _softmax(x, axis):
    e = numpy.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _elu(x, alpha):
    return numpy.where(x > 0, x, alpha * (numpy.exp(x) - 1))


# name -> (call, numpy reference); x has shape (2, 6, 3).
UNARY = {
    'relu': (lambda x: F.relu(x), lambda x: numpy.maximum(x, 0)),
    'leaky_relu': (lambda x: F.leaky_relu(x, slope=0.1), lambda x: numpy.where(x >= 0, x, 0.1 * x)),
    'elu': (lambda x: F.elu(x, alpha=0.5), lambda x: _elu(x, 0.5)),
    'selu': (lambda x: F.selu(x, alpha=1.5, scale=2.0), lambda x: 2.0 * _elu(x, 1.5)),
    'selu_default': (lambda x: F.selu(x), lambda x: 1.0507009873554805 * _elu(x, 1.6732632423543772)),
    'clipped_relu': (lambda x: F.clipped_relu(x, z=0.5), lambda x: numpy.clip(x, 0, 0.5)),
    'sigmoid': (lambda x: F.sigmoid(x), _sigmoid),
    'hard_sigmoid': (lambda x: F.hard_sigmoid(x), lambda x: numpy.clip(0.2 * x + 0.5, 0, 1)),
    'tanh': (lambda x: F.tanh(x), numpy.tanh),
    'softplus': (lambda x: F.softplus(x, beta=2.0), lambda x: numpy.log1p(numpy.exp(2 * x)) / 2),
    'gelu': (lambda x: F.gelu(x), lambda x: 0.5 * x * (1 + _erf(x / numpy.sqrt(2)))),
    'softmax': (lambda x: F.softmax(x, axis=2), lambda x: _softmax(x, 2)),
    'softmax_default': (lambda x: F.softmax(x), lambda x: _softmax(x, 1)),
    'log_softmax': (lambda x: F.log_softmax(x, axis=0), lambda x: numpy.log(_softmax(x, 0))),
    'maxout': (lambda x: F.maxout(x, pool_size=3, axis=1), lambda x: x.reshape(2, 2, 3, 3).max(axis=2)),
    'exp': (lambda x: F.exp(x), numpy.exp),
    'square': (lambda x: F.square(x), numpy.square),
    'absolute': (lambda x: F.absolute(x), numpy.absolute),
    'sin': (lambda x: F.sin(x), numpy.sin),
    'cos': (lambda x: F.cos(x), numpy.cos),
    'tan': (lambda x: F.tan(x), numpy.tan),
    'arctan': (lambda x: F.arctan(x), numpy.arctan),
    'sinh': (lambda x: F.sinh(x), numpy.sinh),
    'cosh': (lambda x: F.cosh(x), numpy.cosh),
    'erf': (lambda x: F.erf(x), _erf),
    'clip': (lambda x: F.clip(x, x_min=-0.3, x_max=0.4), lambda x: numpy.clip(x, -0.3, 0.4)),
    'clip_min_only': (lambda x: F.clip(x, -0.3, None), lambda x: numpy.maximum(x, -0.3)),
    'identity': (lambda x: F.identity(x), lambda x: x),
    'cumsum': (lambda x: F.cumsum(x, axis=1), lambda x: numpy.cumsum(x, axis=1)),
    'cumsum_flat': (lambda x: F.cumsum(x), numpy.cumsum),
    'sum_axes': (lambda x: F.sum(x, axis=(0, 2)), lambda x: x.sum(axis=(0, 2))),
    'sum_keepdims': (lambda x: F.sum(x, axis=-1, keepdims=True), lambda x: x.sum(axis=-1, keepdims=True)),
    'sum_all': (lambda x: F.sum(x), numpy.sum),
    'mean': (lambda x: F.mean(x, axis=1), lambda x: x.mean(axis=1)),
    'average_keepdims': (lambda x: F.average(x, axis=(0, 1), keepdims=True),
                         lambda x: x.mean(axis=(0, 1), keepdims=True)),
    'max': (lambda x: F.max(x, axis=1, keepdims=True), lambda x: x.max(axis=1, keepdims=True)),
    'max_all': (lambda x: F.max(x), numpy.max),
    'min': (lambda x: F.min(x, axis=(0, 2)), lambda x: x.min(axis=(0, 2))),
    'prod': (lambda x: F.prod(x, axis=2), lambda x: x.prod(axis=2)),
    'logsumexp': (lambda x: F.logsumexp(x, axis=1),
                  lambda x: numpy.log(numpy.exp(x).sum(axis=1))),
    'logsumexp_all': (lambda x: F.logsumexp(x), lambda x: numpy.log(numpy.exp(x).sum())),
}

POSITIVE = {
    'log': (F.log, numpy.log), 'log1p': (F.log1p, numpy.log1p), 'log2': (F.log2, numpy.log2),
    'log10': (F.log10, numpy.log10), 'sqrt': (F.sqrt, numpy.sqrt),
    'rsqrt': (F.rsqrt, lambda x: 1 / numpy.sqrt(x)),
}


@pytest.mark.parametrize('dtype', FLOATS)
@pytest.mark.parametrize('name', sorted(UNARY))
def test_unary_matches_numpy(name, dtype, rng):
    call, ref = UNARY[name]
    x = rng.uniform(-2, 2, (2, 6, 3)).astype(dtype)
    y = call(x)
    assert isinstance(y, Variable)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, ref(x), **_tol(dtype))


@pytest.mark.parametrize('dtype', FLOATS)
@pytest.mark.parametrize('name', sorted(POSITIVE))
def test_positive_domain_matches_numpy(name, dtype, rng):
    call, ref = POSITIVE[name]
    x = rng.uniform(0.1, 3, (4, 5)).astype(dtype)
    numpy.testing.assert_allclose(call(x=x).array, ref(x), **_tol(dtype))


def test_float16_relu_and_sum(rng):
    x = rng.uniform(-2, 2, (3, 4)).astype(numpy.float16)
    assert F.relu(x).dtype == numpy.float16
    numpy.testing.assert_array_equal(F.relu(x).array, numpy.maximum(x, 0))
    numpy.testing.assert_allclose(F.sum(x, axis=0).array, x.sum(axis=0), rtol=1e-2)


def test_argmax_argmin(rng):
    x = rng.standard_normal((3, 5)).astype(numpy.float32)
    numpy.testing.assert_array_equal(F.argmax(x, axis=1).array, x.argmax(axis=1))
    numpy.testing.assert_array_equal(F.argmin(x, axis=0).array, x.argmin(axis=0))
    assert int(F.argmax(x).array) == x.argmax()
    assert not F.argmax(Variable(x)).requires_grad


def test_average_with_weights(rng):
    x = rng.standard_normal((3, 4)).astype(numpy.float64)
    w = rng.uniform(0.5, 1, 4)
    numpy.testing.assert_allclose(F.average(x, axis=1, weights=w).array, numpy.average(x, axis=1, weights=w))
    w2 = rng.uniform(0.5, 1, (3, 4))
    numpy.testing.assert_allclose(F.mean(x, weights=w2).array, numpy.average(x, weights=w2))


@pytest.mark.parametrize('dtype', FLOATS)
def test_binary_elementwise(dtype, rng):
    a = rng.standard_normal((3, 4)).astype(dtype)
    b = rng.standard_normal((3, 4)).astype(dtype)
    p = rng.uniform(0, 1, (3, 4)).astype(dtype)
    tol = _tol(dtype)
    numpy.testing.assert_allclose(F.maximum(x1=a, x2=b).array, numpy.maximum(a, b), **tol)
    numpy.testing.assert_allclose(F.minimum(a, b[0]).array, numpy.minimum(a, b[0]), **tol)
    numpy.testing.assert_allclose(F.squared_difference(a, b).array, (a - b) ** 2, **tol)
    numpy.testing.assert_allclose(F.squared_error(a, b).array, (a - b) ** 2, **tol)
    numpy.testing.assert_allclose(F.absolute_error(a, b).array, numpy.abs(a - b), **tol)
    numpy.testing.assert_allclose(F.linear_interpolate(p, a, b).array, p * a + (1 - p) * b, **tol)
    numpy.testing.assert_allclose(F.add(a, b, p).array, a + b + p, **tol)


def test_bias_scale(rng):
    x = rng.standard_normal((2, 3, 4)).astype(numpy.float32)
    y = rng.standard_normal((3, 4)).astype(numpy.float32)
    numpy.testing.assert_allclose(F.bias(x, y).array, x + y, rtol=1e-6)
    numpy.testing.assert_allclose(F.scale(x, y[:, 0], axis=1).array, x * y[None, :, 0, None], rtol=1e-6)


def test_identity_multiple_returns_tuple(rng):
    a, b = rng.standard_normal(3), rng.standard_normal(2)
    ys = F.identity(a, b)
    assert isinstance(ys, tuple) and len(ys) == 2
    numpy.testing.assert_array_equal(ys[1].array, b)


@pytest.mark.parametrize('dtype', FLOATS)
@pytest.mark.parametrize('transa,transb', [(False, False), (True, False), (False, True), (True, True)])
def test_matmul(transa, transb, dtype, rng):
    a = rng.standard_normal((2, 3, 4)).astype(dtype)
    b = rng.standard_normal((2, 4, 5)).astype(dtype)
    ta = a.swapaxes(-1, -2) if transa else a
    tb = b.swapaxes(-1, -2) if transb else b
    y = F.matmul(ta, tb, transa=transa, transb=transb)
    numpy.testing.assert_allclose(y.array, a @ b, **_tol(dtype))
    y = F.batch_matmul(ta, tb, transa=transa, transb=transb)
    numpy.testing.assert_allclose(y.array, a @ b, **_tol(dtype))


def test_tensordot_and_einsum(rng):
    a = rng.standard_normal((2, 3, 4))
    b = rng.standard_normal((3, 4, 5))
    numpy.testing.assert_allclose(F.tensordot(a, b).array, numpy.tensordot(a, b), rtol=1e-10)
    numpy.testing.assert_allclose(F.tensordot(a, b[0], axes=1).array, numpy.tensordot(a, b[0], axes=1),
                                  rtol=1e-10)
    numpy.testing.assert_allclose(F.tensordot(a, b, axes=([1, 2], [0, 1])).array,
                                  numpy.tensordot(a, b, axes=([1, 2], [0, 1])), rtol=1e-10)
    c = rng.standard_normal((4, 6))
    d = rng.standard_normal((6, 2))
    numpy.testing.assert_allclose(F.einsum('bij,jk->bik', a, c).array, numpy.einsum('bij,jk->bik', a, c),
                                  rtol=1e-10)
    numpy.testing.assert_allclose(F.einsum('ij,jk,kl->il', a[0], c, d).array,
                                  numpy.einsum('ij,jk,kl->il', a[0], c, d), rtol=1e-10)
    numpy.testing.assert_allclose(F.einsum('ii->', c[:, :4]).array, numpy.trace(c[:, :4]), rtol=1e-10)


@pytest.mark.parametrize('dtype', FLOATS)
def test_swish_prelu(dtype, rng):
    x = rng.standard_normal((2, 3, 4)).astype(dtype)
    beta = rng.uniform(0.5, 2, 3).astype(dtype)
    numpy.testing.assert_allclose(F.swish(x, beta=beta).array, x * _sigmoid(beta[:, None] * x), **_tol(dtype))
    w = rng.uniform(0.1, 0.5, (3, 4)).astype(dtype)
    numpy.testing.assert_allclose(F.prelu(x, W=w).array, numpy.where(x >= 0, x, w * x), **_tol(dtype))


@pytest.mark.parametrize('dtype', FLOATS)
def test_lstm(dtype, rng):
    batch, units = 3, 2
    x = rng.standard_normal((batch, 4 * units)).astype(dtype)
    c_prev = rng.standard_normal((batch + 1, units)).astype(dtype)
    c, h = F.lstm(c_prev, x)
    gates = x.reshape(batch, units, 4)
    a, i, f, o = (gates[:, :, k] for k in range(4))
    c_ref = numpy.tanh(a) * _sigmoid(i) + _sigmoid(f) * c_prev[:batch]
    numpy.testing.assert_allclose(c.array[:batch], c_ref, **_tol(dtype))
    numpy.testing.assert_array_equal(c.array[batch:], c_prev[batch:])
    numpy.testing.assert_allclose(h.array, _sigmoid(o) * numpy.tanh(c_ref), **_tol(dtype))


def _using_train(value):
    if hasattr(rensa, 'using_config'):
        return rensa.using_config('train', value)
    pytest.skip('rensa.using_config is not bound yet')


def test_dropout(rng):
    x = rng.uniform(1, 2, (200, 50)).astype(numpy.float32)
    y, mask = F.dropout(x, ratio=0.25, return_mask=True)
    kept = y.array != 0
    assert abs(1 - kept.mean() - 0.25) < 0.02
    numpy.testing.assert_allclose(y.array[kept], x[kept] / 0.75, rtol=1e-6)
    numpy.testing.assert_allclose(y.array, x * mask, rtol=1e-6)
    again = F.dropout(x, 0.25, mask=mask)
    numpy.testing.assert_array_equal(again.array, y.array)


def test_dropout_rejects_bad_ratio():
    with pytest.raises(ValueError, match='dropout'):
        F.dropout(numpy.ones(3, numpy.float32), ratio=1.5)


def test_dropout_and_gaussian_in_test_mode(rng):
    x = rng.standard_normal((4, 3)).astype(numpy.float32)
    with _using_train(False):
        numpy.testing.assert_array_equal(F.dropout(x).array, x)
        numpy.testing.assert_array_equal(F.gaussian(x, x).array, x)


def test_gaussian(rng):
    mean = rng.standard_normal((3, 4)).astype(numpy.float64)
    ln_var = rng.standard_normal((3, 4)).astype(numpy.float64)
    eps = rng.standard_normal((3, 4))
    y = F.gaussian(mean, ln_var, eps=eps)
    numpy.testing.assert_allclose(y.array, mean + numpy.exp(ln_var / 2) * eps, rtol=1e-12)
    y, used = F.gaussian(mean, ln_var, return_eps=True)
    numpy.testing.assert_allclose(y.array, mean + numpy.exp(ln_var / 2) * used, rtol=1e-12)
    assert used.std() > 0.3


def test_gumbel_softmax(rng):
    log_p = numpy.log(rng.dirichlet(numpy.ones(5), size=200)).astype(numpy.float32)
    y = F.gumbel_softmax(log_p, tau=0.5, axis=1)
    assert y.shape == (200, 5)
    numpy.testing.assert_allclose(y.array.sum(axis=1), 1, rtol=1e-5)
    assert (y.array >= 0).all()
    with pytest.raises(ValueError):
        F.gumbel_softmax(log_p, tau=0.0)


def test_errors_map_to_python_kinds(rng):
    x = rng.standard_normal((2, 3)).astype(numpy.float32)
    with pytest.raises(ValueError, match='softmax'):
        F.softmax(x, axis=5)
    with pytest.raises(TypeError):
        F.relu(numpy.arange(3, dtype=numpy.int32))
    with pytest.raises(ValueError, match='clip'):
        F.clip(x, None, None)
    with pytest.raises(ValueError):
        F.matmul(x, x)
    with pytest.raises(TypeError, match='axis'):
        F.sum(x, axis='0')


def test_composed_activations(rng):
    x = rng.uniform(-8, 8, (2, 3, 4)).astype(numpy.float32)
    numpy.testing.assert_array_equal(F.relu6(x).array, numpy.clip(x, 0, 6))
    y = F.crelu(x, axis=2)
    numpy.testing.assert_array_equal(y.array, numpy.concatenate([numpy.maximum(x, 0), numpy.maximum(-x, 0)], 2))
    assert F.crelu(x).shape == (2, 6, 4)


def test_batch_l2_norm_squared(rng):
    x = rng.standard_normal((3, 2, 4))
    numpy.testing.assert_allclose(F.batch_l2_norm_squared(x).array, (x.reshape(3, -1) ** 2).sum(1), rtol=1e-12)


def test_zoneout(rng):
    h = numpy.ones((100, 50), numpy.float32)
    x = numpy.zeros((100, 50), numpy.float32)
    y = F.zoneout(h, x, ratio=0.3).array
    assert set(numpy.unique(y)) <= {0.0, 1.0}
    assert abs(y.mean() - 0.3) < 0.03
