"""rensa.functions array family and Variable.__getitem__, against numpy."""
import numpy
import pytest

import rensa
import rensa.functions as F

Variable = getattr(rensa, 'Variable', rensa._core.Variable)
DTYPES = [numpy.float32, numpy.float64, numpy.int32]


def _data(rng, shape, dtype):
    return (rng.uniform(-5, 5, shape)).astype(dtype)


# name -> (call, numpy reference); x has shape (2, 3, 4).
SHAPE_OPS = {
    'reshape': (lambda x: F.reshape(x, shape=(4, -1)), lambda x: x.reshape(4, -1)),
    'reshape_int': (lambda x: F.reshape(x, 24), lambda x: x.reshape(24)),
    'broadcast_to': (lambda x: F.broadcast_to(x[:, :1], shape=(5, 2, 3, 4)),
                     lambda x: numpy.broadcast_to(x[:, :1], (5, 2, 3, 4))),
    'sum_to': (lambda x: F.sum_to(x, shape=(3, 1)), lambda x: x.sum(axis=0).sum(axis=1, keepdims=True).astype(x.dtype)),
    'transpose': (lambda x: F.transpose(x), lambda x: x.transpose()),
    'transpose_axes': (lambda x: F.transpose(x, axes=(1, 2, 0)), lambda x: x.transpose(1, 2, 0)),
    'swapaxes': (lambda x: F.swapaxes(x, axis1=0, axis2=2), lambda x: x.swapaxes(0, 2)),
    'moveaxis': (lambda x: F.moveaxis(x, 0, -1), lambda x: numpy.moveaxis(x, 0, -1)),
    'rollaxis': (lambda x: F.rollaxis(x, 2, start=1), lambda x: numpy.rollaxis(x, 2, 1)),
    'rollaxis_end': (lambda x: F.rollaxis(x, 0, 3), lambda x: numpy.rollaxis(x, 0, 3)),
    'expand_dims': (lambda x: F.expand_dims(x, axis=-1), lambda x: x[..., None]),
    'squeeze': (lambda x: F.squeeze(x[:, :1, :1]), lambda x: x[:, :1, :1].squeeze()),
    'squeeze_axis': (lambda x: F.squeeze(x[:, :1, :1], axis=1), lambda x: x[:, :1, :1].squeeze(1)),
    'squeeze_axes': (lambda x: F.squeeze(x[:, :1, :1], axis=(1, 2)), lambda x: x[:, :1, :1].squeeze((1, 2))),
    'flatten': (lambda x: F.flatten(x), lambda x: x.ravel()),
    'flip': (lambda x: F.flip(x, axis=1), lambda x: numpy.flip(x, 1)),
    'fliplr': (lambda x: F.fliplr(x), numpy.fliplr),
    'flipud': (lambda x: F.flipud(x), numpy.flipud),
    'concat': (lambda x: F.concat((x, x[:, :1]), axis=1), lambda x: numpy.concatenate((x, x[:, :1]), 1)),
    'concat_default': (lambda x: F.concat([x, x]), lambda x: numpy.concatenate([x, x], axis=1)),
    'stack': (lambda x: F.stack([x, x + 1], axis=1), lambda x: numpy.stack([x, x + 1], 1)),
    'hstack': (lambda x: F.hstack([x, x]), lambda x: numpy.hstack([x, x])),
    'vstack': (lambda x: F.vstack([x[0], x[1, :2]]), lambda x: numpy.vstack([x[0], x[1, :2]])),
    'dstack': (lambda x: F.dstack([x[0], x[1]]), lambda x: numpy.dstack([x[0], x[1]])),
    'dstack_1d': (lambda x: F.dstack([x[0, 0], x[1, 0]]), lambda x: numpy.dstack([x[0, 0], x[1, 0]])),
    'tile': (lambda x: F.tile(x, reps=(2, 1, 1, 2)), lambda x: numpy.tile(x, (2, 1, 1, 2))),
    'tile_int': (lambda x: F.tile(x, 2), lambda x: numpy.tile(x, 2)),
    'repeat': (lambda x: F.repeat(x, repeats=2, axis=2), lambda x: numpy.repeat(x, 2, axis=2)),
    'repeat_flat': (lambda x: F.repeat(x, 3), lambda x: numpy.repeat(x, 3)),
    'repeat_list': (lambda x: F.repeat(x, [1, 0, 2], axis=1), lambda x: numpy.repeat(x, [1, 0, 2], axis=1)),
    'pad': (lambda x: F.pad(x, 1, mode='constant'), lambda x: numpy.pad(x, 1)),
    'pad_pairs': (lambda x: F.pad(x, ((0, 1), (2, 0), (1, 1)), 'constant', constant_values=3),
                  lambda x: numpy.pad(x, ((0, 1), (2, 0), (1, 1)), constant_values=3)),
    'pad_one_pair': (lambda x: F.pad(x, (1, 2), 'constant'), lambda x: numpy.pad(x, (1, 2))),
    'where_scalar': (lambda x: F.where(x > 0, x, 0), lambda x: numpy.where(x > 0, x, 0).astype(x.dtype)),
    'where_scalar_x': (lambda x: F.where(x > 0, 1, x), lambda x: numpy.where(x > 0, 1, x).astype(x.dtype)),
    'where': (lambda x: F.where(condition=x > 0, x=x, y=-x), lambda x: numpy.abs(x)),
}


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('name', sorted(SHAPE_OPS))
def test_shape_ops_match_numpy(name, dtype, rng):
    call, ref = SHAPE_OPS[name]
    x = _data(rng, (2, 3, 4), dtype)
    y = call(x)
    assert isinstance(y, Variable)
    expected = ref(x)
    assert y.shape == expected.shape
    assert y.dtype == expected.dtype
    # Only sum_to adds; its float sums may differ from numpy's in the last bit.
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-6, atol=0)


