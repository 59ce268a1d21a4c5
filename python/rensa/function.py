"""chainer.Function: Chainer's old-style differentiable function, on rensa's FunctionNode.

A subclass defines ``forward(inputs)`` (or ``forward_cpu`` / ``forward_gpu``) and
``backward(inputs, grad_outputs)`` (or ``backward_cpu`` / ``backward_gpu``) on tuples of
arrays, optionally ``check_type_forward(in_types)``, and is applied as ``MyFunc()(x, y)``:
one Variable for one output, else a tuple. By default every input is kept for backward;
``retain_inputs(indexes)`` inside forward keeps only those (the others reach backward as
None) and ``retain_outputs(indexes)`` keeps outputs for ``self.output_data``. The grads
backward returns are not differentiable again (use FunctionNode for double backprop).
"""
import weakref

from rensa import _core
from rensa import configuration
from rensa import function_node
from rensa.function_node import FunctionHook, force_backprop_mode, no_backprop_mode  # noqa: F401
from rensa.utils import type_check

__all__ = ['Function', 'FunctionAdapter', 'FunctionHook', 'no_backprop_mode', 'force_backprop_mode']


def _on_gpu(array):
    return isinstance(array, _core.ndarray) and array.device.kind == 'cuda'


def _arrays(variables):
    return tuple(None if v is None else v.array for v in variables)


class FunctionAdapter(function_node.FunctionNode):
    """The FunctionNode that puts a Function in the graph (chainer.FunctionAdapter). While
    the function is applied, the graph holds the adapter and the adapter the function."""

    def __init__(self, function):
        self._function = None
        self._weak_function = weakref.ref(function)

    @property
    def function(self):
        """The wrapped Function."""
        if self._function is not None:
            return self._function
        return self._weak_function()

    @property
    def label(self):
        """The wrapped function's label."""
        return self.function.label

    def forward(self, inputs):
        """Runs the wrapped function's ``forward`` on the input arrays, keeping every input for
        backward until the function calls ``retain_inputs``; returns its tuple of arrays
        (TypeError when it returns something else)."""
        function = self.function
        function._input_indexes = tuple(range(len(inputs)))
        function._output_indexes = ()
        self.retain_inputs(function._input_indexes)
        outputs = function.forward(tuple(inputs))
        if not isinstance(outputs, tuple):
            raise TypeError('{}.forward must return a tuple of arrays, got {}'.format(
                function.label, type(outputs).__name__))
        return outputs

    def backward(self, target_input_indexes, grad_outputs):
        """Runs the wrapped function's ``backward`` on the retained input arrays and the output
        grads' arrays (``output_data`` set from the retained outputs), and returns the grads of
        the inputs in ``target_input_indexes`` as Variables without a graph (so they are not
        differentiable again). The function must return one grad (or None) per input."""
        function = self.function
        in_data = [None] * len(self.inputs)
        for index, variable in zip(function._input_indexes, self.get_retained_inputs()):
            in_data[index] = variable.array
        retained_outputs = self.get_retained_outputs()
        if function._output_indexes:
            out_data = [None] * len(self.outputs)
            for index, variable in zip(function._output_indexes, retained_outputs):
                out_data[index] = variable.array
            function._output_data = tuple(out_data)
        grad_data = _arrays(grad_outputs)
        gxs = function.backward(tuple(in_data), grad_data)
        if not isinstance(gxs, (tuple, list)):
            raise TypeError('{}.backward must return a tuple of arrays (or None), got {}'.format(
                function.label, type(gxs).__name__))
        if len(gxs) != len(in_data):
            raise ValueError('{}.backward: Expect: one grad per input ({}), Actual: {}'.format(
                function.label, len(in_data), len(gxs)))
        return tuple(None if gxs[i] is None else _core.Variable(gxs[i], requires_grad=False)
                     for i in target_input_indexes)


