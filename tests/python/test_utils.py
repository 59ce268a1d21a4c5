"""rensa.utils.type_check and rensa.utils.argument (chainer.utils), with Chainer 7.8.1's
messages; chainer.get_dtype and chainer.mixed16."""
import pickle

import numpy
import pytest

import rensa
from rensa.utils import argument
from rensa.utils import type_check as T


def types(*arrays):
    return T.get_types(tuple(arrays), 'in_types', False)


def failure(*conditions):
    with pytest.raises(T.InvalidType) as info:
        T.expect(*conditions)
    return info.value.expect, info.value.actual


def test_expressions_show_as_written_and_evaluate():
    x, y = types(numpy.zeros((2, 3), numpy.float32), numpy.zeros(3, numpy.float64))
    assert str(x.shape[0]) == 'in_types[0].shape[0]'
    assert T.eval(x.shape[1] == y.shape[0]) is True
    assert str(x.shape[1:]) == 'in_types[0].shape[1:]'
    assert str((x.ndim + 1) * 2) == '(in_types[0].ndim + 1) * 2'
    assert str(x.ndim - (y.ndim - 1)) == 'in_types[0].ndim - (in_types[1].ndim - 1)'
    assert str(-x.ndim) == '-in_types[0].ndim'
    assert str(2 ** x.ndim) == '2 ** in_types[0].ndim'
    assert T.eval(T.prod(x.shape)) == 6 and T.eval(x.size) == 6
    assert str(T.prod(x.shape) == 6) == 'prod(in_types[0].shape) == 6'
    assert T.prod([2, 3]) == 6
    with pytest.raises(TypeError, match='not iterable'):
        list(x.shape)
    assert T.eval(x.shape[0] * 3 // 2 % 5) == 3
    assert str(x.dtype.kind) == 'in_types[0].dtype.kind'
    assert T.eval(x.dtype.kind) == 'f'
    assert T.eval(x.shape.count(3)) == 1 and str(x.shape.count(3)) == 'in_types[0].shape.count(3)'


def test_expect_passes_and_fails_with_chainer_messages():
    x, y = types(numpy.zeros((2, 3), numpy.float32), numpy.zeros(3, numpy.float64))
    T.expect(x.dtype == numpy.float32, x.ndim == 2, x.shape[1] == y.shape[0], x.dtype.kind == 'f')
    assert failure(x.shape[0] == y.shape[0]) == ('in_types[0].shape[0] == in_types[1].shape[0]', '2 != 3')
    assert failure(y.dtype == numpy.float32) == (
        "in_types[1].dtype == <class 'numpy.float32'>", "float64 != <class 'numpy.float32'>")
    assert failure(types(numpy.zeros(1)).size() == 2) == ('in_types.size == 2', '1 != 2')
    assert failure(x.ndim < 2) == ('in_types[0].ndim < 2', '2 >= 2')
    assert failure(x.ndim >= 3) == ('in_types[0].ndim >= 3', '2 < 3')
    assert failure(x.ndim != 2)[1] == '2 == 2'
    with pytest.raises(T.InvalidType) as info:
        T.expect(x.ndim == 2, y.ndim == 2)  # stops at the first failure
    assert str(info.value) == 'Expect: in_types[1].ndim == 2\nActual: 1 != 2'


def test_expressions_are_not_booleans():
    x, = types(numpy.zeros(2))
    with pytest.raises(RuntimeError, match='cannot be evaluated as bool'):
        if x.ndim == 1:
            pass
    with pytest.raises(TypeError, match='expected comparisons'):
        T.expect(x.ndim)
    T.expect(True)
    with pytest.raises(T.InvalidType):
        T.expect(False)


def test_argname_and_invalid_type_pickles():
    in_types = types(numpy.zeros((2, 3)), numpy.zeros((4, 3)))
    T.argname(in_types, ('x', 'W'))
    x, w = in_types
    assert failure(x.shape[0] == w.shape[0])[0] == 'x.shape[0] == W.shape[0]'
    with pytest.raises(T.InvalidType, match='Invalid number of arguments'):
        T.argname(in_types, ('x',))
    error = pickle.loads(pickle.dumps(T.InvalidType('a == b', '1 != 2')))
    assert (error.expect, error.actual, str(error)) == ('a == b', '1 != 2', 'Expect: a == b\nActual: 1 != 2')
    assert T.same_types(numpy.zeros(1), numpy.zeros(2))
    assert not T.same_types(numpy.zeros(1), rensa.ndarray(numpy.zeros(2)))


def test_parse_kwargs():
    def f(**kwargs):
        return argument.parse_kwargs(kwargs, ('train', True), ('axis', 1), volatile='volatile was removed')

    assert f() == (True, 1)
    assert f(axis=2) == (True, 2)
    with pytest.raises(ValueError, match='volatile was removed'):
        f(volatile=True)
    with pytest.raises(TypeError, match=r"f\(\) got unexpected keyword argument\(s\) 'bogus', 'other'"):
        f(other=1, bogus=2)


def test_check_unexpected_and_assert_empty():
    argument.check_unexpected_kwargs({'a': 1}, b='no b')
    with pytest.raises(ValueError, match='no a'):
        argument.check_unexpected_kwargs({'a': 1}, a='no a')

    def g(**kwargs):
        argument.assert_kwargs_empty(kwargs)

    g()
    with pytest.raises(TypeError, match=r"g\(\) got unexpected keyword argument\(s\) 'x'"):
        g(x=1)


def test_get_dtype_and_mixed16():
    assert rensa.get_dtype() == numpy.float32 and isinstance(rensa.get_dtype(), numpy.dtype)
    assert rensa.get_dtype(numpy.float16) == numpy.float16
    assert rensa.get_dtype('float64') == numpy.float64
    with rensa.using_config('dtype', numpy.float64):
        assert rensa.get_dtype() == numpy.float64
    with rensa.using_config('dtype', rensa.mixed16):
        assert rensa.config.dtype is rensa.mixed16
        assert rensa.get_dtype() == numpy.float16
        assert rensa.get_dtype(map_mixed16=numpy.float32) == numpy.float32
    assert rensa.get_dtype(map_mixed16=numpy.float32) == numpy.float32  # only mixed16 is mapped
    assert repr(rensa.mixed16) == "dtype('mixed16')"
    assert numpy.dtype(rensa.mixed16) == numpy.float16


def test_array_helpers():
    from rensa import utils
    a = utils.force_array(numpy.float32(2.0) * numpy.float32(3.0))
    assert isinstance(a, numpy.ndarray) and a.shape == () and a.dtype == numpy.float32
    assert utils.force_array(2.0, numpy.float16).dtype == numpy.float16
    x = numpy.ones(2, numpy.float32)
    assert utils.force_array(x) is x and utils.force_array(x, numpy.float32) is x
    assert utils.force_type(numpy.dtype(numpy.float16), 1.5).dtype == numpy.float16
    assert utils.force_type(numpy.dtype(numpy.float32), x) is x
    assert utils.force_type(numpy.dtype(numpy.float64), x).dtype == numpy.float64
    assert utils.size_of_shape((2, 3, 4)) == 24 and utils.size_of_shape(()) == 1