def test_broadcast(rng):
    a, b = rng.standard_normal((3, 1)), rng.standard_normal(4)
    ya, yb = F.broadcast(a, b)
    ra, rb = numpy.broadcast_arrays(a, b)
    numpy.testing.assert_array_equal(ya.array, ra)
    numpy.testing.assert_array_equal(yb.array, rb)
    assert isinstance(F.broadcast(a), Variable)


@pytest.mark.parametrize('sections', [3, [1, 4], (0, 2, 2, 6)])
def test_split_axis(sections, rng):
    x = rng.standard_normal((2, 6))
    ys = F.split_axis(x, sections, axis=1)
    assert isinstance(ys, tuple)
    refs = numpy.split(x, sections, axis=1)
    assert len(ys) == len(refs)
    for y, r in zip(ys, refs):
        numpy.testing.assert_array_equal(y.array, r)


def test_split_axis_force_tuple(rng):
    x = rng.standard_normal((2, 6))
    y = F.split_axis(x, 1, 1, force_tuple=False)
    assert isinstance(y, Variable)
    assert isinstance(F.split_axis(x, 1, 1), tuple)
    with pytest.raises(ValueError, match='split_axis'):
        F.split_axis(x, 4, 1)


def test_separate(rng):
    x = rng.standard_normal((2, 3))
    ys = F.separate(x, axis=1)
    assert isinstance(ys, tuple) and len(ys) == 3
    for i, y in enumerate(ys):
        numpy.testing.assert_array_equal(y.array, x[:, i])


def test_pad_sequence_and_transpose_sequence(rng):
    xs = [rng.standard_normal((n, 2)).astype(numpy.float32) for n in (4, 2, 1)]
    y = F.pad_sequence(xs, length=5, padding=-1)
    ref = numpy.full((3, 5, 2), -1, numpy.float32)
    for i, x in enumerate(xs):
        ref[i, :len(x)] = x
    numpy.testing.assert_array_equal(y.array, ref)
    assert F.pad_sequence(xs).shape == (3, 4, 2)
    ts = F.transpose_sequence(xs)
    assert isinstance(ts, tuple) and [t.shape[0] for t in ts] == [3, 2, 1, 1]
    numpy.testing.assert_array_equal(ts[1].array, numpy.stack([xs[0][1], xs[1][1]]))
    back = F.transpose_sequence(ts)
    for b, x in zip(back, xs):
        numpy.testing.assert_array_equal(b.array, x)


def test_cast_and_copy(rng):
    x = rng.standard_normal((2, 3))
    y = F.cast(x, numpy.float32)
    assert y.dtype == numpy.float32
    numpy.testing.assert_array_equal(y.array, x.astype(numpy.float32))
    assert F.cast(x, 'float16').dtype == numpy.float16
    z = F.copy(x, -1)
    numpy.testing.assert_array_equal(z.array, x)
    z.array[0, 0] = 7
    assert x[0, 0] != 7


def _resize_bilinear_align(x, out_h, out_w):
    """Chainer's resize_images (align_corners=True): source = dst * (in - 1) / (out - 1)."""
    n, c, h, w = x.shape
    ys = numpy.linspace(0, h - 1, out_h)
    xs = numpy.linspace(0, w - 1, out_w)
    y0 = numpy.clip(numpy.floor(ys).astype(int), 0, h - 2)
    x0 = numpy.clip(numpy.floor(xs).astype(int), 0, w - 2)
    dy = (ys - y0)[:, None]
    dx = (xs - x0)[None, :]
    a = x[:, :, y0][:, :, :, x0]
    b = x[:, :, y0][:, :, :, x0 + 1]
    cc = x[:, :, y0 + 1][:, :, :, x0]
    d = x[:, :, y0 + 1][:, :, :, x0 + 1]
    return (1 - dy) * (1 - dx) * a + (1 - dy) * dx * b + dy * (1 - dx) * cc + dy * dx * d


def test_resize_images(rng):
    x = rng.standard_normal((2, 3, 4, 5))
    y = F.resize_images(x, output_shape=(7, 3))
    assert y.shape == (2, 3, 7, 3)
    numpy.testing.assert_allclose(y.array, _resize_bilinear_align(x, 7, 3), rtol=1e-10, atol=1e-12)
    up = F.resize_images(x, (8, 10), mode='nearest')
    assert up.shape == (2, 3, 8, 10)
    numpy.testing.assert_array_equal(up.array[:, :, ::2, ::2], x)


