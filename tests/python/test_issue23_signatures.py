"""Every public name of Chainer 7.8.1's chainer.functions and chainer.links exists in rensa
with Chainer's signature (issue 23): a function's, a link's constructor and its forward.

The names and signatures are tests/python/chainer_signatures.json, written from real
Chainer by scripts/chainer_signatures.py. Each test reports every missing name and every
difference at once, in one failure message.
"""
import ast
import inspect
import json
import os
import re
import types

import pytest

import rensa.functions as F
import rensa.links as L

# Note [Signatures of bound functions]: pybind11's functions and methods have no
# inspect.signature, so this test reads the signature lines pybind11 writes at the top of
# their docstrings (``relu(x: rensa._core.Variable) -> rensa._core.Variable``; an overloaded
# function has one numbered line per overload). The docstring is what pybind11 builds from the
# py::arg names and defaults of the binding itself, so it cannot drift from the binding, and
# no binding has to carry a second, hand-written signature. A name matches when one of its
# overloads matches Chainer's signature; a class's overload ``__init__(self, _source)`` (the
# copy constructor rensa.link uses for Link.copy) is internal and skipped. pybind11 names
# every ``*args`` ``args`` and every ``**kwargs`` ``kwargs``, so those two kinds are compared
# by kind only. Where Chainer takes ``**kwargs`` rensa may spell the options out as
# keyword-only parameters (``dilate=1, groups=1``); anywhere else an extra parameter is a
# difference.

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, 'chainer_signatures.json')

# Names of Chainer left out of rensa on purpose, with the reason (README lists them too).
LEFT_OUT = {
    'links': {
        'TheanoFunction': 'wraps a Theano graph; cannot be built without Theano, which is not maintained',
    },
}

POSITIONAL_ONLY = 'POSITIONAL_ONLY'
POSITIONAL_OR_KEYWORD = 'POSITIONAL_OR_KEYWORD'
VAR_POSITIONAL = 'VAR_POSITIONAL'
KEYWORD_ONLY = 'KEYWORD_ONLY'
VAR_KEYWORD = 'VAR_KEYWORD'


def load_table():
    with open(TABLE) as f:
        return json.load(f)


# --- Reading rensa's signatures ------------------------------------------------------------


def split_top_level(text):
    """``text`` split at the commas outside brackets and quotes."""
    parts, depth, quote, start = [], 0, None, 0
    for i, c in enumerate(text):
        if quote:
            if c == quote and text[i - 1] != '\\':
                quote = None
        elif c in '\'"':
            quote = c
        elif c in '([{<':
            depth += 1
        elif c in ')]}>':
            depth -= 1
        elif c == ',' and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return parts


def parameter_list(text):
    """The text inside a signature line's parentheses closing at the first balanced ')'."""
    depth = 0
    for i, c in enumerate(text):
        if c == '(':
            depth += 1
        elif c == ')':
            depth -= 1
            if depth == 0:
                return text[text.index('(') + 1:i]
    raise ValueError('unbalanced signature line: %r' % text)


def parse_signature_line(line):
    """[(name, kind, default repr or None)] of one pybind11 signature line."""
    params, kind = [], POSITIONAL_OR_KEYWORD
    for part in split_top_level(parameter_list(line)):
        if part == '*':
            kind = KEYWORD_ONLY
            continue
        if part == '/':
            params = [(n, POSITIONAL_ONLY, d) for n, _, d in params]
            continue
        if part.startswith('**'):
            params.append((part[2:].split(':')[0].strip(), VAR_KEYWORD, None))
            continue
        if part.startswith('*'):
            params.append((part[1:].split(':')[0].strip(), VAR_POSITIONAL, None))
            kind = KEYWORD_ONLY
            continue
        head, _, default = part.partition(' = ')
        params.append((head.split(':')[0].strip(), kind, default.strip() if default else None))
    return params


def docstring_overloads(doc, name):
    """The parameter lists of the signature lines of a pybind11 docstring."""
    lines = (doc or '').splitlines()
    pattern = re.compile(r'^(\d+\. )?%s\(' % re.escape(name))
    found = [parse_signature_line(line.split('. ', 1)[1] if line[:1].isdigit() else line)
             for line in lines if pattern.match(line)]
    if len(lines) > 1 and lines[1] == 'Overloaded function.':
        return found[1:]  # the numbered lines after the generic (*args, **kwargs)
    return found[:1]


def python_parameters(func, drop_self):
    params = list(inspect.signature(func).parameters.values())
    if drop_self:
        params = params[1:]
    return [(p.name, p.kind.name, None if p.default is inspect.Parameter.empty else default_repr(p.default))
            for p in params]


