"""Variable and Parameter behaving as Chainer 7.8.1's: array identity, copies and pickles,
devices, mean / summary / debug_print / node / creator_node, floor division. Expected
values were taken from Chainer 7.8.1."""
import copy
import pickle

import numpy
import pytest

import rensa
from rensa import backend
from rensa import functions as F
from rensa import links as L


def var(name=None):
    v = rensa.Variable(numpy.arange(3, dtype=numpy.float32), name=name)
    v.grad = numpy.ones(3, numpy.float32)
    return v


def test_array_is_the_same_object_until_replaced():
    x = numpy.arange(3, dtype=numpy.float32)
    v = rensa.Variable(x)
    assert v.array is x and v.data is x  # Variable(x).array is x, as in Chainer
    a = v.array
    v.array += 1  # in place: same object
    assert v.array is a is x and x[0] == 1
    y = numpy.zeros(2, numpy.float32)
    v.array = y
    assert v.array is y and v.array is not a
    w = v * 2
    assert w.array is w.array
    g = numpy.ones(2, numpy.float32)
    w.grad = g
    assert w.grad is g and w.grad is w.grad


def test_empty_arrays_are_not_one_object():
    a, b = rensa.Variable(numpy.zeros((0, 3), numpy.float32)), rensa.Variable(numpy.zeros((0, 3), numpy.float32))
    assert a.array is not b.array and a.array.shape == (0, 3)


def test_array_identity_follows_in_place_metadata_changes():
    v = rensa.Variable(numpy.zeros((2, 3), numpy.float32))
    a = v.array
    a.shape = (3, 2)  # the numpy object no longer describes the variable's array
    assert v.array is not a and v.array.shape == (2, 3)


def test_parameter_array_identity():
    link = L.Linear(2, 3)
    assert link.W.array is link.W.array
    p = rensa.Parameter(numpy.ones((2, 2), numpy.float32))
    assert p.array is p.array and p.data is p.array


def test_copy_shares_arrays_and_drops_the_creator():
    v = var('v')
    c = copy.copy(v)
    assert isinstance(c, rensa.Variable) and c is not v
    assert numpy.shares_memory(c.array, v.array) and numpy.shares_memory(c.grad, v.grad)
    assert c.name == 'v' and c.requires_grad
    c.grad = None
    assert v.grad is not None
    y = v * 2
    assert copy.copy(y).creator is None
    assert not copy.copy(rensa.Variable(numpy.ones(1), requires_grad=False)).requires_grad


def test_deepcopy_owns_new_arrays():
    v = var('v')
    d = copy.deepcopy(v)
    assert not numpy.shares_memory(d.array, v.array) and not numpy.shares_memory(d.grad, v.grad)
    numpy.testing.assert_array_equal(d.array, v.array)
    numpy.testing.assert_array_equal(d.grad, v.grad)
    assert d.name == 'v' and copy.deepcopy(v * 2).creator is None
    both = copy.deepcopy([v, v])
    assert both[0] is both[1]
    assert not copy.deepcopy(rensa.Variable(numpy.ones(1), requires_grad=False)).requires_grad


def test_pickle_variable():
    v = var('v')
    p = pickle.loads(pickle.dumps(v))
    numpy.testing.assert_array_equal(p.array, [0, 1, 2])
    numpy.testing.assert_array_equal(p.grad, [1, 1, 1])
    assert p.name == 'v' and p.requires_grad and p.dtype == numpy.float32
    q = pickle.loads(pickle.dumps(rensa.Variable(numpy.ones(2), requires_grad=False)))
    assert not q.requires_grad and q.grad is None and q.name is None
    empty = pickle.loads(pickle.dumps(rensa.Variable()))
    assert empty.array is None


def test_parameter_copies_and_pickles():
    p = rensa.Parameter(numpy.ones((2, 2), numpy.float32), name='W')
    p.grad = numpy.full((2, 2), 2, numpy.float32)
    for q in (pickle.loads(pickle.dumps(p)), copy.deepcopy(p)):
        assert type(q) is rensa.Parameter and q.name == 'W'
        assert not numpy.shares_memory(q.array, p.array)
        assert q.array.tolist() == [[1, 1], [1, 1]] and q.grad.tolist() == [[2, 2], [2, 2]]
    c = copy.copy(p)
    assert type(c) is rensa.Parameter and numpy.shares_memory(c.array, p.array)
    assert numpy.shares_memory(c.grad, p.grad)
    scalar = rensa.Parameter(None, dtype=numpy.float32)
    scalar.array = numpy.full((), 3.0, numpy.float32)
    restored = pickle.loads(pickle.dumps(scalar))
    assert restored.is_initialized and restored.shape == () and restored.array == 3.0


