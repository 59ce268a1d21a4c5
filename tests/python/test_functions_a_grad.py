"""Gradient checks of rensa.functions group a from Python (float64 central differences).

Uses rensa.gradient_check.check_backward; while that is not bound yet, a small local
check with the same meaning (analytic grads of sum(y * gy) vs central differences) runs.
"""
import math

import numpy
import pytest

import rensa
import rensa.functions as F
from rensa import gradient_check

Variable = getattr(rensa, 'Variable', rensa._core.Variable)


def _outputs(ys):
    return ys if isinstance(ys, (tuple, list)) else (ys,)


def _local_check_backward(func, x_data, y_grad, eps, atol, rtol):
    xs = [Variable(x.copy()) for x in x_data]
    ys = _outputs(func(*xs))
    gys = _outputs(y_grad)
    terms = [F.sum(F.scale(F.reshape(y, (-1,)), gy.ravel(), axis=0)) for y, gy in zip(ys, gys)]
    F.add(*terms).backward()

    def loss():
        outs = _outputs(func(*[Variable(x, requires_grad=False) for x in x_data]))
        return sum(float((o.array * gy).sum()) for o, gy in zip(outs, gys))

    for x, v in zip(x_data, xs):
        numerical = numpy.zeros_like(x)
        for i in numpy.ndindex(x.shape):
            old = x[i]
            x[i] = old + eps
            up = loss()
            x[i] = old - eps
            down = loss()
            x[i] = old
            numerical[i] = (up - down) / (2 * eps)
        analytic = v.grad if v.grad is not None else numpy.zeros_like(x)
        numpy.testing.assert_allclose(analytic, numerical, atol=atol, rtol=rtol)


def check_backward(func, x_data, y_grad, eps=1e-3, atol=1e-5, rtol=1e-4):
    if hasattr(gradient_check, 'check_backward'):
        gradient_check.check_backward(func, tuple(x_data), y_grad, eps=eps, atol=atol, rtol=rtol)
    else:
        _local_check_backward(func, x_data, y_grad, eps, atol, rtol)


def _away_from_zero(rng, shape):
    x = rng.uniform(0.2, 1.0, shape) * rng.choice([-1, 1], shape)
    return x


