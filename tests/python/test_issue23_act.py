"""Issue 23's special functions, activations, noise, recurrent cells and their links from
Python: F.arctanh, F.erfcinv, F.zeta, F.rrelu, F.slstm, F.tree_lstm, F.simplified_dropconnect,
F.forget and L.Swish, L.SimplifiedDropconnect, L.StatelessMGU, L.StatefulMGU,
L.StatefulPeepholeLSTM, L.StatefulZoneoutLSTM, L.ChildSumTreeLSTM, L.NaryTreeLSTM.

Chainer's keyword names and defaults, gradients through rensa.gradient_check, and, where real
Chainer is installed (chainer_style_harness.chainer_python), the same calls on Chainer (its
CPU zeta and erfcinv need scipy, which that venv lacks: those two are checked against known
values instead), plus the end-to-end script chainer_style/rnn_cells_act.py: the same first
losses, Chainer's NPZ loaded into rensa's links and the same NPZ keys saved back.
"""
import math
import subprocess

import numpy as np
import pytest

import rensa
import rensa.functions as F
import rensa.links as L
from rensa import gradient_check

from chainer_style_harness import assert_same_first_losses, chainer_python, run_on_chainer, run_ported


def uniform(shape, low=-1.0, high=1.0, seed=0, dtype=np.float64):
    return np.random.RandomState(seed).uniform(low, high, shape).astype(dtype)


# --- Values the special functions must give (mpmath at 30 digits).

def test_special_values():
    x = np.array([0.5, -0.25, 0.9], np.float64)
    np.testing.assert_allclose(F.arctanh(x).array, np.arctanh(x), rtol=1e-15)
    q = np.array([1e-10, 0.3, 1.0, 1.7, 2.0], np.float64)
    expected = [4.572824967389485, 0.7328690779592169, 0.0, -0.7328690779592169, -np.inf]
    np.testing.assert_allclose(F.erfcinv(q).array, expected, rtol=1e-13)
    z = F.zeta(np.array([2.0, 3.0, 4.0]), np.array([1.0, 0.5, 10.0]))
    np.testing.assert_allclose(z.array, [math.pi ** 2 / 6, 7 * 1.2020569031595942, 3.8665021738164473e-4],
                               rtol=1e-13)
    assert F.zeta(2.0 * np.ones(2, np.float32), np.ones(2, np.float32)).dtype == np.float32
    assert np.isnan(F.zeta(np.array([0.5]), np.array([1.0])).array[0])


def test_special_gradients():
    gradient_check.check_backward(F.arctanh, uniform((3, 4), -0.8, 0.8), uniform((3, 4), seed=1))
    gradient_check.check_backward(F.erfcinv, uniform((3, 4), 0.2, 1.8), uniform((3, 4), seed=1))
    x = np.array([2.0, 3.5, 4.0])
    gradient_check.check_backward(lambda q: F.zeta(x, q), uniform((2, 3), 0.5, 2.0), uniform((2, 3), seed=1))
    q = rensa.Variable(np.array([1.5, 2.0]))
    y = F.zeta(np.array([3.0, 2.5]), q)
    y.grad = np.ones(2)
    y.backward()
    # d/dq zeta(x, q) = -x zeta(x + 1, q)
    np.testing.assert_allclose(q.grad, -np.array([3.0, 2.5]) * F.zeta(np.array([4.0, 3.5]), q.array).array,
                               rtol=1e-13)


def test_special_errors():
    with pytest.raises(TypeError, match="zeta: Expect: q.dtype.kind == 'f'"):
        F.zeta(np.ones(2), np.ones(2, np.int32))
    with pytest.raises(TypeError, match="erfcinv: Expect: x.dtype.kind == 'f'"):
        F.erfcinv(np.ones(2, np.int32))


# --- rrelu.

def test_rrelu_keywords_and_modes():
    x = np.array([[-1.0, 2.0], [-3.0, 0.5]], np.float32)
    y, r = F.rrelu(x, l=0.2, u=0.3, return_r=True)
    assert r.shape == x.shape and r.dtype == np.float32
    assert ((r >= 0.2) & (r < 0.3 + 1e-7)).all()
    np.testing.assert_allclose(y.array, np.where(x >= 0, x, x * r))
    given = np.full(x.shape, 0.5, np.float32)
    np.testing.assert_allclose(F.rrelu(x, r=given).array, np.where(x >= 0, x, 0.5 * x))
    with rensa.using_config('train', False):
        y, r = F.rrelu(x, 0.1, 0.3, r=given, return_r=True)  # Chainer ignores r in test mode
    np.testing.assert_allclose(r, np.full(x.shape, 0.2, np.float32))
    np.testing.assert_allclose(y.array, np.where(x >= 0, x, 0.2 * x), rtol=1e-6)
    r = uniform((3, 4), 0.1, 0.3, seed=2)
    gradient_check.check_backward(lambda v: F.rrelu(v, r=r), uniform((3, 4)), uniform((3, 4), seed=1))


