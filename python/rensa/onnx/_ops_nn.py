"""Converters of the network layers (private to rensa.onnx): linear, convolution and
deconvolution, pooling, batch and layer normalization, embed_id. See _ops_math for the
signature.
"""
import numpy

from rensa.onnx._graph import AttributeNotExportable


def _linear(g, record, xs):
    # x (N, in), W (out, in), b (out,): Gemm with W transposed (what onnx-chainer emits).
    return [g.op1('Gemm', list(xs), transB=1)]


def _pads(pad):
    return [int(p) for p in pad] * 2  # ONNX: all begins, then all ends


def _convolution(g, record, xs):
    a = record['attributes']
    if a['cover_all']:
        raise AttributeNotExportable('cover_all=True (ONNX Conv has no extra partial window)')
    return [g.op1('Conv', list(xs), strides=list(a['stride']), pads=_pads(a['pad']), dilations=list(a['dilate']),
                  group=int(a['groups']), kernel_shape=list(record['inputs'][1].shape[2:]))]


def _deconvolution(g, record, xs):
    # Chainer's W (in, out / groups, k...) is ConvTranspose's layout; outsize by output_padding.
    a = record['attributes']
    x, W = record['inputs'][0], record['inputs'][1]
    kernel = W.shape[2:]
    output_padding = []
    for i, k in enumerate(kernel):
        s, p, d = a['stride'][i], a['pad'][i], a['dilate'][i]
        natural = (x.shape[2 + i] - 1) * s - 2 * p + d * (k - 1) + 1
        output_padding.append(int(a['outsize'][i] - natural))
    if any(op < 0 or op >= max(a['stride'][i], a['dilate'][i]) for i, op in enumerate(output_padding)):
        raise AttributeNotExportable('outsize {} (output_padding {} out of ConvTranspose\'s range)'.format(
            tuple(a['outsize']), tuple(output_padding)))
    return [g.op1('ConvTranspose', list(xs), strides=list(a['stride']), pads=_pads(a['pad']),
                  dilations=list(a['dilate']), group=int(a['groups']), kernel_shape=list(kernel),
                  output_padding=output_padding)]


def _pool_attributes(a):
    # Chainer's cover_all output length (h + 2p - k + s - 1) // s + 1 is ONNX's ceil_mode one.
    return dict(kernel_shape=list(a['ksize']), strides=list(a['stride']), pads=_pads(a['pad']),
                ceil_mode=int(a['cover_all']))


def _max_pooling(g, record, xs):
    return [g.op1('MaxPool', [xs[0]], **_pool_attributes(record['attributes']))]


def _average_pooling(g, record, xs):
    a = record['attributes']
    return [g.op1('AveragePool', [xs[0]], count_include_pad=int(not a['exclude_pad']), **_pool_attributes(a))]


def _channel_axes_default(axis, ndim):
    return list(axis) == [0] + list(range(2, ndim))


def _fixed_batch_normalization(g, record, xs):
    # inputs x, gamma, beta, mean, var. Chainer's default axes (all but 1) are ONNX's layout;
    # other axes: the formula over parameters reshaped to x's kept shape.
    a = record['attributes']
    x = record['inputs'][0]
    eps = float(a['eps'])
    if _channel_axes_default(a['axis'], x.ndim):
        return [g.op1('BatchNormalization', list(xs), epsilon=eps)]
    keep = [1 if i in set(a['axis']) else int(n) for i, n in enumerate(x.shape)]
    gamma, beta, mean, var = (g.reshape(name, keep) for name in xs[1:5])
    dtype = numpy.dtype(record['outputs'][0].dtype)
    inv_std = g.op1('Reciprocal', [g.op1('Sqrt', [g.op1('Add', [var, g.const(eps, dtype, 'eps')])])])
    centered = g.op1('Sub', [xs[0], mean])
    return [g.op1('Add', [g.op1('Mul', [g.op1('Mul', [centered, inv_std]), gamma]), beta])]


def _layer_normalization(g, record, xs):
    # x (N, units), gamma and beta (units,): over the last axis.
    eps = float(record['attributes']['eps'])
    if g.opset >= 17:
        return [g.op1('LayerNormalization', list(xs), axis=-1, epsilon=eps)]
    dtype = numpy.dtype(record['outputs'][0].dtype)
    mean = g.reduce('ReduceMean', xs[0], [-1], True)
    centered = g.op1('Sub', [xs[0], mean])
    var = g.reduce('ReduceMean', g.op1('Mul', [centered, centered]), [-1], True)
    std = g.op1('Sqrt', [g.op1('Add', [var, g.const(eps, dtype, 'eps')])])
    return [g.op1('Add', [g.op1('Mul', [g.op1('Div', [centered, std]), xs[1]]), xs[2]])]


def _embed_id(g, record, xs):
    # inputs x (ids), W: rows of W, zeros where x == ignore_label.
    ignore = record['attributes'].get('ignore_label')
    if ignore is None:
        return [g.op1('Gather', [xs[1], xs[0]], axis=0)]
    ids_dtype = numpy.dtype(record['inputs'][0].dtype)
    ignored = g.op1('Equal', [xs[0], g.const(ignore, ids_dtype, 'ignore_label')])
    safe_ids = g.op1('Where', [ignored, g.const(0, ids_dtype), xs[0]])
    rows = g.op1('Gather', [xs[1], safe_ids], axis=0)
    zero = g.const(0, numpy.dtype(record['outputs'][0].dtype))
    return [g.op1('Where', [g.unsqueeze(ignored, [-1]), zero, rows])]


CONVERTERS = {
    'LinearFunction': _linear, 'ConvolutionND': _convolution, 'DeconvolutionND': _deconvolution,
    'MaxPooling': _max_pooling, 'AveragePooling': _average_pooling,
    'FixedBatchNormalization': _fixed_batch_normalization, 'LayerNormalization': _layer_normalization,
    'EmbedIDFunction': _embed_id,
}
