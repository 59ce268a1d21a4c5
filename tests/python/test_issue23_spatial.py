"""Issue 23, spatial part: spatial_transformer_grid / _sampler, local_convolution_2d,
deformable_convolution_2d_sampler, shift, unpooling_1d / _3d / _nd and the links
LocalConvolution2D, DeformableConvolution2D, DilatedConvolution2D, Convolution1D / 3D,
Deconvolution1D / 3D.

Gradients are checked with rensa.gradient_check; values, gradients and NPZ files are compared
with real Chainer 7.8.1 when it is installed (chainer_style_harness.chainer_python), which
settles the subtle parts: the sampler's coordinates and zero border, shift's group order,
DeformableConvolution2D's children and initial values.
"""
import json
import os
import subprocess

import numpy as np
import pytest

import rensa
import rensa.functions as F
import rensa.links as L
from rensa import gradient_check, serializers

from chainer_style_harness import assert_same_first_losses, chainer_python, first_losses, run_on_chainer, run_ported

# Grid values away from the pixel boundaries of a (4, 5) image (u = 2 g + 3, v = 1.5 g + 2.5
# integral), where the sampler's gradient in the grid jumps.
KINKS = sorted({k / 2.0 - 1 for k in range(-1, 7)} | {2.0 * k / 3 - 1 for k in range(-1, 6)})


def grid_values(rng, shape):
    g = rng.uniform(-1.8, 1.8, shape)
    for k in KINKS:
        near = np.abs(g - k) < 0.04
        g[near] = k + 0.04 * np.sign(g[near] - k + 1e-12)
    return g


def offsets(rng, shape):
    o = rng.uniform(-1.4, 1.4, shape)
    frac = o - np.round(o)
    o[np.abs(frac) < 0.06] += 0.1
    return o


def make_cases():
    """name -> (function name, positional arrays, keyword arguments); float64 inputs."""
    rng = np.random.RandomState(0)
    u = lambda *s: rng.uniform(-1, 1, s)  # noqa: E731
    return {
        'grid': ('spatial_transformer_grid', [u(2, 2, 3)], {'output_shape': (3, 4)}),
        'sampler': ('spatial_transformer_sampler', [u(2, 3, 4, 5), grid_values(rng, (2, 2, 3, 4))], {}),
        'local': ('local_convolution_2d', [u(2, 3, 5, 4), u(2, 2, 2, 3, 3, 2), u(2, 2, 2)], {'stride': (2, 1)}),
        'deformable': ('deformable_convolution_2d_sampler', [u(2, 2, 4, 5), offsets(rng, (2, 12, 4, 4)),
                                                             u(3, 2, 2, 3), u(3)], {'stride': 1, 'pad': (1, 0)}),
        'shift': ('shift', [u(2, 11, 4, 5)], {'ksize': 3, 'dilate': (2, 1)}),
        'unpool1d': ('unpooling_1d', [u(2, 3, 4)], {'ksize': 2}),
        'unpool3d': ('unpooling_3d', [u(1, 2, 2, 2, 3)], {'ksize': 2, 'stride': 1, 'cover_all': False}),
        'unpoolnd': ('unpooling_nd', [u(1, 2, 2, 3)], {'ksize': (2, 3), 'pad': (0, 1), 'outsize': (4, 7)}),
    }


def run(fn_name, arrays, kwargs, gy=None):
    xs = [rensa.Variable(a) for a in arrays]
    y = getattr(F, fn_name)(*xs, **kwargs)
    if gy is None:
        return y.array, None
    y.grad = gy
    y.backward()
    return y.array, [x.grad for x in xs]


@pytest.mark.parametrize('name', sorted(make_cases()))
def test_gradients(name):
    fn_name, arrays, kwargs = make_cases()[name]
    fn = getattr(F, fn_name)
    y = fn(*arrays, **kwargs)
    gy = np.random.RandomState(1).uniform(-1, 1, y.shape)
    gradient_check.check_backward(lambda *xs: fn(*xs, **kwargs), tuple(arrays), gy, atol=1e-6, rtol=1e-5)


def test_float32_and_shapes():
    x = np.zeros((2, 3, 4, 5), np.float32)
    grid = F.spatial_transformer_grid(np.tile(np.eye(2, 3, dtype=np.float32), (2, 1, 1)), (4, 5))
    assert grid.shape == (2, 2, 4, 5) and grid.dtype == np.float32
    assert F.spatial_transformer_sampler(x, grid).shape == (2, 3, 4, 5)
    assert F.shift(np.zeros((1, 9, 3, 3), np.float32)).shape == (1, 9, 3, 3)
    assert F.unpooling_nd(np.zeros((1, 2, 3), np.float32), 2, cover_all=False).shape == (1, 2, 6)
    assert F.unpooling_1d(np.zeros((1, 2, 3), np.float32), 2).shape == (1, 2, 5)