def default_repr(value):
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType)):
        return '<function %s>' % value.__name__
    return repr(value)


def rensa_overloads(obj):
    """The signatures (lists of (name, kind, default)) rensa's object accepts.

    pybind11's signature lines first: rensa.link wraps the bound __init__ of links in a Python
    function that keeps the bound one's docstring.
    """
    if inspect.isclass(obj):
        overloads = [params[1:] for params in docstring_overloads(obj.__init__.__doc__, '__init__')]
        if overloads:
            return [params for params in overloads if [p[0] for p in params] != ['_source']]
        return [python_parameters(obj.__init__, drop_self=True)]
    overloads = docstring_overloads(obj.__doc__, getattr(obj, '__name__', ''))
    return overloads or [python_parameters(obj, drop_self=False)]


# --- Comparing ----------------------------------------------------------------------------


def normalize_default(text):
    """A comparable form of a default's repr: the value for literals, else a canonical text."""
    if text is None:
        return None
    function = re.match(r'^<(?:built-in )?(?:function|method) (\w+)', text)
    if function:
        return ('function', function.group(1))
    dtype = re.match(r"^(?:<class 'numpy\.(\w+)'>|dtype\('(\w+)'\)|numpy\.(\w+))$", text)
    if dtype:
        return ('dtype', next(g for g in dtype.groups() if g))
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return ('text', text)
    if isinstance(value, list):
        value = tuple(value)
    if isinstance(value, bool) or value is None:
        return ('literal', repr(value))  # False is not 0
    return ('literal', value)


def render(params):
    out, kw_marked = [], False
    for name, kind, default in (tuple(p) + (None,) * (3 - len(p)) for p in params):
        if kind == KEYWORD_ONLY and not kw_marked:
            out.append('*')
        kw_marked = kw_marked or kind in (KEYWORD_ONLY, VAR_POSITIONAL)
        prefix = {VAR_POSITIONAL: '*', VAR_KEYWORD: '**'}.get(kind, '')
        out.append(prefix + name + ('' if default is None else '=' + default))
    return '(' + ', '.join(out) + ')'


def differences(chainer, rensa):
    """What differs between Chainer's parameters and one rensa overload (empty: they match)."""
    chainer = [tuple(p) + (None,) * (3 - len(p)) for p in chainer]
    takes_kwargs = any(kind == VAR_KEYWORD for _, kind, _ in chainer)
    chainer = [p for p in chainer if p[1] != VAR_KEYWORD]
    named = {p[0] for p in chainer}
    extras = [p for p in rensa if p[1] in (KEYWORD_ONLY, VAR_KEYWORD) and p[0] not in named]
    rensa = [p for p in rensa if p not in extras]
    out = []
    if extras and not takes_kwargs:
        out.append('extra keyword-only %s where Chainer takes no **kwargs' % ', '.join(p[0] for p in extras))
    for i in range(max(len(chainer), len(rensa))):
        if i >= len(rensa):
            out.append('missing parameter %s' % render([chainer[i]])[1:-1])
            continue
        if i >= len(chainer):
            out.append('extra parameter %s' % render([rensa[i]])[1:-1])
            continue
        (cname, ckind, cdefault), (rname, rkind, rdefault) = chainer[i], rensa[i]
        if ckind != rkind:
            out.append('parameter %d: %s is %s, Chainer %s %s' % (i, rname, rkind, cname, ckind))
        elif cname != rname and ckind not in (VAR_POSITIONAL, VAR_KEYWORD):
            out.append('parameter %d: named %s, Chainer %s' % (i, rname, cname))
        elif normalize_default(cdefault) != normalize_default(rdefault):
            out.append('parameter %s: default %s, Chainer %s' % (cname, rdefault or '(none)', cdefault or '(none)'))
    return out


def compare_module(key, module):
    """(missing names, {name: differences}) of rensa's module against the table's."""
    table = load_table()[key]
    left_out = LEFT_OUT.get(key, {})
    missing, different = [], {}
    for name, entry in sorted(table.items()):
        if name in left_out:
            continue
        obj = getattr(module, name, None)
        if obj is None:
            missing.append(name)
            continue
        if entry['type'] == 'class' and not inspect.isclass(obj):
            different[name] = ['a class in Chainer, %s in rensa' % type(obj).__name__]
            continue
        found = compare_overloads(entry['parameters'], rensa_overloads(obj))
        if 'forward' in entry:
            found += ['forward: ' + d for d in compare_overloads(entry['forward'], forward_overloads(obj))]
        if found:
            different[name] = found
    return missing, different


