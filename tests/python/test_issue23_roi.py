"""The region-of-interest functions (issue 23): Chainer's signatures, gradient checks, errors,
and outputs and gradients compared with real Chainer 7.8.1 (skipped without it)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import rensa
import rensa.functions as F
from rensa import gradient_check

sys.path.insert(0, os.path.dirname(__file__))
from chainer_style_harness import (assert_same_first_losses, chainer_python, run_on_chainer,  # noqa: E402
                                   run_ported)

NAMES = ['roi_pooling_2d', 'roi_max_pooling_2d', 'roi_average_pooling_2d', 'roi_max_align_2d',
         'roi_average_align_2d']

# Each case: function name, extra arguments after (x, rois[, roi_indices]).
CASES = [
    ('roi_pooling_2d', (3, 2, 0.5)),
    ('roi_max_pooling_2d', ((3, 2), 0.5)),
    ('roi_average_pooling_2d', (2, 0.5)),
    ('roi_max_align_2d', ((2, 3), 0.5)),
    ('roi_max_align_2d', (2, 0.5, 2)),
    ('roi_average_align_2d', ((2, 3), 0.5)),
    ('roi_average_align_2d', (2, 0.5, (None, 2))),
    ('roi_average_align_2d', (3, 0.25, 1)),
]


def inputs(seed=0):
    """x (2, 3, 8, 9), rois with exact halves after scaling, parts outside x and a malformed
    one, their batch indices, and roi_pooling_2d's (batch, x_min, y_min, x_max, y_max) rows."""
    rs = np.random.RandomState(seed)
    x = rs.permutation(2 * 3 * 8 * 9).reshape(2, 3, 8, 9).astype(np.float32) / 20 - 5
    rois = np.array([[0, 0, 14, 16], [3, 5, 9, 11], [-2, 4, 19, 21], [8, 9, 7, 3], [1.3, 2.7, 11.2, 15.9],
                     [5.5, -1.5, 16.5, 9.5]], np.float32)
    idx = np.array([0, 1, 1, 0, 1, 0], np.int32)
    legacy = np.concatenate([idx[:, None].astype(np.float32), rois[:, [1, 0, 3, 2]]], axis=1)
    return x, rois, idx, legacy


def call(module, name, x, rois, idx, legacy, args):
    f = getattr(module, name)
    if name == 'roi_pooling_2d':
        return f(x, legacy, *args)
    return f(x, rois, idx, *args)


def test_keywords_and_defaults_match_chainer():
    """Chainer's keyword names (checked with inspect.signature on Chainer 7.8.1) and defaults."""
    x, rois, idx, legacy = inputs()
    y = F.roi_pooling_2d(x=x, rois=legacy, outh=2, outw=3, spatial_scale=0.5)
    assert y.shape == (6, 3, 2, 3)
    for name in NAMES[1:]:
        y = getattr(F, name)(x=x, rois=rois, roi_indices=idx, outsize=(2, 3), spatial_scale=0.5)
        assert y.shape == (6, 3, 2, 3) and y.dtype == np.float32
    for name in NAMES[3:]:
        f = getattr(F, name)
        np.testing.assert_array_equal(f(x, rois, idx, 2, 0.5).array,
                                      f(x, rois, idx, 2, 0.5, sampling_ratio=None).array)
        np.testing.assert_array_equal(f(x, rois, idx, 2, 0.5, 2).array, f(x, rois, idx, 2, 0.5, (2, 2)).array)


@pytest.mark.parametrize('name,args', CASES)
def test_check_backward(name, args):
    x, rois, idx, legacy = inputs()
    x = x.astype(np.float64)
    rois, legacy = rois.astype(np.float64), legacy.astype(np.float64)
    y = call(F, name, x, rois, idx, legacy, args)
    gy = np.random.RandomState(1).uniform(-1, 1, y.shape)
    if name == 'roi_pooling_2d':
        legacy[3] = [0, 3, 8, 9, 11]  # a malformed roi passes no gradient back (as in Chainer)
        gradient_check.check_backward(lambda v, r: F.roi_pooling_2d(v, r, *args), (x, legacy), gy,
                                      no_grads=[False, True], eps=1e-3, atol=1e-4, rtol=1e-4)
    else:
        gradient_check.check_backward(lambda v, r, i: getattr(F, name)(v, r, i, *args), (x, rois, idx), gy,
                                      no_grads=[False, True, True], eps=1e-3, atol=1e-4, rtol=1e-4)


