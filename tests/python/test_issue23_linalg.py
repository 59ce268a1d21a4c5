"""Issue 23, linear algebra and array functions: det, batch_det, inv, batch_inv, cholesky,
cumprod, fft, ifft, sparse_matmul (CooMatrix, to_coo, get_order), diagonal, as_strided,
im2col and scatter_add from Python: Chainer's keyword names and defaults, gradient checks
(rensa.gradient_check.check_backward), errors, and values and gradients against real
Chainer 7.8.1 when its interpreter is present (skipped otherwise)."""
import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import rensa
import rensa.functions as F
import rensa.utils
from rensa import _core
from rensa import gradient_check

sys.path.insert(0, os.path.dirname(__file__))
from chainer_style_harness import chainer_python  # noqa: E402

# The cases, run as they are by rensa here and by Chainer in a subprocess: each maps a name to
# (function, inputs); the runner backpropagates sum(y * w) with fixed weights w.
CASES_SOURCE = '''
import numpy as np


def _mat(rng, *shape, boost=3.0):
    a = rng.uniform(-1, 1, shape)
    return a + boost * np.eye(shape[-1])


def cases(F):
    rng = np.random.RandomState(0)
    sym = _mat(rng, 3, 3)
    with_zeros = rng.uniform(-1.5, 1.5, (2, 5))
    with_zeros[:, 1::3] = 0.0
    return {
        'det': (lambda a: F.det(a), [_mat(rng, 3, 3)]),
        'batch_det': (lambda a: F.batch_det(a), [_mat(rng, 2, 3, 3)]),
        'inv': (lambda a: F.inv(a), [_mat(rng, 3, 3)]),
        'batch_inv': (lambda a: F.batch_inv(a), [_mat(rng, 2, 2, 2)]),
        'cholesky': (lambda a: F.cholesky(a), [sym @ sym.T]),
        'cumprod': (lambda x: F.cumprod(x, axis=1), [with_zeros]),
        'cumprod_flat': (lambda x: F.cumprod(x), [rng.uniform(-1, 1, (2, 3))]),
        'fft': (lambda r, i: F.fft((r, i)), [rng.uniform(-1, 1, (2, 5)), rng.uniform(-1, 1, (2, 5))]),
        'ifft': (lambda r, i: F.ifft((r, i)), [rng.uniform(-1, 1, (4,)), rng.uniform(-1, 1, (4,))]),
        'diagonal': (lambda x: F.diagonal(x, offset=-1, axis1=2, axis2=1), [rng.uniform(-1, 1, (2, 3, 4))]),
        'as_strided': (lambda x: F.as_strided(x, (4, 3), (1, 1), storage_offset=None), [rng.uniform(-1, 1, (6,))]),
        'im2col': (lambda x: F.im2col(x, 3, stride=2, pad=1, cover_all=True, dilate=1),
                   [rng.uniform(-1, 1, (2, 2, 5, 4))]),
        'im2col_pairs': (lambda x: F.im2col(x, (2, 3), stride=(1, 2), pad=(0, 1), dilate=(2, 1)),
                         [rng.uniform(-1, 1, (1, 2, 5, 6))]),
        'scatter_add': (lambda a, b: F.scatter_add(a, (slice(None), [0, 2, 0]), b),
                        [rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, (2, 3))]),
        'scatter_add_list': (lambda a, b: F.scatter_add(a, [1, 1, 0], b),
                             [rng.uniform(-1, 1, (3, 2)), rng.uniform(-1, 1, (3, 2))]),
    }


def run(F, Variable, name, fn, inputs):
    xs = [Variable(np.array(x, np.float64)) for x in inputs]
    ys = fn(*xs)
    ys = ys if isinstance(ys, tuple) else (ys,)
    loss = 0
    for k, y in enumerate(ys):
        w = np.cos(np.arange(y.size) + k).reshape(y.shape)
        loss = loss + F.sum(y * w)
    loss.backward()
    out = {}
    for k, y in enumerate(ys):
        out['%s/y%d' % (name, k)] = np.asarray(y.array)
    for k, x in enumerate(xs):
        out['%s/g%d' % (name, k)] = np.asarray(x.grad)
    return out
'''