def compare_overloads(chainer, overloads):
    """The differences from Chainer's parameters of the rensa overload that is closest."""
    if not overloads:
        return ['no signature found (no docstring signature line, no inspect.signature)']
    found = [differences(chainer, params) for params in overloads]
    best = min(range(len(found)), key=lambda i: len(found[i]))
    if not found[best]:
        return []
    return ['Chainer %s, rensa %s' % (render(chainer), render(overloads[best]))] + found[best]


def forward_overloads(cls):
    """The signatures of a link class's forward, without self."""
    forward = getattr(cls, 'forward', None)
    if forward is None:
        return []
    overloads = [params[1:] for params in docstring_overloads(forward.__doc__, 'forward')]
    return overloads or [python_parameters(forward, drop_self=True)]


def report(key, missing, different):
    lines = []
    if missing:
        lines.append('%d names of chainer.%s missing in rensa: %s' % (len(missing), key, ', '.join(missing)))
    if different:
        lines.append('%d names of chainer.%s with another signature in rensa:' % (len(different), key))
        for name, diffs in sorted(different.items()):
            lines.append('  %s:' % name)
            lines.extend('      ' + d for d in diffs)
    return '\n'.join(lines)


@pytest.mark.parametrize('key, module', [('functions', F), ('links', L)])
def test_names_and_signatures_match_chainer(key, module):
    missing, different = compare_module(key, module)
    assert not missing and not different, '\n' + report(key, missing, different)


def test_table_is_chainers_public_names():
    table = load_table()
    assert table['chainer_version'] == '7.8.1'
    assert len(table['functions']) == 216 and len(table['links']) == 62
    for key, names in LEFT_OUT.items():
        assert set(names) <= set(table[key]), 'left out names that Chainer does not have'


# --- The comparison itself can fail -----------------------------------------------------------


def test_parse_pybind_docstrings():
    doc = ('f(*args, **kwargs)\nOverloaded function.\n\n'
           '1. f(self: A, _source: A) -> None\n\n'
           '2. f(self: A, x: Dict[str, int], ksize: object = None, *, dilate: int = (1, 2), **kwargs) -> None\n')
    overloads = docstring_overloads(doc, 'f')
    assert len(overloads) == 2
    assert overloads[1] == [('self', POSITIONAL_OR_KEYWORD, None), ('x', POSITIONAL_OR_KEYWORD, None),
                            ('ksize', POSITIONAL_OR_KEYWORD, 'None'), ('dilate', KEYWORD_ONLY, '(1, 2)'),
                            ('kwargs', VAR_KEYWORD, None)]
    assert docstring_overloads('g(x: int, /, *args) -> int\n', 'g') == [[('x', POSITIONAL_ONLY, None),
                                                                          ('args', VAR_POSITIONAL, None)]]


def test_differences_are_found():
    chainer = [['x', POSITIONAL_OR_KEYWORD], ['ratio', POSITIONAL_OR_KEYWORD, '0.5']]
    assert differences(chainer, [('x', POSITIONAL_OR_KEYWORD, None), ('ratio', POSITIONAL_OR_KEYWORD, '.5')]) == []
    assert differences(chainer, [('x', POSITIONAL_OR_KEYWORD, None), ('ratio', POSITIONAL_OR_KEYWORD, '0.25')])
    assert differences(chainer, [('x', POSITIONAL_OR_KEYWORD, None), ('r', POSITIONAL_OR_KEYWORD, '0.5')])
    assert differences(chainer, [('x', POSITIONAL_OR_KEYWORD, None)])
    assert differences(chainer, [('x', POSITIONAL_OR_KEYWORD, None), ('ratio', KEYWORD_ONLY, '0.5')])
    with_kwargs = chainer + [['kwargs', VAR_KEYWORD]]
    extra = [('x', POSITIONAL_OR_KEYWORD, None), ('ratio', POSITIONAL_OR_KEYWORD, '0.5'), ('mask', KEYWORD_ONLY, 'None')]
    assert differences(with_kwargs, extra) == []
    assert differences(chainer, extra)  # keyword-only extras only where Chainer takes **kwargs
    assert differences([['x', POSITIONAL_OR_KEYWORD, 'False']], [('x', POSITIONAL_OR_KEYWORD, '0')])
    assert differences([['f', POSITIONAL_OR_KEYWORD, '<function relu>']],
                       [('f', POSITIONAL_OR_KEYWORD, '<built-in method relu of PyCapsule object at 0x1>')]) == []
    assert differences([['xs', VAR_POSITIONAL]], [('args', VAR_POSITIONAL, None)]) == []
    assert differences([['xs', VAR_POSITIONAL]], [('s', POSITIONAL_OR_KEYWORD, None), ('args', VAR_POSITIONAL, None)])