# --- The cells.

def test_cells_gradients():
    c1, c2 = uniform((2, 3), seed=1), uniform((2, 3), seed=2)
    x1, x2 = uniform((2, 12), seed=3), uniform((2, 12), seed=4)
    gy = (uniform((2, 3), seed=5), uniform((2, 3), seed=6))
    gradient_check.check_backward(lambda *v: F.slstm(*v), (c1, c2, x1, x2), gy)
    x = uniform((2, 15), seed=7)
    gradient_check.check_backward(lambda *v: F.tree_lstm(*v), (c1, c2, x), gy)
    with pytest.raises(ValueError, match=r'tree_lstm: Expect: x.shape == \(c0.shape\[0\], 5 \* c0.shape\[1\]'):
        F.tree_lstm(c1, c2, x1)


def test_simplified_dropconnect():
    x, W, b = uniform((3, 2, 2)), uniform((5, 4), seed=1), uniform((5,), seed=2)
    mask = np.random.RandomState(3).rand(3, 5, 4) >= 0.5
    y = F.simplified_dropconnect(x, W, b, ratio=0.25, mask=mask)
    expected = np.einsum('sjk,sk->sj', W * mask / 0.75, x.reshape(3, 4)) + b
    np.testing.assert_allclose(y.array, expected, rtol=1e-12)
    shared = mask[0]
    y = F.simplified_dropconnect(x, W, None, 0.25, True, shared, False)
    np.testing.assert_allclose(y.array, x.reshape(3, 4) @ (W * shared / 0.75).T, rtol=1e-12)
    np.testing.assert_allclose(F.simplified_dropconnect(x, W, b, train=False).array, x.reshape(3, 4) @ W.T + b,
                               rtol=1e-12)
    gradient_check.check_backward(lambda *v: F.simplified_dropconnect(*v, ratio=0.25, mask=mask), (x, W, b),
                                  uniform((3, 5), seed=4))
    with pytest.raises(ValueError, match=r'simplified_dropconnect: Expect: mask.shape == \(3, 5, 4\)'):
        F.simplified_dropconnect(x, W, b, mask=shared)


# --- forget.

def test_forget():
    calls = []

    def func(a, b):
        calls.append(1)
        return F.tanh(a * b), F.exp(a) + b

    a, b = rensa.Variable(uniform((2, 3))), rensa.Variable(uniform((2, 3), seed=1))
    y0, y1 = F.forget(func, a, b)
    assert len(calls) == 1 and y0.creator is not None
    loss = F.sum(y0 * 2 + y1)
    loss.backward()
    assert len(calls) == 2
    ga, gb = a.grad.copy(), b.grad.copy()
    a.cleargrad()
    b.cleargrad()
    y0, y1 = func(a, b)
    F.sum(y0 * 2 + y1).backward()
    np.testing.assert_allclose(ga, a.grad, rtol=1e-14)
    np.testing.assert_allclose(gb, b.grad, rtol=1e-14)
    single = F.forget(lambda v: v * v, a)
    assert isinstance(single, rensa.Variable)
    gradient_check.check_backward(lambda v, w: F.forget(lambda p, q: F.sin(p) * q, v, w),
                                  (uniform((3,)), uniform((3,), seed=1)), uniform((3,), seed=2))
    with pytest.raises(RuntimeError, match='A tuple of Variables or a Variable are expected'):
        F.forget(lambda v: [v], a)
    with pytest.raises(TypeError, match='func must be callable'):
        F.forget(3, a)


# --- Links.