namespace = {}
exec(CASES_SOURCE, namespace)
CASES = namespace['cases'](F)


@pytest.mark.parametrize('name', sorted(CASES))
def test_gradient(name):
    fn, inputs = CASES[name]
    if name == 'cholesky':
        # Symmetrised so that the numerical gradient sees symmetric perturbations only.
        fn = (lambda a: F.cholesky((a + F.transpose(a)) * 0.5))
    inputs = [np.array(x, np.float64) for x in inputs]
    ys = fn(*inputs)
    ys = ys if isinstance(ys, tuple) else (ys,)
    rng = np.random.RandomState(1)
    y_grad = tuple(rng.uniform(-1, 1, y.shape) for y in ys)
    gradient_check.check_backward(fn, tuple(inputs), y_grad if len(ys) > 1 else y_grad[0], eps=1e-4, atol=1e-5,
                                  rtol=1e-4)


def test_values():
    # Independent numpy references for the forward values.
    det_case = CASES['batch_det'][1][0]
    np.testing.assert_allclose(F.batch_det(det_case).array, np.linalg.det(det_case), rtol=1e-12)
    inv_case = CASES['inv'][1][0]
    np.testing.assert_allclose(F.inv(inv_case).array, np.linalg.inv(inv_case), rtol=1e-12)
    spd = CASES['cholesky'][1][0]
    np.testing.assert_allclose(F.cholesky(spd).array, np.linalg.cholesky(spd), rtol=1e-12)
    r, i = CASES['fft'][1]
    yr, yi = F.fft((r, i))
    np.testing.assert_allclose(yr.array + 1j * yi.array, np.fft.fft(r + 1j * i), atol=1e-12)
    yr, yi = F.ifft((r, i))
    np.testing.assert_allclose(yr.array + 1j * yi.array, np.fft.ifft(r + 1j * i), atol=1e-12)
    x = CASES['cumprod'][1][0]
    np.testing.assert_allclose(F.cumprod(x, 1).array, np.cumprod(x, 1))
    x = CASES['diagonal'][1][0]
    np.testing.assert_array_equal(F.diagonal(x, -1, 2, 1).array, x.diagonal(-1, 2, 1))
    y = np.zeros((2, 3))
    np.add.at(y, (slice(None), [0, 2, 0]), np.ones((2, 3)))
    np.testing.assert_array_equal(F.scatter_add(np.zeros((2, 3)), (slice(None), [0, 2, 0]), np.ones((2, 3))).array, y)
    x = np.arange(6.0)
    np.testing.assert_array_equal(F.as_strided(x, (4, 3), (1, 1)).array,
                                  np.lib.stride_tricks.as_strided(x, (4, 3), (8, 8)))


def test_float32_and_dtypes():
    a = (np.eye(3) * 2 + 0.1).astype(np.float32)
    assert F.inv(a).dtype == np.float32
    assert F.det(a).shape == ()
    assert F.det(a.astype(np.float16)).dtype == np.float16
    np.testing.assert_allclose(F.det(a).array, np.linalg.det(a), rtol=1e-5)