# --- The bindings brought to Chainer's signatures behave as Chainer's -------------------------


def test_fixed_function_signatures_behave_as_chainers():
    import numpy
    a = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    numpy.testing.assert_allclose(F.einsum('ij->ji', a).array, a.T)
    with pytest.raises(ValueError, match='einsum: Expect: the subscripts string as the first operand'):
        F.einsum(a, 'ij->ji')
    with pytest.raises(ValueError, match='einsum: Expect: the subscripts string'):
        F.einsum()
    numpy.testing.assert_array_equal(F.absolute(self=-a).array, a)
    assert F.gumbel_softmax(log_pi=numpy.zeros((2, 3), numpy.float32)).shape == (2, 3)
    x = numpy.ones((1, 1, 2, 2), numpy.float32)
    with pytest.raises(TypeError):
        F.resize_images(x, (3, 3), 'nearest')  # mode is keyword-only, as in Chainer
    assert F.resize_images(x, (3, 3), mode='nearest').shape == (1, 1, 3, 3)
    with pytest.raises(ValueError, match=r"spatial_pyramid_pooling_2d: Expect: pooling in \('max', 'average'\)"):
        F.spatial_pyramid_pooling_2d(x, 1)  # Chainer refuses its own default None too
    gamma, beta = numpy.ones(1, numpy.float32), numpy.zeros(1, numpy.float32)
    with pytest.raises(TypeError):
        F.batch_normalization(x, gamma, beta, 1e-3)  # Chainer's options are **kwargs
    assert F.batch_normalization(x, gamma, beta, eps=1e-3).shape == x.shape
    with pytest.raises(TypeError):
        F.average_pooling_2d(x, 2, None, 0, None)  # no pad_value in Chainer's average_pooling_2d


def test_fixed_link_signatures_behave_as_chainers():
    import numpy
    highway = L.Highway(3)
    x = numpy.random.RandomState(0).randn(2, 3).astype(numpy.float32)
    relu = L.Highway(3, activate=F.relu)  # Chainer's default given explicitly: the C++ relu
    relu.copyparams(highway)
    numpy.testing.assert_allclose(relu(x).array, highway(x).array)
    tanh = L.Highway(3, activate=F.tanh)
    tanh.copyparams(highway)
    assert not numpy.allclose(tanh(x).array, highway(x).array)
    swapped = L.Highway(3, False, F.relu, None, 2.0, 3.0)  # (init_Wh, init_Wt, init_bh): Chainer's order
    numpy.testing.assert_array_equal(swapped.transform.W.array, numpy.full((3, 3), 2.0))
    numpy.testing.assert_array_equal(swapped.plain.b.array, numpy.full(3, 3.0))
    with pytest.raises(TypeError, match='wscale is not supported anymore'):
        L.MLPConvolution2D(2, (3, 4), 3, 1, 0, F.relu, 0.5)
    mlp = L.MLPConvolution2D(2, (3, 4), 3, conv_init=1.0, bias_init=0.5)
    numpy.testing.assert_array_equal(mlp[1].b.array, numpy.full(4, 0.5))
    classifier = L.Classifier(L.Linear(3, 2))
    assert classifier.lossfun is F.softmax_cross_entropy and classifier.accfun is F.accuracy
    numpy.testing.assert_array_equal(L.StatefulGRU(2, 3).W.b.array, numpy.zeros(3))
    with pytest.raises(TypeError):
        L.GRU(3)  # out_size is required, as in Chainer


def test_fixed_forward_signatures_behave_as_chainers():
    import numpy
    rs = numpy.random.RandomState(0)
    e1, e2 = rs.randn(2, 3).astype(numpy.float32), rs.randn(2, 4).astype(numpy.float32)
    bilinear = L.Bilinear(3, 4, 5)
    numpy.testing.assert_allclose(bilinear.forward(e1=e1, e2=e2).array, bilinear(e1, e2).array)
    assert bilinear(e1, e2).shape == (2, 5)
    x = rs.randn(2, 3, 4).astype(numpy.float32)
    linear = L.Linear(4, 2)
    assert linear.forward(x, 2).shape == (2, 3, 2) and linear(x, 2).shape == (2, 3, 2)
    lstm = L.StatelessLSTM(3, 2)
    c, h = lstm.forward(None, None, e1)
    assert c.shape == h.shape == (2, 2)
    assert lstm.forward(c=c, h=h, x=e1)[1].shape == (2, 2)
    gru = L.StatelessGRU(3, 2)
    h0 = numpy.zeros((2, 2), numpy.float32)
    assert gru.forward(h0, e1).shape == (2, 2) and gru.forward(h=h0, x=e1).shape == (2, 2)
