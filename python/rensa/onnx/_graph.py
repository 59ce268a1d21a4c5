"""The ONNX graph under construction: names, nodes, initializers and constants.

Private to rensa.onnx. The converters of the op families (_ops_math, _ops_array, _ops_nn)
add nodes through a GraphBuilder; export() (rensa.onnx.__init__) walks the records.
"""
import numpy

import onnx
from onnx import helper, numpy_helper


class AttributeNotExportable(ValueError):
    """A function whose attribute values ONNX has no operator for (raised by a converter)."""


class GraphBuilder:
    """Nodes, initializers and unique names of the graph being exported, and the opset."""

    def __init__(self, opset_version):
        self.opset = opset_version
        self.nodes = []
        self.initializers = []
        self._names = set()
        self._counters = {}

    def unique(self, base):
        """A name not used yet in the graph, from ``base``."""
        name = base
        while name in self._names:
            n = self._counters.get(base, 0) + 1
            self._counters[base] = n
            name = '{}_{}'.format(base, n)
        self._names.add(name)
        return name

    def reserve(self, name):
        """Marks ``name`` (a graph input, output or parameter) as taken; returns it."""
        if name in self._names:
            raise ValueError('rensa.onnx.export: the name {!r} is used twice in the graph'.format(name))
        self._names.add(name)
        return name

    def initializer(self, value, name):
        """Adds ``value`` (array-like) as an initializer named ``name`` (made unique); returns the name."""
        name = self.unique(name)
        self.initializers.append(numpy_helper.from_array(numpy.ascontiguousarray(value), name))
        return name

    def const(self, value, dtype, base='const'):
        """A constant tensor of ``dtype`` (numpy) as an initializer; returns its name."""
        return self.initializer(numpy.asarray(value, dtype=dtype), '/' + base)

    def ints(self, values, base='shape'):
        """A 1-D int64 constant (shapes, axes, pads of the inputs that take them); returns its name."""
        return self.const(numpy.asarray(list(values), dtype=numpy.int64).reshape(-1), numpy.int64, base)

    def op(self, op_type, inputs, n_outputs=1, outputs=None, **attributes):
        """Adds one node; returns the list of its output names (fresh unless ``outputs`` gives them)."""
        if outputs is None:
            outputs = [self.unique('/{}_out'.format(op_type)) for _ in range(n_outputs)]
        name = self.unique('/' + op_type)
        self.nodes.append(helper.make_node(op_type, list(inputs), list(outputs), name=name, **attributes))
        return list(outputs)

    def op1(self, op_type, inputs, **attributes):
        """op() for a node with one output; returns its name."""
        return self.op(op_type, inputs, **attributes)[0]

    # --- Nodes whose form changed between opsets 13 and 20 ---

    def reduce(self, op_type, x, axes, keepdims):
        """ReduceSum/ReduceMax/ReduceMin/ReduceMean over ``axes`` (None: all)."""
        axes_as_input = op_type == 'ReduceSum' or self.opset >= 18
        if axes is None:
            return self.op1(op_type, [x], keepdims=int(keepdims))
        if axes_as_input:
            return self.op1(op_type, [x, self.ints(axes, 'axes')], keepdims=int(keepdims))
        return self.op1(op_type, [x], axes=list(axes), keepdims=int(keepdims))

    def unsqueeze(self, x, axes):
        return self.op1('Unsqueeze', [x, self.ints(axes, 'axes')])

    def squeeze(self, x, axes):
        return self.op1('Squeeze', [x, self.ints(axes, 'axes')])

    def reshape(self, x, shape):
        return self.op1('Reshape', [x, self.ints(shape)])


def tensor_type(dtype):
    """The ONNX element type of a numpy dtype."""
    return helper.np_dtype_to_tensor_dtype(numpy.dtype(dtype))


def value_info(name, dtype, shape):
    """A ValueInfoProto; ``shape`` holds ints and dimension names (str)."""
    return helper.make_tensor_value_info(name, tensor_type(dtype), list(shape))


# Opset -> the IR version of the ONNX release that introduced it (what a runtime supporting
# the opset reads), so a model is not marked newer than it needs to be.
IR_VERSIONS = {13: 7, 14: 7, 15: 8, 16: 8, 17: 8, 18: 8, 19: 9, 20: 9}


def make_model(builder, inputs, outputs, graph_name):
    graph = helper.make_graph(builder.nodes, graph_name, inputs, outputs, initializer=builder.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', builder.opset)],
                              producer_name='rensa')
    model.ir_version = IR_VERSIONS[builder.opset]
    onnx.checker.check_model(model)
    return model
