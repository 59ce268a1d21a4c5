"""Variable, as_variable, as_array (chainer.variable)."""
from rensa import _core
from rensa._core import Variable, VariableNode

__all__ = ['Variable', 'VariableNode', 'as_variable', 'as_array']


def as_variable(obj):
    """``obj`` when it is a Variable, else a Variable over it that requires no grad."""
    if isinstance(obj, Variable):
        return obj
    return Variable(obj, requires_grad=False)


def as_array(obj):
    """The array of a Variable (a numpy view for native arrays), or ``obj`` itself."""
    if isinstance(obj, Variable):
        return obj.array
    return obj


del _core
