"""rensa.functions group b: gradient checks from Python (rensa.gradient_check.check_backward).

Integer arguments (labels, ids) are bound in closures, so every checked input is float64.
"""
import numpy as np
import pytest

import rensa.functions as F
from rensa import gradient_check

check_backward = getattr(gradient_check, 'check_backward', None)
pytestmark = pytest.mark.skipif(check_backward is None, reason='rensa.gradient_check.check_backward is missing')

RNG = np.random.default_rng(2)


def rand(*shape):
    return RNG.standard_normal(shape)


def distinct(*shape):
    """Values at least 0.1 apart, so max pooling has no ties under the check's eps."""
    return (RNG.permutation(int(np.prod(shape))) * 0.1 - 1.0).reshape(shape)


LABELS = np.array([0, 2, 1, 2], np.int32)

# name -> (function of float inputs, inputs, output shape or None for a 0-d output)
CASES = {
    'linear': (lambda x, W, b: F.linear(x, W, b), (rand(3, 4), rand(2, 4), rand(2)), (3, 2)),
    'convolution_2d': (lambda x, W, b: F.convolution_2d(x, W, b, stride=2, pad=1),
                       (rand(1, 2, 4, 4), rand(3, 2, 3, 3), rand(3)), (1, 3, 2, 2)),
    'deconvolution_2d': (lambda x, W: F.deconvolution_2d(x, W, stride=2, pad=1),
                         (rand(1, 2, 2, 2), rand(2, 3, 3, 3)), (1, 3, 3, 3)),
    'depthwise_convolution_2d': (lambda x, W: F.depthwise_convolution_2d(x, W),
                                 (rand(1, 2, 3, 3), rand(2, 2, 2, 2)), (1, 4, 2, 2)),
    'convolution_nd': (lambda x, W: F.convolution_nd(x, W, pad=1), (rand(2, 2, 4), rand(3, 2, 3)), (2, 3, 4)),
    'embed_id': (lambda W: F.embed_id(LABELS, W), (rand(3, 2),), (4, 2)),
    'bilinear': (lambda e1, e2, W: F.bilinear(e1, e2, W), (rand(2, 2), rand(2, 3), rand(2, 3, 2)), (2, 2)),
    'max_pooling_2d': (lambda x: F.max_pooling_2d(x, 3, 2, 1, cover_all=False), (distinct(1, 2, 4, 4),),
                       (1, 2, 2, 2)),
    'average_pooling_2d': (lambda x: F.average_pooling_2d(x, 2, 1, 1), (rand(1, 2, 3, 3),), (1, 2, 4, 4)),
    'unpooling_2d': (lambda x: F.unpooling_2d(x, 2, cover_all=False), (rand(1, 1, 2, 2),), (1, 1, 4, 4)),
    'batch_normalization': (lambda x, g, b: F.batch_normalization(x, g, b),
                            (rand(4, 3), rand(3), rand(3)), (4, 3)),
    'fixed_batch_normalization': (lambda x, g, b, m, v: F.fixed_batch_normalization(x, g, b, m, v),
                                  (rand(4, 3), rand(3), rand(3), rand(3), np.abs(rand(3)) + 1), (4, 3)),
    'layer_normalization': (lambda x, g, b: F.layer_normalization(x, g, b), (rand(3, 4), rand(4), rand(4)),
                            (3, 4)),
    'group_normalization': (lambda x, g, b: F.group_normalization(x, 2, g, b),
                            (rand(2, 4, 3), rand(4), rand(4)), (2, 4, 3)),
    'local_response_normalization': (lambda x: F.local_response_normalization(x, n=3),
                                     (rand(2, 4, 2),), (2, 4, 2)),
    'normalize': (lambda x: F.normalize(x), (rand(3, 4),), (3, 4)),
    'softmax_cross_entropy': (lambda x: F.softmax_cross_entropy(x, LABELS), (rand(4, 3),), None),
    'softmax_cross_entropy_no_reduce': (lambda x: F.softmax_cross_entropy(x, LABELS, reduce='no'),
                                        (rand(4, 3),), (4,)),
    'sigmoid_cross_entropy': (lambda x: F.sigmoid_cross_entropy(x, np.array([[0, 1, -1]], np.int32)),
                              (rand(1, 3),), None),
    'mean_squared_error': (lambda a, b: F.mean_squared_error(a, b), (rand(2, 3), rand(2, 3)), None),
    'huber_loss': (lambda a, b: F.huber_loss(a, b, 0.5), (rand(2, 3), rand(2, 3)), (2,)),
    'contrastive': (lambda a, b: F.contrastive(a, b, np.array([1, 0, 0], np.int32), margin=3.0),
                    (rand(3, 2), rand(3, 2)), None),
    'triplet': (lambda a, p, n: F.triplet(a, p, n, margin=10.0), (rand(2, 3), rand(2, 3), rand(2, 3)), None),
    'gaussian_kl_divergence': (lambda m, v: F.gaussian_kl_divergence(m, v), (rand(2, 3), rand(2, 3)), None),
    'gaussian_nll': (lambda x, m, v: F.gaussian_nll(x, m, v), (rand(2, 2), rand(2, 2), rand(2, 2)), None),
    'spatial_pyramid_pooling_2d': (lambda x: F.spatial_pyramid_pooling_2d(x, 2, pooling='average'),
                                   (rand(1, 2, 4, 4),), (1, 10, 1, 1)),
    'absolute_error': (lambda a, b: F.absolute_error(a, b), (rand(2, 3), rand(2, 3) + 5), (2, 3)),
    'hinge': (lambda x: F.hinge(x, LABELS, 'L2'), (rand(4, 3) * 0.3,), None),
}