def test_errors():
    x, rois, idx, legacy = inputs()
    with pytest.raises(IndexError, match='roi_max_pooling_2d: roi 2 has batch index 5'):
        F.roi_max_pooling_2d(x, rois, np.array([0, 1, 5, 0, 1, 0], np.int32), 2, 1.0)
    with pytest.raises(TypeError, match='roi_indices.dtype == int32'):
        F.roi_average_align_2d(x, rois, idx.astype(np.int64), 2, 1.0)
    with pytest.raises(ValueError, match=r'rois.shape == \(R, 5\)'):
        F.roi_pooling_2d(x, rois, 2, 2, 1.0)
    with pytest.raises(ValueError, match='sampling_ratio'):
        F.roi_max_align_2d(x, rois, idx, 2, 1.0, sampling_ratio=0)
    with pytest.raises(ValueError, match='spatial_scale > 0'):
        F.roi_average_pooling_2d(x, rois, idx, 2, -1.0)
    with pytest.raises(ValueError, match=r'rois.shape == \(R, 4\)'):
        F.roi_max_align_2d(x, legacy, idx, 2, 1.0)
    with pytest.raises(TypeError, match="rois.dtype.kind == 'f'"):
        F.roi_max_align_2d(x, rois.astype(np.int32), idx, 2, 1.0)
    # Single backprop only, as in Chainer.
    xv = rensa.Variable(x)
    y = F.roi_average_align_2d(xv, rois, idx, 2, 0.5)
    gy = rensa.Variable(np.ones(y.shape, np.float32))
    gx, = rensa.grad([y], [xv], [gy], enable_double_backprop=True)
    with pytest.raises(NotImplementedError, match='roi_average_align_2d: double backprop is not supported'):
        rensa.grad([F.sum(gx)], [gy])


CHAINER_SCRIPT = r'''
import sys
import numpy as np
import chainer
import chainer.functions as F
data = np.load(sys.argv[1], allow_pickle=True)
cases = data['cases']
out = {}
for k, (name, args) in enumerate(cases):
    x = chainer.Variable(data['x'])
    if name == 'roi_pooling_2d':
        y = F.roi_pooling_2d(x, data['legacy'], *args)
    else:
        y = getattr(F, name)(x, data['rois'], data['idx'], *args)
    y.grad = data['gy%d' % k]
    y.backward()
    out['y%d' % k] = y.array
    out['gx%d' % k] = x.grad
np.savez(sys.argv[2], **out)
'''


def test_matches_chainer(tmp_path):
    python = chainer_python()
    if python is None:
        pytest.skip('real Chainer 7.8.1 not installed')
    x, rois, idx, legacy = inputs()
    gys = {}
    for k, (name, args) in enumerate(CASES):
        y = call(F, name, x, rois, idx, legacy, args)
        gys['gy%d' % k] = np.random.RandomState(k).uniform(-1, 1, y.shape).astype(np.float32)
    cases = np.empty(len(CASES), dtype=object)
    cases[:] = CASES
    np.savez(tmp_path / 'in.npz', x=x, rois=rois, idx=idx, legacy=legacy, cases=cases, **gys)
    script = tmp_path / 'roi_chainer.py'
    script.write_text(CHAINER_SCRIPT)
    env = dict(os.environ, PYTHONWARNINGS='ignore', CHAINER_WARN_VERSION_MISMATCH='0', OMP_NUM_THREADS='1')
    subprocess.run([python, str(script), str(tmp_path / 'in.npz'), str(tmp_path / 'out.npz')], check=True,
                   env=env, timeout=120)
    expected = np.load(tmp_path / 'out.npz')
    for k, (name, args) in enumerate(CASES):
        xv = rensa.Variable(x)
        y = call(F, name, xv, rois, idx, legacy, args)
        y.grad = gys['gy%d' % k]
        y.backward()
        np.testing.assert_allclose(y.array, expected['y%d' % k], rtol=1e-5, atol=1e-5, err_msg=name + str(args))
        np.testing.assert_allclose(xv.grad, expected['gx%d' % k], rtol=1e-5, atol=1e-5, err_msg=name + str(args))


def test_roi_head_against_chainer(tmp_path):
    """chainer_style/roi_head.py: the five functions in a trained detection head."""
    ours = run_ported('roi_head.py', tmp_path, timeout=60)
    assert_same_first_losses(ours, run_on_chainer('roi_head.py', timeout=60))