def test_sparse_matmul_and_coo():
    rng = np.random.RandomState(3)
    dense = rng.uniform(-1, 1, (3, 4)) * (rng.uniform(0, 1, (3, 4)) > 0.5)
    coo = rensa.utils.to_coo(dense, requires_grad=True)
    np.testing.assert_array_equal(coo.to_dense(), dense)
    assert coo.order == 'C' and coo.shape == (3, 4)
    assert coo.row.dtype == np.int32
    b = rng.uniform(-1, 1, (4, 2))
    np.testing.assert_allclose(F.sparse_matmul(coo, b).array, dense @ b)
    np.testing.assert_allclose(F.sparse_matmul(coo, b.T, transb=True).array, dense @ b)
    np.testing.assert_allclose(F.sparse_matmul(b.T, coo, transa=False, transb=True).array, b.T @ dense.T)
    np.testing.assert_allclose(F.sparse_matmul(a=coo, b=b, transa=False, transb=False).array, dense @ b)
    # Gradients in the dense operand and the nonzeros.
    b_var = rensa.Variable(b)
    F.sum(F.sparse_matmul(coo, b_var)).backward()
    np.testing.assert_allclose(b_var.grad, dense.T @ np.ones((3, 2)))
    expected = (np.ones((3, 2)) @ b.T)[coo.row, coo.col]
    np.testing.assert_allclose(coo.data.grad, expected)
    # Batched with padding (to_coo of a 3-D array) and gradient checks.
    batch = rng.uniform(-1, 1, (2, 3, 3)) * (rng.uniform(0, 1, (2, 3, 3)) > 0.4)
    coo3 = rensa.utils.to_coo(batch, ldnz=9)
    assert coo3.data.shape == (2, 9)
    b3 = rng.uniform(-1, 1, (2, 3, 2))
    np.testing.assert_allclose(F.sparse_matmul(coo3, b3).array, batch @ b3)
    row, col = coo3.row, coo3.col

    def product(data, b):
        return F.sparse_matmul(rensa.utils.CooMatrix(data, row, col, (3, 3)), b)

    gradient_check.check_backward(product, (np.array(coo3.data.array), b3), rng.uniform(-1, 1, (2, 3, 2)), eps=1e-4,
                                  atol=1e-5, rtol=1e-4)
    assert rensa.utils.get_order(np.array([0, 1, 0]), np.array([0, 0, 1])) == 'F'
    from rensa.utils import sparse
    assert sparse.CooMatrix is rensa.utils.CooMatrix


def test_errors():
    with pytest.raises(ValueError, match='inv: Input has singular matrices.'):
        F.inv(np.array([[1.0, 2.0], [2.0, 4.0]]))
    with pytest.raises(ValueError, match='batch_inv: Input has singular matrices.'):
        F.batch_inv(np.zeros((1, 2, 2)))
    assert float(F.det(np.array([[1.0, 2.0], [2.0, 4.0]])).array) == 0.0
    with pytest.raises(ValueError, match='cholesky: Matrix is not positive definite'):
        F.cholesky(np.array([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(_core.DimensionError, match=r'inv: Expect: a.shape\[-1\] == a.shape\[-2\]'):
        F.inv(np.zeros((2, 3)))
    with pytest.raises(TypeError, match='det: Expect'):
        F.det(np.zeros((2, 2), np.int32))
    with pytest.raises(ValueError, match='scatter_add: Expect: b.shape == a'):
        F.scatter_add(np.zeros((3, 2)), slice(0, 2), np.zeros(2))
    with pytest.raises(ValueError, match='as_strided: Out of buffer'):
        F.as_strided(np.zeros(4), (3,), (2,))
    with pytest.raises(ValueError, match='This combination of type of inputs is not supported'):
        F.sparse_matmul(np.zeros((2, 2)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match='CooMatrix: invalid index combination'):
        rensa.utils.CooMatrix(np.ones(2), np.array([0, -1]), np.array([0, 1]), (2, 2))
    with pytest.raises(ValueError, match='fft: Expect: x to be a tuple'):
        F.fft(np.zeros(3))
    with pytest.raises(ValueError, match='im2col'):
        F.im2col(np.zeros((1, 1, 3, 3)), (1, 2, 3))


CHAINER_SCRIPT = CASES_SOURCE + '''
import sys
import chainer
import chainer.functions as F
result = {}
for name, (fn, inputs) in sorted(cases(F).items()):
    result.update(run(F, chainer.Variable, name, fn, inputs))
np.savez(sys.argv[1], **result)
'''


@pytest.mark.skipif(chainer_python() is None, reason='real Chainer 7.8.1 is not installed')
def test_against_chainer():
    with tempfile.TemporaryDirectory() as tmp:
        script, out = os.path.join(tmp, 'ref.py'), os.path.join(tmp, 'ref.npz')
        with open(script, 'w') as f:
            f.write(CHAINER_SCRIPT)
        proc = subprocess.run([chainer_python(), script, out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=120)
        assert proc.returncode == 0, proc.stdout
        expected = dict(np.load(out))
    actual = {}
    for name, (fn, inputs) in sorted(CASES.items()):
        actual.update(namespace['run'](F, rensa.Variable, name, fn, inputs))
    assert sorted(actual) == sorted(expected)
    for key in sorted(expected):
        np.testing.assert_allclose(actual[key], expected[key], rtol=1e-9, atol=1e-12, err_msg=key)
