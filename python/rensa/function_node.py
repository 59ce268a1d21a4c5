"""FunctionNode, backward, grad, no_backprop_mode, force_backprop_mode (chainer.function_node)."""
from rensa import _core
from rensa._core import backward, force_backprop_mode, grad, no_backprop_mode

__all__ = ['FunctionNode', 'backward', 'grad', 'no_backprop_mode', 'force_backprop_mode']


class FunctionNode(_core.FunctionNode):
    """Chainer's FunctionNode, to subclass in Python.

    ``forward(self, inputs)`` gets a tuple of arrays (numpy views for native arrays) and
    returns a tuple of arrays; ``backward(self, target_input_indexes, grad_outputs)`` gets
    and returns Variables, so its own graph is recorded (double backprop).
    ``apply(inputs)`` returns a tuple of Variables.
    """

    def __new__(cls, *args, **kwargs):
        # Subclasses often define __init__ without calling super().__init__() (Chainer
        # does not need it); the native part is built here instead.
        self = super().__new__(cls)
        _core.FunctionNode.__init__(self)
        return self

    def __init__(self, *args, **kwargs):
        pass

    def forward(self, inputs):
        raise NotImplementedError(
            '{}.forward is not implemented'.format(type(self).__name__))

    def backward(self, target_input_indexes, grad_outputs):
        raise NotImplementedError(
            '{}.backward is not implemented'.format(type(self).__name__))


FunctionHook = _core.FunctionHook
__all__.append('FunctionHook')
