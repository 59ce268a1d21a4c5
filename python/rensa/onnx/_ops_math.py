"""Converters of the elementwise functions, activations and reductions (private to rensa.onnx).

Each converter takes (g, record, xs): the GraphBuilder, the record of one applied
FunctionNode (its label, attributes, input and output arrays) and the ONNX names of its
inputs, and returns the ONNX names of its outputs, one per recorded output.
"""
import math

import numpy


def _dtype(record):
    return numpy.dtype(record['outputs'][0].dtype)


def _unary(op_type):
    def convert(g, record, xs):
        return [g.op1(op_type, [xs[0]])]
    return convert


def _binary(op_type):
    def convert(g, record, xs):
        return [g.op1(op_type, [xs[0], xs[1]])]
    return convert


def _with_constant(op_type, constant_first):
    # x op c or c op x, c from the 'value' attribute in the output's dtype (Note [ONNX recording]).
    def convert(g, record, xs):
        c = g.const(record['attributes']['value'], _dtype(record), 'value')
        return [g.op1(op_type, [c, xs[0]] if constant_first else [xs[0], c])]
    return convert


def _scaled(op_type, scale_op, scale):
    # scale_op(op_type(x), scale): log2, log10 (a Div by the log of the base).
    def convert(g, record, xs):
        y = g.op1(op_type, [xs[0]])
        return [g.op1(scale_op, [y, g.const(scale, _dtype(record))])]
    return convert


def _square(g, record, xs):
    return [g.op1('Mul', [xs[0], xs[0]])]


def _rsqrt(g, record, xs):
    return [g.op1('Reciprocal', [g.op1('Sqrt', [xs[0]])])]


def _expm1(g, record, xs):
    return [g.op1('Sub', [g.op1('Exp', [xs[0]]), g.const(1, _dtype(record))])]


def _log1p(g, record, xs):
    return [g.op1('Log', [g.op1('Add', [xs[0], g.const(1, _dtype(record))])])]


def _squared_difference(g, record, xs):
    d = g.op1('Sub', [xs[0], xs[1]])
    return [g.op1('Mul', [d, d])]


def _leaky_relu(g, record, xs):
    return [g.op1('LeakyRelu', [xs[0]], alpha=float(record['attributes']['slope']))]


def _elu(g, record, xs):
    return [g.op1('Elu', [xs[0]], alpha=float(record['attributes']['alpha']))]


def _clipped_relu(g, record, xs):
    dtype = _dtype(record)
    return [g.op1('Clip', [xs[0], g.const(0, dtype, 'min'), g.const(record['attributes']['z'], dtype, 'max')])]


def _clip(g, record, xs):
    a, dtype = record['attributes'], _dtype(record)
    return [g.op1('Clip', [xs[0], g.const(a['x_min'], dtype, 'min'), g.const(a['x_max'], dtype, 'max')])]


def _softplus(g, record, xs):
    # Chainer's softplus(x, beta) = log(1 + exp(beta x)) / beta.
    beta = float(record['attributes']['beta'])
    if beta == 1.0:
        return [g.op1('Softplus', [xs[0]])]
    dtype = _dtype(record)
    y = g.op1('Softplus', [g.op1('Mul', [xs[0], g.const(beta, dtype, 'beta')])])
    return [g.op1('Div', [y, g.const(beta, dtype, 'beta')])]


def _hard_sigmoid(g, record, xs):
    # Chainer's hard_sigmoid: clip(0.2 x + 0.5, 0, 1).
    return [g.op1('HardSigmoid', [xs[0]], alpha=0.2, beta=0.5)]


def _gelu(g, record, xs):
    # Chainer's gelu: x * Phi(x) = 0.5 x (1 + erf(x / sqrt(2))); opset 20 has it as one op.
    if g.opset >= 20:
        return [g.op1('Gelu', [xs[0]])]
    dtype = _dtype(record)
    e = g.op1('Erf', [g.op1('Div', [xs[0], g.const(math.sqrt(2.0), dtype)])])
    half_x = g.op1('Mul', [xs[0], g.const(0.5, dtype)])
    return [g.op1('Mul', [half_x, g.op1('Add', [e, g.const(1.0, dtype)])])]


def _softmax(op_type):
    def convert(g, record, xs):
        return [g.op1(op_type, [xs[0]], axis=int(record['attributes']['axis']))]
    return convert