@pytest.mark.parametrize('name', sorted(CASES))
def test_check_backward(name):
    fn, inputs, out_shape = CASES[name]
    y_grad = None if out_shape is None else rand(*out_shape)
    check_backward(fn, inputs, y_grad, eps=1e-4, atol=1e-4, rtol=1e-4)


def test_n_step_lstm_backward():
    units = 2
    ws = [[rand(units, 3) for _ in range(4)] + [rand(units, units) for _ in range(4)]]
    bs = [[rand(units) for _ in range(8)]]
    xs = [rand(2, 3), rand(2, 3), rand(1, 3)]  # time steps: sequences of lengths 3 and 2

    def fn(hx, cx, x0, x1, x2):
        hy, cy, ys = F.n_step_lstm(1, 0.0, hx, cx, ws, bs, [x0, x1, x2])
        return hy, cy, ys[0], ys[1], ys[2]

    grads = (rand(1, 2, units), rand(1, 2, units), rand(2, units), rand(2, units), rand(1, units))
    check_backward(fn, (rand(1, 2, units), rand(1, 2, units), *xs), grads, eps=1e-4, atol=1e-4,
                   rtol=1e-4)


DOUBLE = ['linear', 'convolution_2d', 'deconvolution_2d', 'bilinear', 'average_pooling_2d', 'max_pooling_2d',
          'batch_normalization', 'layer_normalization', 'normalize', 'mean_squared_error', 'huber_loss',
          'gaussian_kl_divergence', 'triplet']
DOUBLE_CASES = dict(CASES, softmax_cross_entropy=(
    lambda x: F.softmax_cross_entropy(x, LABELS, enable_double_backprop=True), (rand(4, 3),), None))


@pytest.mark.skipif(not hasattr(gradient_check, 'check_double_backward'), reason='check_double_backward missing')
@pytest.mark.parametrize('name', DOUBLE + ['softmax_cross_entropy'])
def test_check_double_backward(name):
    fn, inputs, out_shape = DOUBLE_CASES[name]
    y_grad = None if out_shape is None else rand(*out_shape)
    x_grad_grad = tuple(rand(*x.shape) for x in inputs)
    gradient_check.check_double_backward(fn, inputs, y_grad, x_grad_grad, eps=1e-4, atol=1e-4, rtol=1e-3)