# name -> (function of Variables, input makers taking rng)
CASES = {
    'relu': (lambda x: F.relu(x), [lambda r: _away_from_zero(r, (2, 3))]),
    'leaky_relu': (lambda x: F.leaky_relu(x, slope=0.3), [lambda r: _away_from_zero(r, (2, 3))]),
    'elu': (lambda x: F.elu(x, alpha=0.7), [lambda r: _away_from_zero(r, (2, 3))]),
    'softplus': (lambda x: F.softplus(x, beta=1.5), [lambda r: r.standard_normal((2, 3))]),
    'sigmoid': (lambda x: F.sigmoid(x), [lambda r: r.standard_normal((2, 3))]),
    'tanh': (lambda x: F.tanh(x), [lambda r: r.standard_normal((2, 3))]),
    'gelu': (lambda x: F.gelu(x), [lambda r: r.standard_normal((2, 3))]),
    'softmax': (lambda x: F.softmax(x, axis=1), [lambda r: r.standard_normal((2, 4))]),
    'log_softmax': (lambda x: F.log_softmax(x, axis=0), [lambda r: r.standard_normal((3, 2))]),
    'swish': (lambda x, b: F.swish(x, b), [lambda r: r.standard_normal((2, 3)), lambda r: r.uniform(0.5, 2, 3)]),
    'prelu': (lambda x, w: F.prelu(x, w), [lambda r: _away_from_zero(r, (2, 3)), lambda r: r.uniform(0.1, 1, 3)]),
    'maxout': (lambda x: F.maxout(x, 2), [lambda r: r.permutation(12).reshape(2, 6) * 0.1]),
    'lstm': (lambda c, x: F.lstm(c, x), [lambda r: r.standard_normal((3, 2)), lambda r: r.standard_normal((2, 8))]),
    'sum': (lambda x: F.sum(x, axis=(0, 2), keepdims=True), [lambda r: r.standard_normal((2, 3, 2))]),
    'mean_weights': (lambda x, w: F.mean(x, axis=1, weights=w),
                     [lambda r: r.standard_normal((2, 3)), lambda r: r.uniform(0.5, 1, 3)]),
    'max': (lambda x: F.max(x, axis=1), [lambda r: r.permutation(8).reshape(2, 4) * 0.5]),
    'prod': (lambda x: F.prod(x, axis=0), [lambda r: r.uniform(0.5, 2, (3, 2))]),
    'logsumexp': (lambda x: F.logsumexp(x, axis=1), [lambda r: r.standard_normal((2, 4))]),
    'cumsum': (lambda x: F.cumsum(x, axis=1), [lambda r: r.standard_normal((2, 4))]),
    'log': (lambda x: F.log(x), [lambda r: r.uniform(0.5, 2, (2, 3))]),
    'sqrt': (lambda x: F.sqrt(x), [lambda r: r.uniform(0.5, 2, (2, 3))]),
    'rsqrt': (lambda x: F.rsqrt(x), [lambda r: r.uniform(0.5, 2, (2, 3))]),
    'sin': (lambda x: F.sin(x), [lambda r: r.standard_normal((2, 3))]),
    'erf': (lambda x: F.erf(x), [lambda r: r.standard_normal((2, 3))]),
    'arctan': (lambda x: F.arctan(x), [lambda r: r.standard_normal((2, 3))]),
    'clip': (lambda x: F.clip(x, -0.5, 0.5), [lambda r: r.choice([-0.9, -0.2, 0.1, 0.3, 0.8], (2, 3))]),
    'maximum': (lambda a, b: F.maximum(a, b), [lambda r: r.permutation(6).reshape(2, 3) * 1.0,
                                               lambda r: r.permutation(6).reshape(2, 3) + 0.5]),
    'squared_difference': (lambda a, b: F.squared_difference(a, b),
                           [lambda r: r.standard_normal((2, 3)), lambda r: r.standard_normal((2, 3))]),
    'linear_interpolate': (lambda p, x, y: F.linear_interpolate(p, x, y), [lambda r: r.uniform(0, 1, (2, 3))] * 3),
    'scale': (lambda x, y: F.scale(x, y, axis=1), [lambda r: r.standard_normal((2, 3, 2)),
                                                   lambda r: r.standard_normal(3)]),
    'bias': (lambda x, y: F.bias(x, y), [lambda r: r.standard_normal((2, 3)), lambda r: r.standard_normal(3)]),
    'matmul': (lambda a, b: F.matmul(a, b, transa=True), [lambda r: r.standard_normal((2, 4, 3)),
                                                          lambda r: r.standard_normal((4, 2))]),
    'batch_matmul': (lambda a, b: F.batch_matmul(a, b, transb=True), [lambda r: r.standard_normal((2, 3, 4)),
                                                                      lambda r: r.standard_normal((2, 2, 4))]),
    'tensordot': (lambda a, b: F.tensordot(a, b, axes=([0], [1])), [lambda r: r.standard_normal((3, 2)),
                                                                    lambda r: r.standard_normal((2, 3))]),
    'einsum': (lambda a, b: F.einsum('bij,bjk->bik', a, b), [lambda r: r.standard_normal((2, 2, 3)),
                                                             lambda r: r.standard_normal((2, 3, 2))]),
    'reshape_transpose': (lambda x: F.transpose(F.reshape(x, (3, 2, 2)), axes=(2, 0, 1)),
                          [lambda r: r.standard_normal((2, 6))]),
    'concat_stack': (lambda a, b: F.stack([F.concat([a, b], axis=0), F.concat([b, a], axis=0)], axis=1),
                     [lambda r: r.standard_normal((2, 3)), lambda r: r.standard_normal((1, 3))]),
    'split_axis': (lambda x: F.split_axis(x, [1, 3], axis=1), [lambda r: r.standard_normal((2, 4))]),
    'get_item': (lambda x: x[1:, [0, 2, 2]], [lambda r: r.standard_normal((3, 4))]),
    'where': (lambda x, y: F.where(numpy.array([[True, False, True]]), x, y),
              [lambda r: r.standard_normal((2, 3)), lambda r: r.standard_normal((2, 3))]),
    'pad_tile_repeat': (lambda x: F.repeat(F.tile(F.pad(x, 1, 'constant'), (1, 2)), 2, axis=0),
                        [lambda r: r.standard_normal((2, 2))]),
    'broadcast_to_sum_to': (lambda x: F.sum_to(F.broadcast_to(x, (3, 2, 4)), (2, 1)),
                            [lambda r: r.standard_normal((2, 1))]),
    'flip_moveaxis': (lambda x: F.moveaxis(F.flip(x, 0), 0, 1), [lambda r: r.standard_normal((3, 2))]),
    'resize_images': (lambda x: F.resize_images(x, (3, 5)), [lambda r: r.standard_normal((1, 2, 2, 3))]),
    'select_item': (lambda x: F.select_item(x, numpy.array([2, 0], numpy.int32)),
                    [lambda r: r.standard_normal((2, 3))]),
    'gaussian_eps': (lambda m, v: F.gaussian(m, v, eps=numpy.full((2, 3), 0.7)),
                     [lambda r: r.standard_normal((2, 3)), lambda r: r.standard_normal((2, 3))]),
}


