"""chainer.Function (old-style functions on arrays) on rensa's FunctionNode, checked against
Chainer 7.8.1's behaviour (tests/python/chainer_style/old_style_function.py runs on both)."""
import gc

import numpy
import pytest

import rensa
from rensa import functions as F
from rensa.utils import type_check
from chainer_style_harness import assert_same_first_losses, run_on_chainer, run_ported


class Exp2(rensa.Function):
    """(exp(x) * y, 3x), keeping y and the first output only."""

    def forward(self, inputs):
        x, y = inputs
        self.retain_inputs((1,))
        self.retain_outputs((0,))
        return numpy.exp(x) * y, x * 3

    def backward(self, inputs, grad_outputs):
        x, y = inputs
        self.seen = (x is None, self.output_data[1] is None, tuple(g is None for g in grad_outputs))
        e = self.output_data[0]
        g0 = 0 if grad_outputs[0] is None else grad_outputs[0]
        g1 = 0 if grad_outputs[1] is None else grad_outputs[1]
        return g0 * e + g1 * 3, g0 * e / y


class Square(rensa.Function):

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1)
        x, = in_types
        type_check.expect(x.dtype.kind == 'f', x.ndim >= 1)

    def forward_cpu(self, inputs):
        return inputs[0] ** 2,

    def backward_cpu(self, inputs, grad_outputs):
        return 2 * inputs[0] * grad_outputs[0],


def variables():
    return (rensa.Variable(numpy.array([0.5, 1.0], numpy.float32)),
            rensa.Variable(numpy.array([2.0, 3.0], numpy.float32)))


def test_gradients_with_retained_inputs_and_outputs():
    x, y = variables()
    f = Exp2()
    a, b = f(x, y)
    F.sum(a).backward()
    e = numpy.exp(x.array)
    numpy.testing.assert_allclose(x.grad, e * y.array, rtol=1e-6)
    numpy.testing.assert_allclose(y.grad, e, rtol=1e-6)
    # x was not retained, output 1 was not retained, output 1 got no grad.
    assert f.seen == (True, True, (False, True))


def test_both_outputs_get_grads():
    x, y = variables()
    f = Exp2()
    a, b = f(x, y)
    F.sum(a + b).backward()
    numpy.testing.assert_allclose(x.grad, numpy.exp(x.array) * y.array + 3, rtol=1e-6)
    assert f.seen[2] == (False, False)


def test_one_output_is_a_variable_and_the_node_is_in_the_graph():
    x, _ = variables()
    f = Square()
    z = f(x)
    assert isinstance(z, rensa.Variable) and z.creator is f.node
    assert f.label == 'Square' and f.node.label == 'Square' and f.rank == 0
    assert len(f.inputs) == 1 and len(f.outputs) == 1
    assert isinstance(f.node, rensa.FunctionAdapter) and f.node.function is f
    z.grad = numpy.ones(2, numpy.float32)
    z.backward()
    numpy.testing.assert_array_equal(x.grad, 2 * x.array)


def test_arrays_as_inputs_and_no_backprop_mode():
    w = Square()(numpy.array([3.0], numpy.float32))
    assert w.array[0] == 9.0 and not w.requires_grad
    x, _ = variables()
    with rensa.no_backprop_mode():
        z = Square()(x)
    assert z.creator is None


def test_graph_keeps_the_function_alive():
    x, _ = variables()
    z = Square()(x)  # nothing else holds the Function
    gc.collect()
    z.grad = numpy.ones(2, numpy.float32)
    z.backward()
    numpy.testing.assert_array_equal(x.grad, 2 * x.array)


def test_type_check_failure_names_the_function():
    with pytest.raises(type_check.InvalidType) as info:
        Square()(numpy.array([1, 2], numpy.int32))
    assert info.value.expect == "in_types[0].dtype.kind == f"
    assert info.value.actual == 'i != f'
    assert 'Invalid operation is performed in: Square (Forward)' in str(info.value)
    with pytest.raises(type_check.InvalidType, match=r'in_types.size == 1'):
        Square()(numpy.ones(1, numpy.float32), numpy.ones(1, numpy.float32))
    with rensa.using_config('type_check', False):
        Square()(numpy.array([1, 2], numpy.int32))  # skipped, as in Chainer


def test_undefined_forward_and_bad_returns():
    class NoForward(rensa.Function):
        pass

    class ReturnsArray(rensa.Function):
        def forward(self, inputs):
            return inputs[0]

    class WrongGradCount(Square):
        def backward(self, inputs, grad_outputs):
            return grad_outputs[0], grad_outputs[0]

    with pytest.raises(NotImplementedError, match='forward'):
        NoForward()(numpy.ones(1, numpy.float32))
    with pytest.raises(TypeError, match='ReturnsArray.forward must return a tuple'):
        ReturnsArray()(numpy.ones(1, numpy.float32))
    x, _ = variables()
    with pytest.raises(ValueError, match='WrongGradCount.backward: Expect: one grad per input'):
        F.sum(WrongGradCount()(x)).backward()


def test_default_backward_gives_no_grad():
    class ForwardOnly(rensa.Function):
        def forward(self, inputs):
            return inputs[0] * 2,

    x, _ = variables()
    F.sum(ForwardOnly()(x) + x).backward()
    numpy.testing.assert_array_equal(x.grad, numpy.ones(2, numpy.float32))


def test_retain_outside_forward_raises():
    with pytest.raises(RuntimeError, match='inside forward'):
        Square().retain_inputs(())


def test_script_matches_chainer(tmp_path):
    output = run_ported('old_style_function.py', tmp_path)
    assert_same_first_losses(output, run_on_chainer('old_style_function.py'))
