"""rensa.Variable: properties, operators against numpy, views, repr."""
import numpy
import pytest

import rensa


@pytest.fixture
def x_data(rng):
    return rng.uniform(0.5, 2.0, (2, 3)).astype(numpy.float32)


def test_properties(x_data):
    v = rensa.Variable(x_data, name='x')
    assert v.shape == (2, 3) and v.ndim == 2 and v.size == 6 and len(v) == 2
    assert v.dtype == numpy.float32 and v.name == 'x' and v.requires_grad
    assert v.creator is None and v.rank == 0 and v.grad is None and v.grad_var is None
    numpy.testing.assert_array_equal(v.data, x_data)
    v.name = None
    assert v.name is None
    assert not rensa.Variable(x_data, requires_grad=False).requires_grad


def test_grad_keyword(x_data):
    v = rensa.Variable(x_data, grad=numpy.full_like(x_data, 2))
    numpy.testing.assert_array_equal(v.grad, numpy.full_like(x_data, 2))


def test_empty_variable_and_array_setter(x_data):
    v = rensa.Variable()
    assert v.array is None
    v.array = x_data
    assert v.shape == (2, 3)
    v.data = numpy.zeros(4, numpy.float64)
    assert v.shape == (4,) and v.dtype == numpy.float64


def test_grad_setter_and_clear(x_data):
    v = rensa.Variable(x_data)
    v.grad = numpy.ones_like(x_data)
    numpy.testing.assert_array_equal(v.grad, numpy.ones_like(x_data))
    assert isinstance(v.grad_var, rensa.Variable)
    v.cleargrad()
    assert v.grad is None
    v.zerograd()
    numpy.testing.assert_array_equal(v.grad, numpy.zeros_like(x_data))
    v.grad = None
    assert v.grad is None
    with pytest.raises(ValueError, match='shape'):
        v.grad = numpy.ones(3, numpy.float32)


def test_item_float_int():
    v = rensa.Variable(numpy.array(2.5, numpy.float32))
    assert v.item() == 2.5 and float(v) == 2.5 and int(v) == 2
    assert isinstance(v.item(), float)
    with pytest.raises(ValueError):
        rensa.Variable(numpy.ones(2)).item()
    with pytest.raises(TypeError):
        len(v)


def _operands(x_data, kind):
    if kind == 'variable':
        return rensa.Variable(x_data[::-1].copy()), x_data[::-1]
    if kind == 'numpy':
        return x_data[::-1].copy(), x_data[::-1]
    if kind == 'int':
        return 3, 3
    return 1.5, 1.5


OPS = [('add', lambda a, b: a + b), ('sub', lambda a, b: a - b), ('mul', lambda a, b: a * b),
       ('div', lambda a, b: a / b), ('pow', lambda a, b: a ** b)]


@pytest.mark.parametrize('name,op', OPS)
@pytest.mark.parametrize('kind', ['variable', 'numpy', 'int', 'float'])
def test_binary_operators_both_sides(x_data, name, op, kind):
    other, other_np = _operands(x_data, kind)
    v = rensa.Variable(x_data)
    y = op(v, other)
    assert isinstance(y, rensa.Variable) and y.dtype == numpy.float32
    numpy.testing.assert_allclose(y.array, op(x_data, numpy.float32(other_np) if kind != 'variable' and kind != 'numpy' else other_np), rtol=1e-5)
    r = op(other, v)
    assert isinstance(r, rensa.Variable)
    numpy.testing.assert_allclose(r.array, op(numpy.float32(other_np) if kind in ('int', 'float') else other_np, x_data), rtol=1e-5)