def test_link_constructors_and_names():
    assert [n for n, _ in sorted(L.StatefulPeepholeLSTM(3, 2).namedparams())] == [
        '/lateral/W', '/peep_f/W', '/peep_i/W', '/peep_o/W', '/upward/W', '/upward/b']
    assert [n for n, _ in sorted(L.StatefulZoneoutLSTM(3, 2, c_ratio=0.1, h_ratio=0.2).namedparams())] == [
        '/lateral/W', '/upward/W', '/upward/b']
    assert [n for n, _ in sorted(L.StatelessMGU(n_inputs=3, n_units=2).namedparams())] == [
        '/W_f/W', '/W_f/b', '/W_h/W', '/W_h/b']
    assert [n for n, _ in sorted(L.NaryTreeLSTM(3, 2, n_ary=3).namedparams())] == [
        '/W_h1/W', '/W_h2/W', '/W_h3/W', '/W_x/W', '/W_x/b']
    assert [n for n, _ in sorted(L.ChildSumTreeLSTM(in_size=3, out_size=2).namedparams())] == [
        '/W_h_aio/W', '/W_h_f/W', '/W_x/W', '/W_x/b']
    swish = L.Swish(None, beta_init=0.5)
    y = swish(np.ones((2, 3, 4), np.float32))
    assert swish.beta.shape == (3, 4) and y.shape == (2, 3, 4)
    drop = L.SimplifiedDropconnect(None, 5, ratio=0.2, nobias=True, initialW=None, initial_bias=None)
    assert drop(np.ones((2, 3), np.float32), train=False).shape == (2, 5)
    assert drop.W.shape == (5, 3) and [n for n, _ in drop.namedparams()] == ['/W']


def test_stateful_links_state():
    mgu = L.StatefulMGU(3, 2)
    assert mgu.h is None
    h = mgu(np.ones((4, 3), np.float32))
    assert mgu.h is not None and h.shape == (4, 2)
    mgu.reset_state()
    assert mgu.h is None
    zone = L.StatefulZoneoutLSTM(3, 2)
    zone.set_state(rensa.Variable(np.zeros((4, 2), np.float32)), rensa.Variable(np.zeros((4, 2), np.float32)))
    assert zone(np.ones((4, 3), np.float32)).shape == (4, 2)
    peep = L.StatefulPeepholeLSTM(None, 2)
    assert peep(np.ones((4, 3), np.float32)).shape == (4, 2) and peep.c.shape == (4, 2)
    child = L.ChildSumTreeLSTM(3, 2)
    c, h = child(None, np.ones((4, 2), np.float32), None)
    assert c.shape == h.shape == (4, 2)
    with pytest.raises(ValueError, match='All inputs'):
        child(None, None, None)


# --- Against real Chainer.

CHAINER_SCRIPT = r'''
import sys
import numpy as np
import chainer
import chainer.functions as F

def u(shape, low=-1.0, high=1.0, seed=0):
    return np.random.RandomState(seed).uniform(low, high, shape).astype(np.float64)

out = {}
c1, c2, x1, x2 = u((2, 3), seed=1), u((2, 3), seed=2), u((2, 12), seed=3), u((2, 12), seed=4)
vs = [chainer.Variable(v) for v in (c1, c2, x1, x2)]
c, h = F.slstm(*vs)
F.sum(c * 2 + h * 3).backward()
out['slstm'] = [c.array, h.array] + [v.grad for v in vs]
vs = [chainer.Variable(v) for v in (c1, c2, u((2, 15), seed=7))]
c, h = F.tree_lstm(*vs)
F.sum(c * 2 + h * 3).backward()
out['tree_lstm'] = [c.array, h.array] + [v.grad for v in vs]
x = chainer.Variable(u((3, 4), seed=8))
r = u((3, 4), 0.1, 0.3, seed=9)
y = F.rrelu(x, r=r)
F.sum(y * y).backward()
out['rrelu'] = [y.array, x.grad]
x = chainer.Variable(u((3, 4), -0.9, 0.9, seed=10))
y = F.arctanh(x)
F.sum(y * y).backward()
out['arctanh'] = [y.array, x.grad]
x, W, b = [chainer.Variable(v) for v in (u((3, 2, 2)), u((5, 4), seed=1), u((5,), seed=2))]
mask = np.random.RandomState(3).rand(3, 5, 4) >= 0.5
y = F.simplified_dropconnect(x, W, b, 0.25, True, mask)
F.sum(y * y).backward()
out['simplified_dropconnect'] = [y.array, x.grad, W.grad, b.grad]
a, b = chainer.Variable(u((2, 3))), chainer.Variable(u((2, 3), seed=1))
y0, y1 = F.forget(lambda p, q: (F.tanh(p * q), F.exp(p) + q), a, b)
F.sum(y0 * 2 + y1).backward()
out['forget'] = [y0.array, y1.array, a.grad, b.grad]
np.savez(sys.argv[1], **{'%s_%d' % (k, i): v for k, vs in out.items() for i, v in enumerate(vs)})
'''


@pytest.fixture(scope='module')
def chainer_values(tmp_path_factory):
    python = chainer_python()
    if python is None:
        pytest.skip('real Chainer not installed (RENSA_CHAINER_PYTHON or .venv-chainermn)')
    tmp = tmp_path_factory.mktemp('chainer_act')
    script, out = tmp / 'run.py', tmp / 'out.npz'
    script.write_text(CHAINER_SCRIPT)
    subprocess.run([python, '-W', 'ignore', str(script), str(out)], check=True, timeout=120,
                   env={'CHAINER_WARN_VERSION_MISMATCH': '0', 'OMP_NUM_THREADS': '1'})
    return dict(np.load(str(out)))


