"""Python subclasses of rensa.FunctionNode: forward on arrays, backward on Variables."""
import gc

import numpy
import pytest

import rensa
from rensa import gradient_check


class Cube(rensa.FunctionNode):
    def __init__(self, scale):  # no super().__init__(), as Chainer allows
        self.scale = scale

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        assert isinstance(x, numpy.ndarray)
        return self.scale * x ** 3,

    def backward(self, target_input_indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return 3 * self.scale * x * x * gy,


class ExpOut(rensa.FunctionNode):
    """Uses retain_outputs: d exp(x) = exp(x)."""

    def forward(self, inputs):
        self.retain_outputs((0,))
        return numpy.exp(inputs[0]),

    def backward(self, target_input_indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return y * grad_outputs[0],


class MulAdd(rensa.FunctionNode):
    """Two inputs, two outputs: (a * b, a + b)."""

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        a, b = inputs
        return a * b, a + b

    def backward(self, target_input_indexes, grad_outputs):
        a, b = self.get_retained_inputs()
        g_mul, g_add = grad_outputs
        ga = gb = 0
        if g_mul is not None:
            ga, gb = ga + g_mul * b, gb + g_mul * a
        if g_add is not None:
            ga, gb = ga + g_add, gb + g_add
        return tuple(g for i, g in enumerate((ga, gb)) if i in target_input_indexes)


def cube(x, scale=2.0):
    return Cube(scale).apply((x,))[0]


def test_apply_forward_and_graph(rng):
    x_data = rng.standard_normal((3, 4))
    x = rensa.Variable(x_data)
    y = cube(x)
    numpy.testing.assert_allclose(y.array, 2 * x_data ** 3)
    assert isinstance(y.creator, Cube) and y.creator.label == 'Cube'
    assert y.rank == 1 and y.creator.rank == 0
    assert len(y.creator.inputs) == 1 and y.creator.inputs[0].shape == (3, 4)
    assert y.creator.outputs[0] is not None


def test_python_node_kept_alive_by_graph_only(rng):
    x_data = rng.standard_normal((5,))
    x = rensa.Variable(x_data)
    y = cube(x, 3.0)  # the Cube object is referenced only from the graph now
    gc.collect()
    y.grad = numpy.ones(5)
    y.backward()  # C++ calls the Python backward override
    numpy.testing.assert_allclose(x.grad, 9 * x_data ** 2)


def test_retain_outputs(rng):
    x_data = rng.standard_normal((4,))
    x = rensa.Variable(x_data)
    y = ExpOut().apply((x,))[0]
    y.grad = numpy.ones(4)
    y.backward()
    numpy.testing.assert_allclose(x.grad, numpy.exp(x_data))


def test_two_outputs_partial_grads(rng):
    a_data, b_data = rng.standard_normal((2, 3))
    a, b = rensa.Variable(a_data), rensa.Variable(b_data)
    prod, total = MulAdd().apply((a, b))
    prod.grad = numpy.ones(3)
    prod.backward()  # total gets no grad: its grad_output is None
    numpy.testing.assert_allclose(a.grad, b_data)
    numpy.testing.assert_allclose(b.grad, a_data)


def test_double_backprop_through_python_node(rng):
    x_data = rng.standard_normal((3,))
    x = rensa.Variable(x_data)
    gx, = rensa.grad([cube(x)], [x], [numpy.ones(3)], enable_double_backprop=True)
    ggx, = rensa.grad([gx], [x], [numpy.ones(3)])
    numpy.testing.assert_allclose(ggx.array, 12 * x_data)


def test_gradient_check_of_python_node(rng):
    x = rng.standard_normal((3, 2))
    gy = rng.standard_normal((3, 2))
    ggx = rng.standard_normal((3, 2))
    gradient_check.check_backward(cube, x, gy)
    gradient_check.check_double_backward(cube, x, gy, ggx)
    a, b = rng.standard_normal((2, 4))
    gradient_check.check_backward(lambda a, b: MulAdd().apply((a, b)), (a, b), (rng.standard_normal(4), rng.standard_normal(4)))


def test_numpy_inputs_accepted(rng):
    x_data = rng.standard_normal((2,))
    y, = Cube(1.0).apply((x_data,))
    numpy.testing.assert_allclose(y.array, x_data ** 3)
    assert y.creator is None  # no input requires grad: no graph


def test_missing_forward_raises():
    class NoForward(rensa.FunctionNode):
        pass

    with pytest.raises(NotImplementedError):
        NoForward().apply((numpy.ones(2),))


def test_exception_in_forward_propagates():
    class Fails(rensa.FunctionNode):
        def forward(self, inputs):
            raise KeyError('inside forward')

    with pytest.raises(KeyError, match='inside forward'):
        Fails().apply((rensa.Variable(numpy.ones(2)),))


def test_custom_label():
    class Named(Cube):
        @property
        def label(self):
            return 'MyCube'

    y = Named(1.0).apply((rensa.Variable(numpy.ones(2)),))[0]
    assert y.creator.label == 'MyCube'