def test_unary_and_matmul(x_data, rng):
    v = rensa.Variable(x_data - 1)
    numpy.testing.assert_allclose((-v).array, -(x_data - 1))
    numpy.testing.assert_allclose(abs(v).array, numpy.abs(x_data - 1))
    assert (+v) is not None
    w = rng.standard_normal((3, 4)).astype(numpy.float32)
    numpy.testing.assert_allclose((v @ w).array, (x_data - 1) @ w, rtol=1e-5)
    numpy.testing.assert_allclose((w.T @ rensa.Variable(x_data.T)).array, w.T @ x_data.T, rtol=1e-5)


def test_comparisons_raise(x_data):
    v = rensa.Variable(x_data)
    for op in (lambda: v < 1, lambda: v <= 1, lambda: v > 1, lambda: v >= 1, lambda: v == v, lambda: v != 1):
        with pytest.raises(NotImplementedError):
            op()
    with pytest.raises(NotImplementedError):
        bool(v)
    assert {v: 1}[v] == 1  # hashable by identity


def test_unsupported_operand_type_error(x_data):
    with pytest.raises(TypeError):
        rensa.Variable(x_data) + 'a'


def test_views(x_data):
    v = rensa.Variable(x_data)
    numpy.testing.assert_array_equal(v.T.array, x_data.T)
    numpy.testing.assert_array_equal(v.reshape(3, 2).array, x_data.reshape(3, 2))
    numpy.testing.assert_array_equal(v.reshape((6,)).array, x_data.reshape(6))
    numpy.testing.assert_array_equal(v.transpose(1, 0).array, x_data.transpose(1, 0))
    numpy.testing.assert_array_equal(v.transpose().array, x_data.T)
    numpy.testing.assert_array_equal(v[1].array, x_data[1])
    numpy.testing.assert_array_equal(v[:, ::2].array, x_data[:, ::2])
    numpy.testing.assert_array_equal(v[None, ..., 1].array, x_data[None, ..., 1])
    numpy.testing.assert_array_equal(v[[1, 0]].array, x_data[[1, 0]])


def test_getitem_backward(x_data):
    v = rensa.Variable(x_data)
    y = v[:, 1:]
    y.grad = numpy.ones(y.shape, numpy.float32)
    y.backward()
    expected = numpy.zeros_like(x_data)
    expected[:, 1:] = 1
    numpy.testing.assert_array_equal(v.grad, expected)


def test_repr_and_str():
    v = rensa.Variable(numpy.array([[1.0, 2.0], [3.0, 4.0]], numpy.float32))
    assert repr(v) == 'variable([[1., 2.],\n          [3., 4.]])'
    assert str(v) == 'variable([[1. 2.]\n          [3. 4.]])'
    v.name = 'x'
    assert repr(v).startswith('variable x([[1., 2.],')
    assert repr(rensa.Variable()) == 'variable(None)'


def test_unchain_and_to_device(x_data):
    v = rensa.Variable(x_data)
    y = v * 2
    z = y + 1
    assert z.creator is not None
    z.unchain()
    assert z.creator is None
    y2 = (v * 2) + 1
    y2.unchain_backward()
    assert y2.creator is None  # Chainer: the variable becomes a root too
    v.to_device('@numpy')
    v.to_cpu()
    assert str(v.device) == '@numpy' and v.device == rensa.get_device('native:0')  # Chainer's device object


def test_as_variable_as_array(x_data):
    v = rensa.as_variable(x_data)
    assert isinstance(v, rensa.Variable) and not v.requires_grad
    assert rensa.as_variable(v) is v
    assert rensa.as_array(v) is not None and rensa.as_array(x_data) is x_data
    numpy.testing.assert_array_equal(rensa.as_array(v), x_data)


def test_copydata_addgrad(x_data):
    a = rensa.Variable(numpy.zeros_like(x_data))
    b = rensa.Variable(x_data)
    a.copydata(b)
    numpy.testing.assert_array_equal(a.array, x_data)
    b.grad = numpy.ones_like(x_data)
    a.addgrad(b)
    a.addgrad(b)
    numpy.testing.assert_array_equal(a.grad, 2 * numpy.ones_like(x_data))