def ours():
    """The calls of CHAINER_SCRIPT on rensa."""
    u = uniform
    out = {}
    c1, c2, x1, x2 = u((2, 3), seed=1), u((2, 3), seed=2), u((2, 12), seed=3), u((2, 12), seed=4)
    vs = [rensa.Variable(v) for v in (c1, c2, x1, x2)]
    c, h = F.slstm(*vs)
    F.sum(c * 2 + h * 3).backward()
    out['slstm'] = [c.array, h.array] + [v.grad for v in vs]
    vs = [rensa.Variable(v) for v in (c1, c2, u((2, 15), seed=7))]
    c, h = F.tree_lstm(*vs)
    F.sum(c * 2 + h * 3).backward()
    out['tree_lstm'] = [c.array, h.array] + [v.grad for v in vs]
    x = rensa.Variable(u((3, 4), seed=8))
    y = F.rrelu(x, r=u((3, 4), 0.1, 0.3, seed=9))
    F.sum(y * y).backward()
    out['rrelu'] = [y.array, x.grad]
    x = rensa.Variable(u((3, 4), -0.9, 0.9, seed=10))
    y = F.arctanh(x)
    F.sum(y * y).backward()
    out['arctanh'] = [y.array, x.grad]
    x, W, b = [rensa.Variable(v) for v in (u((3, 2, 2)), u((5, 4), seed=1), u((5,), seed=2))]
    mask = np.random.RandomState(3).rand(3, 5, 4) >= 0.5
    y = F.simplified_dropconnect(x, W, b, 0.25, True, mask)
    F.sum(y * y).backward()
    out['simplified_dropconnect'] = [y.array, x.grad, W.grad, b.grad]
    a, b = rensa.Variable(u((2, 3))), rensa.Variable(u((2, 3), seed=1))
    y0, y1 = F.forget(lambda p, q: (F.tanh(p * q), F.exp(p) + q), a, b)
    F.sum(y0 * 2 + y1).backward()
    out['forget'] = [y0.array, y1.array, a.grad, b.grad]
    return out


def test_functions_against_chainer(chainer_values):
    for name, values in ours().items():
        for i, v in enumerate(values):
            np.testing.assert_allclose(v, chainer_values['%s_%d' % (name, i)], rtol=1e-12, atol=1e-14,
                                       err_msg='%s output %d' % (name, i))


def test_links_script_against_chainer(tmp_path):
    theirs_dir = tmp_path / 'chainer'
    theirs_dir.mkdir()
    ours_out = run_ported('rnn_cells_act.py', tmp_path, tmp_path, timeout=120)
    theirs_out = run_on_chainer('rnn_cells_act.py', theirs_dir, timeout=120)
    assert_same_first_losses(ours_out, theirs_out)
    # The same keys saved (the dropconnect link's mask persistent included), and Chainer's
    # file loaded into rensa's model gives Chainer's output.
    assert sorted(np.load(str(tmp_path / 'model.npz')).keys()) == sorted(np.load(str(theirs_dir / 'model.npz')).keys())
    chainer_file = theirs_dir / 'model.npz'
    loaded_ours = run_ported('rnn_cells_act.py', tmp_path, tmp_path, 'load', chainer_file, timeout=120)
    loaded_theirs = run_on_chainer('rnn_cells_act.py', theirs_dir, 'load', chainer_file, timeout=120)
    line = [ln for ln in loaded_ours.splitlines() if ln.startswith('loaded output:')]
    line_theirs = [ln for ln in loaded_theirs.splitlines() if ln.startswith('loaded output:')]
    assert line and line_theirs
    a = [float(v) for v in line[0].split(':')[1].split()]
    b = [float(v) for v in line_theirs[0].split(':')[1].split()]
    np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_zoneout_is_identity_on_x_outside_training():
    h, x = np.ones((4, 5), np.float32), np.zeros((4, 5), np.float32)
    with rensa.using_config('train', False):
        assert (F.zoneout(h, x, ratio=0.9).array == 0).all()  # Chainer returns x
    y = F.zoneout(h, x, 0.5).array
    assert set(np.unique(y)) <= {0.0, 1.0}
    gradient_check.check_backward(lambda a, b: F.zoneout(a, b, 1.0), (uniform((3,)), uniform((3,), seed=1)),
                                  uniform((3,), seed=2))
