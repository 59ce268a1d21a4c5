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
        """Computes the outputs from a tuple of input arrays (numpy arrays on the CPU,
        ``rensa.ndarray`` on a GPU); returns a tuple of arrays (or one array). Call
        ``retain_inputs`` / ``retain_outputs`` here to keep arrays for backward. Subclasses
        must override it (or ``forward_cpu``)."""
        raise NotImplementedError(
            '{}.forward is not implemented'.format(type(self).__name__))

    def backward(self, target_input_indexes, grad_outputs):
        """Computes the grads of the inputs listed in ``target_input_indexes`` from
        ``grad_outputs`` (a tuple of Variables, None where an output has no grad), with
        differentiable functions so that double backprop works; returns one Variable (or
        None, a zero grad) per target index, or one per input. Subclasses must override it."""
        raise NotImplementedError(
            '{}.backward is not implemented'.format(type(self).__name__))


FunctionHook = _core.FunctionHook
__all__.append('FunctionHook')