class Function(object):
    """chainer.Function: subclass it with forward/backward on tuples of arrays and call the
    instance on Variables or arrays."""

    _node_ref = None
    _input_indexes = ()
    _output_indexes = ()
    _output_data = None

    def __call__(self, *inputs):
        """Applies the function; returns one Variable, or a tuple for several outputs."""
        if configuration.config.type_check:
            self._check_types(inputs)
        adapter = FunctionAdapter(self)
        adapter._function = self  # the graph owns the adapter, the adapter owns the function
        self._node_ref = weakref.ref(adapter)
        outputs = adapter.apply(inputs)
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _check_types(self, inputs):
        arrays = tuple(x.array if isinstance(x, _core.Variable) else x for x in inputs)
        in_types = type_check.get_types(arrays, 'in_types', False)
        with type_check._CurrentFunction(self):
            self.check_type_forward(in_types)

    @property
    def _adapter(self):
        return None if self._node_ref is None else self._node_ref()

    @property
    def node(self):
        """The FunctionAdapter of the last application, while the graph holds it."""
        return self._adapter

    @property
    def inputs(self):
        """The input VariableNodes of the last application (through its FunctionAdapter)."""
        return self._adapter.inputs

    @property
    def outputs(self):
        """The output VariableNodes of the last application (None for an output that is gone)."""
        return self._adapter.outputs

    @property
    def rank(self):
        """The topological rank of the last application's node in the graph."""
        return self._adapter.rank

    @property
    def label(self):
        """The function's name in messages and graphs: the class name by default."""
        return type(self).__name__

    @property
    def output_data(self):
        """The retained outputs' arrays in backward (None for outputs not retained)."""
        return self._output_data

    def check_type_forward(self, in_types):
        """Checks the inputs' types with type_check.expect (nothing by default)."""

    def forward(self, inputs):
        """forward_gpu when an input is a device array, else forward_cpu."""
        if any(_on_gpu(x) for x in inputs):
            return self.forward_gpu(inputs)
        return self.forward_cpu(inputs)

    def forward_cpu(self, inputs):
        """Computes the outputs from a tuple of numpy arrays; returns a tuple of arrays. Override it
        (or ``forward``)."""
        raise NotImplementedError('{}: define forward or forward_cpu'.format(self.label))

    def forward_gpu(self, inputs):
        """Computes the outputs from a tuple of GPU arrays (``rensa.ndarray``); returns a tuple of
        arrays. Override it (or ``forward``) for GPU inputs."""
        raise NotImplementedError('{}: define forward or forward_gpu'.format(self.label))

    def backward(self, inputs, grad_outputs):
        """backward_gpu when an array is a device array, else backward_cpu."""
        if any(_on_gpu(x) for x in inputs + grad_outputs):
            return self.backward_gpu(inputs, grad_outputs)
        return self.backward_cpu(inputs, grad_outputs)

    def backward_cpu(self, inputs, grad_outputs):
        """Computes the input grads from the input arrays and the output grads (numpy arrays; None
        for inputs not retained or grads not given); returns one array or None per input. The
        default returns all None (no gradient)."""
        return tuple(None for _ in inputs)

    def backward_gpu(self, inputs, grad_outputs):
        """``backward_cpu`` for GPU arrays; the default returns all None (no gradient)."""
        return tuple(None for _ in inputs)

    def retain_inputs(self, indexes):
        """Keeps only these inputs for backward (call inside forward; () keeps none)."""
        self._require_forward('retain_inputs')
        self._input_indexes = tuple(indexes)
        self._adapter.retain_inputs(self._input_indexes)

    def retain_outputs(self, indexes, retain_after_backward=False):
        """Keeps these outputs for ``output_data`` in backward (call inside forward)."""
        self._require_forward('retain_outputs')
        self._output_indexes = tuple(indexes)
        self._adapter.retain_outputs(self._output_indexes)

    def _require_forward(self, what):
        if self._adapter is None:
            raise RuntimeError('{}.{}: call it inside forward'.format(self.label, what))

    def unchain(self):
        """Removes the function from the graph (its outputs become leaves)."""
        if self._adapter is not None:
            self._adapter.unchain()