def test_errors():
    x = np.zeros((1, 2, 3, 3), np.float32)
    with pytest.raises(ValueError, match='use_cudnn'):
        F.spatial_transformer_sampler(x, np.zeros((1, 2, 2, 2), np.float32), use_cudnn=False)
    with pytest.raises(TypeError, match='unexpected keyword'):
        F.spatial_transformer_grid(np.zeros((1, 2, 3), np.float32), (2, 2), foo=1)
    with pytest.raises(ValueError, match='spatial_transformer_sampler: Expect: grid.shape'):
        F.spatial_transformer_sampler(x, np.zeros((1, 3, 2, 2), np.float32))
    with pytest.raises(TypeError):  # DtypeError
        F.spatial_transformer_sampler(x, np.zeros((1, 2, 2, 2), np.float64))
    with pytest.raises(ValueError, match='shift: Expect: ksize odd'):
        F.shift(np.zeros((1, 9, 3, 3), np.float32), ksize=2)
    with pytest.raises(ValueError, match='local_convolution_2d: Expect: x.shape\\[1\\] == W.shape\\[3\\]'):
        F.local_convolution_2d(x, np.zeros((1, 1, 1, 3, 3, 3), np.float32))
    with pytest.raises(ValueError, match='deformable_convolution_2d_sampler: Expect: offset.shape'):
        F.deformable_convolution_2d_sampler(x, np.zeros((1, 3, 1, 1), np.float32), np.zeros((1, 2, 3, 3), np.float32))
    with pytest.raises(ValueError, match='unpooling_3d'):
        F.unpooling_3d(x, 2)
    with pytest.raises(ValueError, match='ksize must be given'):
        L.LocalConvolution2D(2, 3, 4)


def link_cases():
    """name -> (constructor, its arguments, input shape); the same on both sides."""
    return {
        'local': ('LocalConvolution2D', (2, 3, (4, 5), 3), {}, (2, 2, 4, 5)),
        'deformable': ('DeformableConvolution2D', (2, 3, (2, 3)), {'pad': 1}, (2, 2, 4, 5)),
        'dilated': ('DilatedConvolution2D', (2, 3, 3), {'pad': 2, 'dilate': 2}, (1, 2, 5, 5)),
        'conv1d': ('Convolution1D', (2, 3, 2), {'stride': 2}, (2, 2, 6)),
        'conv3d': ('Convolution3D', (2, 2, 2), {'pad': 1}, (1, 2, 3, 3, 3)),
        'deconv1d': ('Deconvolution1D', (2, 3, 3), {'stride': 2}, (2, 2, 4)),
        'deconv3d': ('Deconvolution3D', (2, 1, 2), {'nobias': True}, (1, 2, 2, 2, 2)),
    }


def link_input(shape):
    return np.random.RandomState(7).uniform(-1, 1, shape).astype(np.float32)


def test_links_npz_keys_and_forward(tmp_path):
    expected = {
        'local': {'W': (3, 2, 3, 2, 3, 3), 'b': (3, 2, 3)},
        'deformable': {'offset_conv/W': (12, 2, 2, 3), 'offset_conv/b': (12,), 'deform_conv/W': (3, 2, 2, 3),
                       'deform_conv/b': (3,)},
        'dilated': {'W': (3, 2, 3, 3), 'b': (3,)},
        'conv1d': {'W': (3, 2, 2), 'b': (3,)},
        'conv3d': {'W': (2, 2, 2, 2, 2), 'b': (2,)},
        'deconv1d': {'W': (2, 3, 3), 'b': (3,)},
        'deconv3d': {'W': (2, 1, 2, 2, 2)},
    }
    for name, (cls, args, kwargs, shape) in link_cases().items():
        link = getattr(L, cls)(*args, **kwargs)
        path = tmp_path / (name + '.npz')
        serializers.save_npz(str(path), link)
        with np.load(str(path)) as f:
            assert {k: f[k].shape for k in f.files} == expected[name], name
        y = link(link_input(shape))
        copy = getattr(L, cls)(*args, **kwargs)
        serializers.load_npz(str(path), copy)
        np.testing.assert_array_equal(copy(link_input(shape)).array, y.array)
    deformable = L.DeformableConvolution2D(2, 3, 2)
    assert not deformable.deform_conv.W.array.any()  # Chainer's DeformableConvolution2DSampler starts at 0
    assert isinstance(L.Convolution1D(2, 3, 2), L.ConvolutionND)
    assert isinstance(L.DilatedConvolution2D(3, 2), L.Convolution2D)  # short form (out_channels, ksize)
    lazy = L.LocalConvolution2D(None, 3, ksize=2)
    assert lazy(link_input((1, 2, 4, 4))).shape == (1, 3, 3, 3)


# --- against real Chainer ----------------------------------------------------------------------

