"""rensa.onnx.export, one function at a time: each mapped family run in ONNX Runtime
against rensa on small inputs, so a wrong attribute mapping fails here by name."""
import numpy as np
import pytest

import rensa
import rensa.functions as F
import rensa.onnx

onnx = pytest.importorskip('onnx')
ort = pytest.importorskip('onnxruntime')


def rand(*shape, seed=0, low=-1.0, high=1.0):
    return np.random.RandomState(seed).uniform(low, high, shape).astype(np.float32)


def C(*shape, seed=1, **kwargs):
    """A constant Variable (not a graph input: it becomes an initializer)."""
    return rensa.Variable(rand(*shape, seed=seed, **kwargs))


CASES = {
    'deconvolution_2d': (lambda x: F.deconvolution_2d(x, C(3, 2, 3, 3), C(2), stride=2, pad=1, outsize=(8, 9)),
                         rand(2, 3, 4, 5)),
    'convolution_nd_groups_dilate': (lambda x: F.convolution_nd(x, C(4, 1, 3), None, stride=1, pad=2, dilate=2,
                                                                groups=4), rand(2, 4, 9)),
    'average_pooling_2d': (lambda x: F.average_pooling_2d(x, 3, stride=2, pad=1), rand(2, 3, 7, 6)),
    'max_pooling_2d_pad': (lambda x: F.max_pooling_2d(x, 3, stride=2, pad=1, cover_all=False), rand(1, 2, 7, 7)),
    'fixed_batch_normalization': (lambda x: F.fixed_batch_normalization(
        x, C(3), C(3, seed=2), C(3, seed=3), C(3, seed=4, low=0.5, high=2.0), eps=1e-3), rand(2, 3, 4, 4)),
    'embed_id_ignore_label': (lambda x: F.embed_id(x, C(6, 4), ignore_label=-1), np.array([[0, -1, 5]], np.int32)),
    'prelu': (lambda x: F.prelu(x, C(3)), rand(2, 3, 4)),
    'gelu_softplus_hard_sigmoid': (lambda x: F.gelu(x) + F.softplus(x, beta=2.0) * F.hard_sigmoid(x * 3.0),
                                   rand(3, 5)),
    'clipped_relu_clip_maximum': (lambda x: F.maximum(F.clipped_relu(x * 4.0, z=2.5), F.clip(x, -0.5, 0.25)),
                                  rand(3, 5)),
    'math': (lambda x: F.log1p(F.exp(x)) + F.expm1(x) * F.rsqrt(x * x + 1.0) - F.squared_difference(x, F.sin(x))
             + F.log(x + 2.0) / (3.0 / (x + 2.0)) + 2.0 ** x, rand(4, 3)),
    'matmul_transposed': (lambda x: F.matmul(x, C(4, 3), transa=True)
                          + F.matmul(x, C(3, 4, seed=2), transa=True, transb=True), rand(4, 5)),
    'array_functions': (lambda x: F.concat(F.separate(F.flip(F.swapaxes(F.expand_dims(x, 1), 0, 2), 0), axis=0),
                                           axis=1), rand(2, 3)),
    'broadcast_squeeze_flatten_mean': (lambda x: F.flatten(F.squeeze(F.broadcast_to(x, (2, 1, 4, 3)), 1))
                                       + F.mean(x) + F.sum(F.mean(F.broadcast_to(x, (2, 1, 4, 3)), axis=(1, 2))),
                                       rand(4, 1)),
    'cast_min_max': (lambda x: F.min(F.cast(F.cast(x * 2.0, np.float64), np.float32), axis=0)
                     + F.max(x, axis=0, keepdims=True), rand(3, 4)),
    'pad_modes': (lambda x: F.pad(x, ((0, 1), (2, 1)), 'constant', constant_values=1.5)
                  + F.pad(x, ((1, 0), (1, 2)), 'edge') + F.pad(x, ((0, 1), (2, 1)), 'reflect'), rand(3, 4)),
    'get_item': (lambda x: F.concat((x[:, -1], x[1, ::-2], x[..., 0], x[-1:, None, 2][0], x[::2, 1:3][:, 0],
                                     x[-3:-1, 0], F.flatten(x[::-1, ::-1][2:, :2])), axis=0), rand(4, 5)),
    'log_softmax_axis0': (lambda x: F.log_softmax(x, axis=0), rand(3, 4)),
}


def run(f, x, **kwargs):
    """ONNX Runtime's and rensa's outputs of f exported on x (a numpy array)."""
    # Variables in, so that `x * 3.0` is a recorded function, not numpy arithmetic.
    model = rensa.onnx.export(f, rensa.Variable(x), **kwargs)
    session = ort.InferenceSession(model.SerializeToString(), providers=['CPUExecutionProvider'])
    (out,) = session.run(None, {'input_0': x})
    with rensa.using_config('train', False), rensa.no_backprop_mode():
        want = np.asarray(f(rensa.Variable(x)).array)
    return out, want


def assert_close(out, want):
    assert out.shape == want.shape and out.dtype == want.dtype
    scale = max(float(np.abs(want).max()), 1.0)
    assert float(np.abs(out - want).max()) <= 1e-5 * scale


def test_pad_mode_without_onnx_equivalent_is_named():
    with pytest.raises(rensa.onnx.UnsupportedFunctionError, match=r"Pad .*mode 'symmetric'"):
        rensa.onnx.export(lambda x: F.pad(x, 1, 'symmetric'), rensa.Variable(rand(2, 3)))
    with pytest.raises(rensa.onnx.UnsupportedFunctionError, match=r"Pad .*mode 'wrap' at opset 18"):
        rensa.onnx.export(lambda x: F.pad(x, 1, 'wrap'), rensa.Variable(rand(2, 3)), opset_version=18)


def test_pad_wrap_at_opset_19():
    assert_close(*run(lambda x: F.pad(x, ((1, 2), (2, 1)), 'wrap'), rand(3, 4), opset_version=19))


@pytest.mark.parametrize('name', sorted(CASES))
def test_function(name):
    f, x = CASES[name]
    assert_close(*run(f, x))
