"""C++ errors become Python exceptions of the matching kind, with the C++ message."""
import numpy
import pytest

import rensa
from rensa import _core

KINDS = [
    ('DimensionError', ValueError, _core.DimensionError),
    ('DtypeError', TypeError, _core.DtypeError),
    ('DeviceError', RuntimeError, _core.DeviceError),
    ('OutOfMemoryError', MemoryError, _core.OutOfMemoryError),
    ('IndexError', IndexError, IndexError),
    ('KeyError', KeyError, KeyError),
    ('NotImplementedError', NotImplementedError, NotImplementedError),
    ('ValueError', ValueError, ValueError),
    ('IOError', OSError, OSError),
    ('Error', RuntimeError, RuntimeError),
]


@pytest.mark.parametrize('kind,builtin,exact', KINDS)
def test_each_kind_maps_and_keeps_message(kind, builtin, exact):
    with pytest.raises(builtin, match='what went wrong') as info:
        _core._throw(kind, 'op: what went wrong')
    assert type(info.value) is exact


def test_dimension_error_from_operator():
    a = rensa.Variable(numpy.ones((2, 3), numpy.float32))
    b = rensa.Variable(numpy.ones((4,), numpy.float32))
    with pytest.raises(_core.DimensionError, match=r'\(2, 3\).*\(4,\)'):
        a + b


def test_dtype_error_from_operator():
    a = rensa.Variable(numpy.ones(2, numpy.float32))
    b = rensa.Variable(numpy.ones(2, numpy.float64))
    with pytest.raises(TypeError, match='float'):
        a * b


def test_index_error_from_getitem():
    with pytest.raises(IndexError):
        rensa.Variable(numpy.ones(3))[5]


def test_device_error_names_the_specifier():
    with pytest.raises(RuntimeError, match='nowhere'):
        _core.Device('nowhere')


def test_value_error_for_non_scalar_backward():
    with pytest.raises(ValueError):
        (rensa.Variable(numpy.ones(3)) * 2).backward()
