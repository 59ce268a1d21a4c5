"""rensa.gradient_check: passes on right gradients and fails on wrong ones."""
import numpy
import pytest

import rensa
from rensa import gradient_check


class WrongGrad(rensa.FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0,))
        return inputs[0] ** 2,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return 3 * x * grad_outputs[0],  # should be 2 * x


def test_check_backward_passes_for_operators(rng):
    x = rng.uniform(0.5, 2, (3, 2))
    w = rng.uniform(0.5, 2, (3, 2))
    gradient_check.check_backward(lambda a, b: a * b / (a + b) - a ** 2, (x, w), rng.standard_normal((3, 2)))


def test_check_backward_detects_wrong_gradient(rng):
    with pytest.raises(AssertionError, match='check_backward'):
        gradient_check.check_backward(lambda x: WrongGrad().apply((x,))[0], rng.standard_normal(4),
                                      rng.standard_normal(4))


def test_check_backward_scalar_output_without_y_grad(rng):
    x = rng.standard_normal((2, 2))
    gradient_check.check_backward(lambda x: (x * x).reshape(4)[1], x, None)


def test_check_backward_params(rng):
    w = rensa.Variable(rng.standard_normal((2, 3)))
    gradient_check.check_backward(lambda x: x @ w, rng.standard_normal((4, 2)), rng.standard_normal((4, 3)),
                                  params=(w,))
    assert w.grad is not None


def test_check_backward_no_grads(rng):
    x = rng.standard_normal(3)
    c = rng.standard_normal(3)
    gradient_check.check_backward(lambda x, c: x * c, (x, c), rng.standard_normal(3), no_grads=[False, True])


def test_check_backward_float32_with_float64_numerics(rng):
    x = rng.uniform(0.5, 1.5, (3,)).astype(numpy.float32)
    gradient_check.check_backward(lambda x: x * x * x, x, numpy.ones(3, numpy.float32), dtype=numpy.float64,
                                  atol=1e-3, rtol=1e-3)


def test_check_double_backward(rng):
    x = rng.standard_normal((2, 3))
    gradient_check.check_double_backward(lambda x: x * x * x, x, rng.standard_normal((2, 3)),
                                         rng.standard_normal((2, 3)))
    with pytest.raises(AssertionError):
        gradient_check.check_double_backward(lambda x: WrongGrad().apply((x,))[0] * x, x,
                                             rng.standard_normal((2, 3)), rng.standard_normal((2, 3)))


def test_numerical_grad(rng):
    x = rng.standard_normal((2, 3))
    gy = rng.standard_normal((2, 3))
    gx, = gradient_check.numerical_grad(lambda: (numpy.sin(x),), (x,), (gy,))
    numpy.testing.assert_allclose(gx, numpy.cos(x) * gy, rtol=1e-5, atol=1e-6)