def _prelu(g, record, xs):
    # Chainer's W has the shape of x.shape[1:1 + W.ndim]; ONNX broadcasts slope from the right.
    x, W = record['inputs'][0], record['inputs'][1]
    trailing = x.ndim - 1 - W.ndim
    slope = xs[1] if trailing == 0 else g.reshape(xs[1], tuple(W.shape) + (1,) * trailing)
    return [g.op1('PRelu', [xs[0], slope])]


def _reduce(op_type):
    # Sum / Max / Min with Chainer's axis (absent: all axes) and keepdims.
    def convert(g, record, xs):
        a = record['attributes']
        axes = a.get('axis')
        if axes is not None:
            ndim = record['inputs'][0].ndim
            axes = [ax % ndim for ax in axes] if ndim else []
            if not axes:
                return [g.op1('Identity', [xs[0]])]
        return [g.reduce(op_type, xs[0], axes, a['keepdims'])]
    return convert


def _sum_to(g, record, xs):
    # Chainer's sum_to: the leading axes and the axes of length 1 in `shape` summed away.
    in_shape, shape = tuple(record['inputs'][0].shape), tuple(record['attributes']['shape'])
    lead = len(in_shape) - len(shape)
    axes = list(range(lead)) + [lead + i for i, n in enumerate(shape) if n == 1 and in_shape[lead + i] != 1]
    y = g.reduce('ReduceSum', xs[0], axes, True) if axes else xs[0]
    return [g.reshape(y, shape)]


def _matmul(g, record, xs):
    a = record['attributes']
    names = []
    for name, array, trans in ((xs[0], record['inputs'][0], a['transa']), (xs[1], record['inputs'][1], a['transb'])):
        if trans and array.ndim >= 2:
            perm = list(range(array.ndim))
            perm[-1], perm[-2] = perm[-2], perm[-1]
            name = g.op1('Transpose', [name], perm=perm)
        names.append(name)
    return [g.op1('MatMul', names)]


CONVERTERS = {
    'ReLU': _unary('Relu'), 'Sigmoid': _unary('Sigmoid'), 'Tanh': _unary('Tanh'),
    'Exp': _unary('Exp'), 'Log': _unary('Log'), 'Sqrt': _unary('Sqrt'), 'Neg': _unary('Neg'),
    'Absolute': _unary('Abs'), 'Sin': _unary('Sin'), 'Cos': _unary('Cos'), 'Tan': _unary('Tan'),
    'Arcsin': _unary('Asin'), 'Arccos': _unary('Acos'), 'Arctan': _unary('Atan'), 'Arctanh': _unary('Atanh'),
    'Sinh': _unary('Sinh'), 'Cosh': _unary('Cosh'), 'Erf': _unary('Erf'),
    'Identity': _unary('Identity'), 'Copy': _unary('Identity'),
    'Square': _square, 'Rsqrt': _rsqrt, 'Expm1': _expm1, 'Log1p': _log1p,
    'Log2': _scaled('Log', 'Div', math.log(2.0)), 'Log10': _scaled('Log', 'Div', math.log(10.0)),
    'Add': _binary('Add'), 'Sub': _binary('Sub'), 'Mul': _binary('Mul'), 'Div': _binary('Div'),
    'Pow': _binary('Pow'), 'Maximum': _binary('Max'), 'Minimum': _binary('Min'),
    'SquaredDifference': _squared_difference,
    'AddConstant': _with_constant('Add', False), 'SubConstant': _with_constant('Sub', False),
    'SubFromConstant': _with_constant('Sub', True), 'MulConstant': _with_constant('Mul', False),
    'DivByConstant': _with_constant('Div', False), 'DivFromConstant': _with_constant('Div', True),
    'PowByConstant': _with_constant('Pow', False), 'PowFromConstant': _with_constant('Pow', True),
    'LeakyReLU': _leaky_relu, 'ELU': _elu, 'ClippedReLU': _clipped_relu, 'Clip': _clip,
    'Softplus': _softplus, 'HardSigmoid': _hard_sigmoid, 'GELU': _gelu, 'PReLU': _prelu,
    'Softmax': _softmax('Softmax'), 'LogSoftmax': _softmax('LogSoftmax'),
    'Sum': _reduce('ReduceSum'), 'Max': _reduce('ReduceMax'), 'Min': _reduce('ReduceMin'),
    'SumTo': _sum_to, 'MatMul': _matmul,
}