def test_select_item(rng):
    x = rng.standard_normal((4, 3)).astype(numpy.float32)
    t = numpy.array([2, 0, 1, -1], numpy.int32)
    numpy.testing.assert_array_equal(F.select_item(x, t).array, x[numpy.arange(4), t])
    with pytest.raises(IndexError):
        F.select_item(x, numpy.array([0, 0, 0, 3], numpy.int32))


INDICES = [
    1, -1, (0, 2), slice(1, None), slice(None, None, -1), slice(3, 0, -2), (slice(None), 1),
    (Ellipsis, 2), (None, 0), (0, None, slice(1, 3)), (Ellipsis, None), [2, 0, 0],
    numpy.array([[1, 0], [2, 2]]), (slice(None), [1, 2]), (1, slice(None), [0, 3, 3]),
    numpy.int64(2), (numpy.int32(1), 2),
]


@pytest.mark.parametrize('index', INDICES, ids=repr)
def test_getitem_matches_numpy(index, rng):
    x = rng.standard_normal((3, 4, 5)).astype(numpy.float32)
    v = Variable(x)
    numpy.testing.assert_array_equal(v[index].array, x[index])
    numpy.testing.assert_array_equal(F.get_item(x, index).array, x[index])


def test_getitem_boolean_masks(rng):
    x = rng.standard_normal((3, 4, 5)).astype(numpy.float32)
    v = Variable(x)
    row_mask = numpy.array([True, False, True])
    numpy.testing.assert_array_equal(v[row_mask].array, x[row_mask])
    numpy.testing.assert_array_equal(v[:, x[0, :, 0] > 0].array, x[:, x[0, :, 0] > 0])
    full = x > 0
    numpy.testing.assert_array_equal(v[full].array, x[full])
    numpy.testing.assert_array_equal(v[full[:, :, 0]].array, x[full[:, :, 0]])


def test_getitem_is_differentiable(rng):
    x = rng.standard_normal((3, 4))
    v = Variable(x)
    y = F.sum(v[1:, [0, 0, 2]])
    y.backward()
    ref = numpy.zeros_like(x)
    numpy.add.at(ref, (slice(1, None), [0, 0, 2]), 1)
    numpy.testing.assert_array_equal(v.grad, ref)


def test_getitem_errors(rng):
    v = Variable(rng.standard_normal((3, 4)))
    with pytest.raises(IndexError):
        v[3]
    with pytest.raises(IndexError):
        v[:, [0, 4]]


def test_depth2space_space2depth(rng):
    x = rng.standard_normal((2, 8, 3, 5))
    y = F.depth2space(x, 2)
    ref = x.reshape(2, 2, 2, 2, 3, 5).transpose(0, 3, 4, 1, 5, 2).reshape(2, 2, 6, 10)
    numpy.testing.assert_array_equal(y.array, ref)
    numpy.testing.assert_array_equal(F.space2depth(y, r=2).array, x)
    with pytest.raises(ValueError):
        F.depth2space(x, 3)


@pytest.mark.parametrize('inv', [False, True])
def test_permutate(inv, rng):
    x = rng.standard_normal((3, 4))
    indices = numpy.array([2, 0, 3, 1], numpy.int32)
    y = F.permutate(x, indices, axis=1, inv=inv)
    ref = x[:, numpy.argsort(indices)] if inv else x[:, indices]
    numpy.testing.assert_array_equal(y.array, ref)
    numpy.testing.assert_array_equal(F.permutate(y, indices, axis=1, inv=not inv).array, x)


def test_index_and_condition_as_variables(rng):
    x = rng.standard_normal((4, 3))
    idx = Variable(numpy.array([3, 1]), requires_grad=False)
    numpy.testing.assert_array_equal(Variable(x)[idx].array, x[[3, 1]])
    cond = Variable(x > 0, requires_grad=False)
    numpy.testing.assert_array_equal(F.where(cond, x, 0.0).array, numpy.where(x > 0, x, 0.0))
    order = Variable(numpy.array([2, 0, 3, 1], numpy.int32), requires_grad=False)
    numpy.testing.assert_array_equal(F.permutate(x, order).array, x[[2, 0, 3, 1]])


def test_argument_errors(rng):
    x = rng.standard_normal((2, 3, 4))
    with pytest.raises(ValueError, match='pad'):
        F.pad(x, 1, mode='reflection')
    with pytest.raises(TypeError, match='reshape'):
        F.reshape(x, 'abc')
    with pytest.raises(TypeError, match='transpose'):
        F.transpose(x, axes=(0, 1.5, 2))
    numpy.testing.assert_array_equal(Variable(x)[:, x[0] > 0].array, x[:, x[0] > 0])  # a 2-d mask after a slice
    with pytest.raises(ValueError, match='resize_images'):
        F.resize_images(x[None], (2, 3, 4))