CHAINER_SCRIPT = r'''
import json, sys
import numpy as np
import chainer
import chainer.functions as F
import chainer.links as L

spec = json.load(open(sys.argv[1]))
data = np.load(sys.argv[2])
out = {}
for name, (fn_name, n, kwargs) in spec['cases'].items():
    xs = [chainer.Variable(data['%s/x%d' % (name, i)]) for i in range(n)]
    if 'output_shape' in kwargs:
        kwargs['output_shape'] = tuple(kwargs['output_shape'])
    kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in kwargs.items()}
    y = getattr(F, fn_name)(*xs, **kwargs)
    y.grad = data[name + '/gy']
    y.backward()
    out[name + '/y'] = y.array
    for i, x in enumerate(xs):
        out['%s/g%d' % (name, i)] = x.grad
for name, (cls, args, kwargs, shape) in spec['links'].items():
    args = [tuple(a) if isinstance(a, list) else a for a in args]
    link = getattr(L, cls)(*args, **kwargs)
    x = data['link/' + name]
    with chainer.using_config('train', False):
        link(x)  # initialises lazy parameters
    rng = np.random.RandomState(3)
    for _, p in sorted(link.namedparams()):
        p.array[...] = rng.uniform(-0.5, 0.5, p.shape)
    chainer.serializers.save_npz('%s/%s.npz' % (sys.argv[4], name), link)
    out['link/%s/y' % name] = link(x).array
np.savez(sys.argv[3], **out)
'''


@pytest.fixture(scope='module')
def chainer_run(tmp_path_factory):
    python = chainer_python()
    if python is None:
        pytest.skip('real Chainer not installed (RENSA_CHAINER_PYTHON or .venv-chainermn)')
    tmp = tmp_path_factory.mktemp('chainer')
    cases, data, spec = make_cases(), {}, {'cases': {}, 'links': link_cases()}
    for name, (fn_name, arrays, kwargs) in cases.items():
        y, _ = run(fn_name, arrays, kwargs)
        data[name + '/gy'] = np.random.RandomState(2).uniform(-1, 1, y.shape)
        for i, a in enumerate(arrays):
            data['%s/x%d' % (name, i)] = a
        spec['cases'][name] = (fn_name, len(arrays), kwargs)
    for name, (_, _, _, shape) in link_cases().items():
        data['link/' + name] = link_input(shape)
    paths = [tmp / n for n in ('spec.json', 'in.npz', 'out.npz')]
    paths[0].write_text(json.dumps(spec))
    np.savez(paths[1], **data)
    script = tmp / 'run.py'
    script.write_text(CHAINER_SCRIPT)
    env = dict(os.environ, PYTHONWARNINGS='ignore', OMP_NUM_THREADS='1', CHAINER_WARN_VERSION_MISMATCH='0')
    proc = subprocess.run([python, str(script)] + [str(p) for p in paths] + [str(tmp)], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:]
    return data, dict(np.load(paths[2])), tmp


@pytest.mark.parametrize('name', sorted(make_cases()))
def test_functions_match_chainer(chainer_run, name):
    data, theirs, _ = chainer_run
    fn_name, arrays, kwargs = make_cases()[name]
    y, grads = run(fn_name, arrays, kwargs, gy=data[name + '/gy'])
    np.testing.assert_allclose(y, theirs[name + '/y'], rtol=1e-10, atol=1e-12)
    for i, g in enumerate(grads):
        np.testing.assert_allclose(g, theirs['%s/g%d' % (name, i)], rtol=1e-10, atol=1e-12, err_msg='grad %d' % i)


@pytest.mark.parametrize('name', sorted(link_cases()))
def test_links_load_chainer_npz(chainer_run, name, tmp_path):
    data, theirs, tmp = chainer_run
    cls, args, kwargs, shape = link_cases()[name]
    link = getattr(L, cls)(*args, **kwargs)
    x = data['link/' + name]
    link(x)  # initialises lazy parameters, as the Chainer side did
    chainer_npz = tmp / (name + '.npz')
    serializers.load_npz(str(chainer_npz), link)
    np.testing.assert_allclose(link(x).array, theirs['link/%s/y' % name], rtol=1e-5, atol=1e-6)
    ours = tmp_path / 'ours.npz'
    serializers.save_npz(str(ours), link)
    with np.load(str(ours)) as a, np.load(str(chainer_npz)) as b:
        assert sorted(a.files) == sorted(b.files)
        for key in a.files:
            np.testing.assert_array_equal(a[key], b[key])


def test_chainer_style_spatial_transformer(tmp_path):
    """tests/python/chainer_style/spatial_transformer.py: the same first losses as Chainer."""
    ours = run_ported('spatial_transformer.py', tmp_path, timeout=120)
    losses = first_losses(ours)
    assert len(losses) == 6 and losses[-1] < losses[0]
    assert_same_first_losses(ours, run_on_chainer('spatial_transformer.py', timeout=120))
