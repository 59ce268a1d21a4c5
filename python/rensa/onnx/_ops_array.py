"""Converters of the array-manipulation functions (private to rensa.onnx): reshape,
broadcast, transpose, concat, split, flip, casts, pad, basic indexing. See _ops_math for the signature. where is
not mapped: its node holds the condition (not an input), so the record lacks it.
"""
from rensa.onnx._graph import AttributeNotExportable, tensor_type

_INT64_MAX = 2 ** 63 - 1


def reshape_target(in_shape, out_shape):
    """The Reshape target of ``in_shape`` -> ``out_shape`` with the leading (batch) dimension
    not baked in: 0 (copy the input's) where it is the input's leading length, else -1.
    See Note [ONNX dynamic batch] in python/rensa/onnx/_export.py.
    """
    target = list(out_shape)
    if not target or not in_shape or 0 in in_shape or 0 in target:
        return target
    target[0] = 0 if target[0] == in_shape[0] else -1
    return target


def _reshape(g, record, xs):
    in_shape = tuple(record['inputs'][0].shape)
    return [g.reshape(xs[0], reshape_target(in_shape, record['attributes']['shape']))]


def _broadcast_to(g, record, xs):
    # Expand broadcasts both ways: 1 keeps an input length (so a batch length is not baked in).
    in_shape, shape = tuple(record['inputs'][0].shape), list(record['attributes']['shape'])
    lead = len(shape) - len(in_shape)
    for i, n in enumerate(in_shape):
        if n == shape[lead + i]:
            shape[lead + i] = 1
    return [g.op1('Expand', [xs[0], g.ints(shape)])]


def _transpose(g, record, xs):
    return [g.op1('Transpose', [xs[0]], perm=[int(a) for a in record['attributes']['axes']])]


def _concat(g, record, xs):
    ndim = record['outputs'][0].ndim
    return [g.op1('Concat', list(xs), axis=int(record['attributes']['axis']) % ndim)]


def _split_axis(g, record, xs):
    a = record['attributes']
    x = record['inputs'][0]
    axis = int(a['axis']) % x.ndim
    sizes = [int(y.shape[axis]) for y in record['outputs']]
    return g.op('Split', [xs[0], g.ints(sizes, 'split')], n_outputs=len(sizes), axis=axis)


def _separate(g, record, xs):
    x = record['inputs'][0]
    axis = int(record['attributes']['axis']) % x.ndim
    n = int(x.shape[axis])
    parts = g.op('Split', [xs[0], g.ints([1] * n, 'split')], n_outputs=n, axis=axis)
    return [g.squeeze(p, [axis]) for p in parts]


def _flip(g, record, xs):
    axis = int(record['attributes']['axis']) % record['inputs'][0].ndim
    return [g.op1('Slice', [xs[0], g.ints([-1], 'starts'), g.ints([-_INT64_MAX], 'ends'), g.ints([axis], 'axes'),
                            g.ints([-1], 'steps')])]


def _pad(g, record, xs):
    # numpy's modes ONNX has: constant (one value), edge, reflect (even), wrap (opset 19).
    a = record['attributes']
    mode, widths = a['mode'], list(a['pad_width'])
    pads = widths[0::2] + widths[1::2]  # ONNX: all begins, then all ends
    if a.get('other_keywords') or a.get('reflect_type', 'even') != 'even':
        raise AttributeNotExportable('mode {!r} with these keywords'.format(mode))
    inputs = [xs[0], g.ints(pads, 'pads')]
    if mode == 'constant':
        values = a.get('constant_values', 0.0)
        values = set(values) if isinstance(values, tuple) else {values}
        if len(values) != 1:
            raise AttributeNotExportable('constant_values {} (ONNX Pad takes one value)'.format(
                a['constant_values']))
        inputs.append(g.const(values.pop(), record['outputs'][0].dtype, 'constant_value'))
    elif mode not in ('edge', 'reflect') and not (mode == 'wrap' and g.opset >= 19):
        raise AttributeNotExportable('mode {!r} at opset {}'.format(mode, g.opset))
    return [g.op1('Pad', inputs, mode=mode)]


def parse_slices(text):
    """GetItem's 'slices' attribute ("1, 2:8:2, None, ...") as Python index terms."""
    def number(part):
        return int(part) if part.strip() else None

    terms = []
    for part in (p.strip() for p in text.split(',')) if text.strip() else ():
        if part == '...':
            terms.append(Ellipsis)
        elif part == 'None':
            terms.append(None)
        elif ':' in part:
            terms.append(slice(*(number(p) for p in part.split(':'))))
        else:
            terms.append(int(part))
    return terms


def _get_item(g, record, xs):
    # Basic indexing: one Slice over the sliced axes (a full slice is left out, so a batch
    # axis stays free), Squeeze for integer terms, Unsqueeze for None.
    shape = tuple(record['inputs'][0].shape)
    terms = parse_slices(record['attributes']['slices'])
    consumed = sum(1 for t in terms if t is not None and t is not Ellipsis)
    expanded = []
    for t in terms:
        expanded.extend([slice(None)] * (len(shape) - consumed) if t is Ellipsis else [t])
    expanded.extend([slice(None)] * (len(shape) - sum(1 for t in expanded if t is not None)))
    starts, ends, axes, steps, squeeze, unsqueeze = [], [], [], [], [], []

    def sliced(axis, start, stop, step):
        starts.append(start)
        ends.append(stop)
        axes.append(axis)
        steps.append(step)

    dim = out = 0
    for t in expanded:
        if t is None:
            unsqueeze.append(out)
            out += 1
            continue
        n = shape[dim]
        if isinstance(t, int):
            i = t + n if t < 0 else t
            sliced(dim, i, i + 1, 1)
            squeeze.append(dim)
        elif t != slice(None):
            start, stop, step = t.indices(n)
            if step < 0 and stop < 0:
                stop = -_INT64_MAX  # through element 0
            sliced(dim, start, stop, step)
            out += 1
        else:
            out += 1
        dim += 1
    y = xs[0]
    if axes:
        y = g.op1('Slice', [y, g.ints(starts, 'starts'), g.ints(ends, 'ends'), g.ints(axes, 'axes'),
                            g.ints(steps, 'steps')])
    if squeeze:
        y = g.squeeze(y, squeeze)
    if unsqueeze:
        y = g.unsqueeze(y, unsqueeze)
    return [y if y != xs[0] else g.op1('Identity', [y])]


def _cast(g, record, xs):
    return [g.op1('Cast', [xs[0]], to=tensor_type(record['outputs'][0].dtype))]


CONVERTERS = {
    'Reshape': _reshape, 'BroadcastTo': _broadcast_to, 'Transpose': _transpose, 'Concat': _concat,
    'SplitAxis': _split_axis, 'Separate': _separate, 'Flip': _flip, 'Cast': _cast, 'AsType': _cast, 'Pad': _pad,
    'GetItem': _get_item,
}
