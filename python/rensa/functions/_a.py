"""Python-level parts of rensa.functions, group a (activation, array, math, noise).

Every function of the C++ families is bound directly in rensa._core.functions. This module
adds Chainer math functions that C++ lacks, written as Python FunctionNodes: numpy
forward (native/CPU arrays only) and a backward built from rensa functions, so double
backprop works. The non-differentiable rounding functions return Variables that do not
require grad, as Chainer's do.
"""
import math

import numpy

from rensa import _core
from rensa._core import functions as _F
from rensa.function_node import FunctionNode

__all__ = ['arccos', 'arcsin', 'arctan2', 'ceil', 'erfc', 'expm1', 'fix', 'floor', 'fmod', 'ndtr', 'sign']

_erfc = numpy.vectorize(math.erfc, otypes=[numpy.float64])


def _array(x):
    return x.array if isinstance(x, _core.Variable) else numpy.asarray(x)


def _like(value, x):
    return numpy.asarray(value, dtype=x.dtype)


class _Unary(FunctionNode):
    """y = f(x) with dy/dx computed by ``derivative(x, y)`` as a Variable expression."""

    def __init__(self, forward_fn, derivative, retain_output=False):
        self._forward_fn = forward_fn
        self._derivative = derivative
        self._retain_output = retain_output

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        if self._retain_output:
            self.retain_outputs((0,))
        return _like(self._forward_fn(x), x),

    def backward(self, target_input_indexes, grad_outputs):
        x, = self.get_retained_inputs()
        y = self.get_retained_outputs()[0] if self._retain_output else None
        return grad_outputs[0] * self._derivative(x, y),


def _apply_unary(x, forward_fn, derivative, retain_output=False):
    return _Unary(forward_fn, derivative, retain_output).apply((x,))[0]


def expm1(x):
    """exp(x) - 1, accurate near 0."""
    return _apply_unary(x, numpy.expm1, lambda x, y: y + 1.0, retain_output=True)


def arcsin(x):
    """Elementwise arcsine."""
    return _apply_unary(x, numpy.arcsin, lambda x, y: _F.rsqrt(1.0 - _F.square(x)))


def arccos(x):
    """Elementwise arccosine."""
    return _apply_unary(x, numpy.arccos, lambda x, y: -_F.rsqrt(1.0 - _F.square(x)))


def erfc(x):
    """Complementary error function 1 - erf(x), accurate for large x."""
    return _apply_unary(x, _erfc, lambda x, y: _F.exp(-_F.square(x)) * (-2.0 / math.sqrt(math.pi)))


def ndtr(x):
    """Standard normal cumulative distribution function."""
    return _apply_unary(x, lambda a: 0.5 * _erfc(-a / math.sqrt(2.0)),
                        lambda x, y: _F.exp(_F.square(x) * -0.5) * (1.0 / math.sqrt(2.0 * math.pi)))


class _Arctan2(FunctionNode):

    def forward(self, inputs):
        x1, x2 = inputs
        self.retain_inputs((0, 1))
        return _like(numpy.arctan2(x1, x2), x1),

    def backward(self, target_input_indexes, grad_outputs):
        x1, x2 = self.get_retained_inputs()
        gy = grad_outputs[0] / (_F.square(x1) + _F.square(x2))
        return _F.sum_to(gy * x2, x1.shape), _F.sum_to(-gy * x1, x2.shape)


def arctan2(x1, x2):
    """Elementwise arctan(x1 / x2) in the quadrant of (x2, x1)."""
    return _Arctan2().apply((x1, x2))[0]


class _Fmod(FunctionNode):

    def forward(self, inputs):
        x, divisor = inputs
        self._shapes = x.shape, divisor.shape
        self._quotient = numpy.fix(x / divisor)
        return _like(numpy.fmod(x, divisor), x),

    def backward(self, target_input_indexes, grad_outputs):
        gy, = grad_outputs
        return (_F.sum_to(gy, self._shapes[0]),
                _F.sum_to(-gy * self._quotient.astype(gy.dtype), self._shapes[1]))


def fmod(x, divisor):
    """Elementwise remainder of x / divisor with the sign of x (numpy.fmod)."""
    return _Fmod().apply((x, divisor))[0]


def _rounding(numpy_fn, doc):
    def fn(x):
        return _core.Variable(numpy_fn(_array(x)), requires_grad=False)
    fn.__doc__ = doc + ' Not differentiable (Chainer\'s behaviour).'
    fn.__name__ = numpy_fn.__name__
    return fn


floor = _rounding(numpy.floor, 'Elementwise floor.')
ceil = _rounding(numpy.ceil, 'Elementwise ceiling.')
fix = _rounding(numpy.fix, 'Elementwise rounding toward zero.')
sign = _rounding(numpy.sign, 'Elementwise sign (-1, 0 or 1).')
