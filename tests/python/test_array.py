"""numpy <-> rensa arrays: zero-copy sharing both ways, dtypes, ndarray."""
import gc

import numpy
import pytest

import rensa
from rensa import _core

DTYPES = [numpy.bool_, numpy.int8, numpy.uint8, numpy.int32, numpy.int64,
          numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize('dtype', DTYPES)
def test_variable_array_shares_numpy_memory(dtype):
    a = numpy.zeros((2, 3), dtype=dtype)
    v = rensa.Variable(a)
    assert v.dtype == numpy.dtype(dtype)
    assert numpy.shares_memory(v.array, a)
    v.array[1, 2] = 1  # through the Variable's view into numpy's array
    assert a[1, 2] == 1
    a[0, 0] = 1  # through numpy into the Variable
    assert v.array[0, 0] == 1


def test_non_contiguous_and_negative_strides(rng):
    a = rng.standard_normal((4, 6)).astype(numpy.float32)
    view = a[::-1, ::2]
    v = rensa.Variable(view)
    numpy.testing.assert_array_equal(v.array, view)
    assert v.array.strides == view.strides
    y = v * 2
    numpy.testing.assert_allclose(y.array, view * 2)


def test_broadcast_zero_strides():
    a = numpy.broadcast_to(numpy.arange(3, dtype=numpy.float64), (4, 3))
    y = rensa.Variable(a) + 1
    numpy.testing.assert_array_equal(y.array, a + 1)


def test_storage_keeps_numpy_alive():
    a = numpy.arange(5.0)
    v = rensa.Variable(a)
    del a
    gc.collect()
    numpy.testing.assert_array_equal(v.array, numpy.arange(5.0))
    view = v.array
    del v
    gc.collect()
    numpy.testing.assert_array_equal(view, numpy.arange(5.0))


@pytest.mark.parametrize('src,expected', [
    (numpy.arange(3, dtype=numpy.int16), numpy.int32),
    (numpy.arange(3, dtype=numpy.uint32), numpy.int64),
    (numpy.arange(3, dtype='>f4'), numpy.float32),
    ([1.0, 2.0], numpy.float64),
    ([[1, 2]], numpy.int64),
])
def test_converted_dtypes(src, expected):
    v = rensa.Variable(src)
    assert v.dtype == numpy.dtype(expected)
    numpy.testing.assert_array_equal(v.array, numpy.asarray(src))


def test_unconvertible_raises_type_error():
    with pytest.raises(TypeError, match='object'):
        rensa.Variable(numpy.array([object()]))
    with pytest.raises(TypeError, match='complex'):
        rensa.Variable(numpy.ones(2, dtype=numpy.complex64))


def test_ndarray_buffer_and_array_protocol(rng):
    a = rng.standard_normal((3, 2)).astype(numpy.float32)
    x = _core.ndarray(a)
    assert x.shape == (3, 2) and x.ndim == 2 and x.size == 6
    assert x.dtype == numpy.float32 and len(x) == 3
    assert str(x.device) == 'native:0'
    m = memoryview(x)
    assert m.shape == (3, 2) and m.format == 'f'
    b = numpy.asarray(x)
    numpy.testing.assert_array_equal(b, a)
    b[0, 0] = 42  # the numpy view writes into the ndarray
    assert numpy.asarray(x)[0, 0] == 42
    assert 'array(' in repr(x)
    c = x.copy()
    numpy.asarray(c)[0, 0] = -1
    assert numpy.asarray(x)[0, 0] == 42
    numpy.testing.assert_array_equal(numpy.asarray(x.astype('float64')), numpy.asarray(x).astype(numpy.float64))


def test_ndarray_to_device_native():
    x = _core.ndarray(numpy.ones(2))
    assert numpy.asarray(x.to_device('@numpy')).sum() == 2
    assert numpy.asarray(x.to_device(-1)).sum() == 2


def test_variable_over_ndarray_aliases():
    x = _core.ndarray(numpy.zeros(3, dtype=numpy.float32))
    v = rensa.Variable(x)
    v.array[1] = 5
    assert numpy.asarray(x)[1] == 5