def test_uninitialized_parameter_copies_keep_the_initializer():
    init = rensa.initializers.Constant(3.0)
    p = rensa.Parameter(init)
    for q in (copy.copy(p), copy.deepcopy(p)):
        assert not q.is_initialized and q.initializer is init
        q.initialize((2,))
        assert q.array.tolist() == [3.0, 3.0]


def test_parameter_copy_keeps_the_update_switch_and_rule():
    link = L.Linear(2, 3)
    optimizer = rensa.optimizers.SGD()
    optimizer.setup(link)
    link.W.disable_update()
    shallow, deep = copy.copy(link.W), copy.deepcopy(link.W)
    assert not shallow.update_enabled and not deep.update_enabled
    assert shallow.update_rule is None and deep.update_rule is None  # the optimizer makes new ones
    assert pickle.loads(pickle.dumps(link.b)).update_enabled


def test_device_is_a_device_object():
    v = var()
    assert isinstance(v.device, backend.CpuDevice) and v.device == backend.CpuDevice()
    assert v.device.xp is numpy and v.device.name == '@numpy' and hash(v.device) == hash('@numpy')
    device = v.device
    assert backend.get_device(device) is device
    assert rensa.Variable(numpy.ones(1)).device == backend.get_device('native:0')
    v.to_device(v.device)  # a device object is a device argument


def test_mean():
    x = rensa.Variable(numpy.array([5.0, -3.5], numpy.float32))
    assert float(x.mean().array) == 0.75
    m = x.mean(axis=0, keepdims=True)
    assert m.shape == (1,) and m.array[0] == 0.75
    w = x.mean(weights=numpy.array([1.0, 3.0], numpy.float32))
    assert float(w.array) == pytest.approx((5.0 - 10.5) / 4)
    x.mean().backward()
    numpy.testing.assert_array_equal(x.grad, [0.5, 0.5])


def test_summary_and_debug_print():
    x = rensa.Variable(numpy.array([5.0, -3.5], numpy.float32))
    assert x.summary() == '<variable at 0x{:x}>'.format(id(x))
    assert rensa.Variable(numpy.zeros(1), name='a').summary() == '<variable a>'
    assert x.debug_print() == (
        '<variable at 0x{:x}>\n- device: CPU\n- backend: <class \'numpy.ndarray\'>\n- shape: (2,)\n'
        '- dtype: float32\n- statistics: mean=0.75000000, std=4.25000000\n- grad: None').format(id(x))
    x.grad = numpy.zeros(2, numpy.float32)
    assert x.debug_print().endswith('- grad: 0')
    x.grad = numpy.array([1.0, 3.0], numpy.float32)
    assert x.debug_print().endswith('- grad: mean=2.00000000, std=1.00000000')


def test_node_and_creator_node():
    x = var()
    assert isinstance(x.node, rensa.VariableNode) and x.creator_node is None
    y = F.relu(x)
    assert y.creator_node is y.creator and y.creator_node is not None
    assert y.node.creator is not None and y.node.shape == (3,)


def test_floor_division():
    x = rensa.Variable(numpy.array([5.0, -3.5], numpy.float32))
    numpy.testing.assert_array_equal((x // 2).array, [2.0, -2.0])
    numpy.testing.assert_array_equal((7 // x).array, [1.0, -2.0])
    numpy.testing.assert_array_equal((x // 2.5).array, [2.0, -2.0])
    numpy.testing.assert_array_equal((x // rensa.Variable(numpy.full(2, 2.0, numpy.float32))).array, [2.0, -2.0])
    numpy.testing.assert_array_equal((x // numpy.full(2, 2.0, numpy.float32)).array, [2.0, -2.0])
    numpy.testing.assert_array_equal((numpy.full(2, 7.0, numpy.float32) // x).array, [1.0, -2.0])
