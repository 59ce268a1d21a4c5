"""The record walk of rensa.onnx.export (private; imported only with onnx present)."""
import numpy

from rensa import _core
from rensa.onnx import UnsupportedFunctionError, _numpy
from rensa.onnx import _graph, _ops_array, _ops_math, _ops_nn

# Note [ONNX dynamic batch]: the recorded run has fixed shapes, so anything shaped that the
# exporter writes as a constant would freeze the traced batch size. Graph inputs and outputs
# take dim names from dynamic_axes; every Reshape writes its leading length as 0 (copy the
# input's: the batch passes through) or -1 (inferred: the batch is folded into it) rather
# than the traced number, and broadcast_to's Expand writes 1 where the input keeps its
# length. What stays frozen: constants computed by the model itself (an LSTM's zero initial
# state: its shape is in its values), split sizes along the batch axis, sum_to targets.


def converters():
    """Label -> converter of every function the exporter maps."""
    table = {}
    for family in (_ops_math, _ops_array, _ops_nn):
        table.update(family.CONVERTERS)
    return table


def _describe(arrays):
    return ', '.join('{}{}'.format(numpy.dtype(a.dtype).name, tuple(a.shape)) if a is not None else 'None'
                     for a in arrays)


def _flatten_outputs(result, output_names):
    """The model's outputs as a list of arrays, and default names (a dict's keys)."""
    if isinstance(result, dict):
        keys = list(result)
        return [result[k] for k in keys], [str(k) for k in keys]
    values = list(result) if isinstance(result, (tuple, list)) else [result]
    return values, ['output_{}'.format(i) for i in range(len(values))]


def _named_arrays(model):
    """(key, name, array) of the model's parameters, then its persistent arrays ('/path/name')."""
    out = []
    if not (hasattr(model, 'namedparams') and hasattr(model, 'namedlinks')):  # not a link (a function)
        return out
    for name, param in model.namedparams():
        if param.array is not None:
            out.append((name, param.array))
    for path, link in model.namedlinks():
        for key, value in link._own_persistents():
            if hasattr(value, 'shape') and hasattr(value, 'dtype'):
                out.append((path.rstrip('/') + '/' + key, value))
    return out


def _dynamic_dims(dynamic_axes, name, ndim):
    """{axis: dim_name} for graph value `name` from torch-style dynamic_axes."""
    spec = (dynamic_axes or {}).get(name)
    if spec is None:
        return {}
    if isinstance(spec, dict):
        dims = {int(k): str(v) for k, v in spec.items()}
    elif isinstance(spec, (list, tuple)):
        dims = {int(k): '{}_dynamic_axes_{}'.format(name, int(k)) for k in spec}
    else:
        raise ValueError('rensa.onnx.export: dynamic_axes[{!r}] must be a dict {{axis: name}} or a list of axes, '
                         'got {!r}'.format(name, spec))
    for axis in dims:
        if not -ndim <= axis < ndim:
            raise ValueError('rensa.onnx.export: dynamic_axes[{!r}] names axis {} of a {}-dimensional value'
                             .format(name, axis, ndim))
    return {axis % ndim: dim for axis, dim in dims.items()}


def _value_info(name, array, dynamic_axes):
    dims = _dynamic_dims(dynamic_axes, name, array.ndim)
    return _graph.value_info(name, array.dtype, [dims.get(i, int(n)) for i, n in enumerate(array.shape)])


def _live_records(records, output_keys):
    """The records some output depends on, in order (dead ones, e.g. a loss, are skipped)."""
    needed, live = set(output_keys), []
    for record in reversed(records):
        if any(y is not None and _core._array_key(y) in needed for y in record['outputs']):
            live.append(record)
            needed.update(_core._array_key(x) for x in record['inputs'] if x is not None)
    live.reverse()
    return live


def _names(given, defaults, what):
    if given is None:
        return defaults
    given = list(given)
    if len(given) != len(defaults):
        raise ValueError('rensa.onnx.export: {} has {} names for {} {}s'.format(what, len(given), len(defaults),
                                                                               what.split('_')[0]))
    return [str(n) for n in given]


def build_model(model, inputs, result, records, opset, input_names, output_names, dynamic_axes, graph_name):
    g = _graph.GraphBuilder(opset)
    table = converters()
    outputs, default_output_names = _flatten_outputs(result, output_names)
    input_names = _names(input_names, ['input_{}'.format(i) for i in range(len(inputs))], 'input_names')
    output_names = _names(output_names, default_output_names, 'output_names')
    known = set(input_names) | set(output_names)
    for name in dynamic_axes or {}:
        if name not in known:
            raise ValueError('rensa.onnx.export: dynamic_axes names {!r}, which is none of the inputs {} or outputs {}'
                             .format(name, input_names, output_names))

    # The ONNX name of each array by identity (Note [ONNX recording] in autograd/function_hook.h).
    graph_inputs = []
    source = {}  # key -> ONNX name of a graph input or parameter
    for name, x in zip(input_names, inputs):
        x = _numpy(x)
        source[_core._array_key(x)] = g.reserve(name)
        graph_inputs.append(_value_info(name, x, dynamic_axes))
    for name in output_names:
        g.reserve(name)
    named = {}
    for name, array in _named_arrays(model):
        named.setdefault(_core._array_key(array), (name, array))
    produced = {}  # key -> ONNX name of a recorded output

    def input_name(x):
        key = _core._array_key(x)
        if key in produced:
            return produced[key]
        if key in source:
            return source[key]
        if key in named:  # a parameter or persistent: an initializer at first use
            name, array = named.pop(key)
            source[key] = g.initializer(_numpy(array), name)
            return source[key]
        source[key] = g.initializer(_numpy(x), '/constant')  # made by the model (a zero state...)
        return source[key]

    output_keys = [_core._array_key(_numpy(y)) for y in outputs]
    for record in _live_records(records, output_keys):
        convert = table.get(record['label'])
        if convert is None:
            raise UnsupportedFunctionError(
                'rensa.onnx.export: no ONNX mapping for the function {} (inputs {}); the mapped functions are '
                'listed by rensa.onnx.supported_functions() (python/rensa/onnx/_ops_*.py)'.format(
                    record['label'], _describe(record['inputs'])))
        xs = [input_name(x) for x in record['inputs']]
        try:
            ys = convert(g, record, xs)
        except _graph.AttributeNotExportable as e:
            raise UnsupportedFunctionError('rensa.onnx.export: the function {} (inputs {}) has no ONNX mapping for '
                                           '{}'.format(record['label'], _describe(record['inputs']), e)) from None
        for y, name in zip(record['outputs'], ys):
            produced[_core._array_key(y)] = name

    graph_outputs = []
    for name, y in zip(output_names, outputs):
        y = _numpy(y)
        g.op('Identity', [input_name(y)], outputs=[name])
        graph_outputs.append(_value_info(name, y, dynamic_axes))
    return _graph.make_model(g, graph_inputs, graph_outputs, graph_name)