@pytest.mark.parametrize('name', sorted(CASES))
def test_check_backward(name, rng):
    func, makers = CASES[name]
    x_data = [numpy.asarray(make(rng), dtype=numpy.float64) for make in makers]
    out = func(*[Variable(x, requires_grad=False) for x in x_data])
    y_grad = tuple(rng.standard_normal(o.shape) for o in _outputs(out))
    if not isinstance(out, (tuple, list)):
        y_grad = y_grad[0]
    check_backward(func, x_data, y_grad, eps=1e-4, atol=1e-6, rtol=1e-5)


def test_dropout_gradient_uses_the_mask(rng):
    x = rng.standard_normal((4, 5))
    mask = (rng.uniform(size=(4, 5)) > 0.5) / 0.5
    check_backward(lambda v: F.dropout(v, 0.5, mask=mask), [x], rng.standard_normal((4, 5)))


@pytest.mark.skipif(not hasattr(gradient_check, 'check_double_backward'),
                    reason='rensa.gradient_check.check_double_backward is not bound yet')
@pytest.mark.parametrize('name', ['tanh', 'softmax', 'sigmoid', 'gelu', 'matmul'])
def test_check_double_backward(name, rng):
    func, makers = CASES[name]
    x_data = tuple(numpy.asarray(make(rng), dtype=numpy.float64) for make in makers)
    out = func(*[Variable(x, requires_grad=False) for x in x_data])
    gy = rng.standard_normal(out.shape)
    ggx = tuple(rng.standard_normal(x.shape) for x in x_data)
    gradient_check.check_double_backward(func, x_data, gy, ggx if len(ggx) > 1 else ggx[0],
                                         eps=1e-4, atol=1e-5, rtol=1e-4)


# Chainer math functions that were Python until issue 21 (now C++): forward vs numpy,
# backward and double backward by gradient checks.
PYTHON_LEVEL = {
    'expm1': (lambda x: F.expm1(x), numpy.expm1, [lambda r: r.uniform(-1, 1, (2, 3))]),
    'arcsin': (lambda x: F.arcsin(x), numpy.arcsin, [lambda r: r.uniform(-0.8, 0.8, (2, 3))]),
    'arccos': (lambda x: F.arccos(x), numpy.arccos, [lambda r: r.uniform(-0.8, 0.8, (2, 3))]),
    'erfc': (lambda x: F.erfc(x), lambda x: 1 - numpy.vectorize(math.erf)(x), [lambda r: r.standard_normal((2, 3))]),
    'ndtr': (lambda x: F.ndtr(x), lambda x: 0.5 * (1 + numpy.vectorize(math.erf)(x / numpy.sqrt(2))),
             [lambda r: r.standard_normal((2, 3))]),
    'arctan2': (lambda a, b: F.arctan2(a, b), numpy.arctan2,
                [lambda r: r.standard_normal((2, 3)), lambda r: r.standard_normal(3)]),
    'fmod': (lambda a, b: F.fmod(a, b), numpy.fmod,
             [lambda r: r.uniform(-5, 5, (2, 3)), lambda r: r.choice([-1.7, 1.3, 2.1], (2, 3))]),
}


@pytest.mark.parametrize('name', sorted(PYTHON_LEVEL))
def test_python_level_functions(name, rng):
    func, ref, makers = PYTHON_LEVEL[name]
    x_data = [numpy.asarray(make(rng), dtype=numpy.float64) for make in makers]
    y = func(*x_data)
    numpy.testing.assert_allclose(y.array, ref(*x_data), rtol=1e-12, atol=1e-14)
    gy = rng.standard_normal(y.shape)
    check_backward(func, x_data, gy, eps=1e-5, atol=1e-6, rtol=1e-5)
    if hasattr(gradient_check, 'check_double_backward') and name != 'fmod':
        ggx = tuple(rng.standard_normal(x.shape) for x in x_data)
        gradient_check.check_double_backward(func, tuple(x_data), gy, ggx if len(ggx) > 1 else ggx[0],
                                             eps=1e-4, atol=1e-5, rtol=1e-4)
    assert func(*[x.astype(numpy.float32) for x in x_data]).dtype == numpy.float32


@pytest.mark.parametrize('name', ['floor', 'ceil', 'fix', 'sign'])
def test_rounding_functions_are_not_differentiable(name, rng):
    x = rng.uniform(-3, 3, (2, 5)).astype(numpy.float32)
    y = getattr(F, name)(Variable(x))
    numpy.testing.assert_array_equal(y.array, getattr(numpy, name)(x))
    assert not y.requires_grad
