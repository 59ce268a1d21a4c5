"""Arrays as Variable arguments of the bound functions (Note [Arrays as Variable arguments] in
python/src/convert/variable_caster.h): numpy arrays and ndarrays are wrapped without a copy
and without pybind11's generic loader (issue 24), subclasses too; other objects are refused."""
import numpy as np
import pytest

import rensa
import rensa.functions as F


def test_numpy_input_is_wrapped_without_a_copy():
    x = np.arange(12, dtype=np.float32)
    y = F.reshape(x, (3, 4))
    assert isinstance(y, rensa.Variable)
    assert not y.requires_grad and y.creator is None
    assert np.shares_memory(y.array, x)  # a view of the caller's memory
    x[0] = 42
    assert y.array[0, 0] == 42


def test_numpy_input_outlives_its_name():
    y = F.reshape(np.full(6, 3.0, np.float32), (2, 3))  # only the Variable keeps the array alive
    np.testing.assert_array_equal(y.array, np.full((2, 3), 3.0, np.float32))


def test_numpy_subclass_and_ndarray_are_arrays():
    class Sub(np.ndarray):
        pass

    x = np.array([[-1.0, 2.0]], np.float32)
    np.testing.assert_array_equal(F.relu(x.view(Sub)).array, [[0.0, 2.0]])
    nd = rensa._core.ndarray(x)
    y = F.reshape(nd, (2,))
    np.testing.assert_array_equal(y.array, [-1.0, 2.0])
    np.asarray(nd)[0, 0] = 7.0  # the Variable views the ndarray's memory
    assert y.array[0] == 7.0


def test_read_only_and_unaligned_inputs():
    x = np.array([-1.0, 2.0, -3.0], np.float64)
    x.flags.writeable = False
    np.testing.assert_array_equal(F.relu(x).array, [0.0, 2.0, 0.0])
    raw = np.zeros(4 * 3 + 1, np.uint8)[1:].view(np.float32)  # misaligned float32: copied
    raw[:] = [-1.0, 5.0, -2.0]
    np.testing.assert_array_equal(F.relu(raw).array, [0.0, 5.0, 0.0])


def test_other_objects_are_refused():
    with pytest.raises(TypeError):
        F.relu([1.0, -1.0])
    with pytest.raises(TypeError):
        F.relu(np.array([1 + 2j]))
    with pytest.raises(TypeError):
        F.relu(np.array([object()]))


def test_overloads_take_arrays_in_the_convert_pass():
    v = rensa.Variable(np.array([1.0, -2.0], np.float32))
    np.testing.assert_array_equal((v * np.array([3.0, 3.0], np.float32)).array, [3.0, -6.0])
    np.testing.assert_array_equal((v * 2.0).array, [2.0, -4.0])
    y = F.relu(v)
    y.grad = np.ones(2, np.float32)
    y.backward()
    np.testing.assert_array_equal(v.grad, [1.0, 0.0])
