"""chainer.utils.type_check: the expression language of ``check_type_forward``.

``in_types`` is a tuple of named expressions (``in_types[0]``, ...) over the inputs' shape,
dtype, ndim and size. Operators on expressions build a tree instead of computing a value;
``expect(*conditions)`` evaluates each comparison and raises InvalidType naming the
condition as written and the values found, in Chainer's wording::

    type_check.expect(in_types.size() == 2)
    x, w = in_types
    type_check.expect(x.dtype.kind == 'f', x.ndim == 2, x.shape[1] == w.shape[1])

gives ``Expect: in_types[0].shape[1] == in_types[1].shape[1]`` / ``Actual: 3 != 4``.
"""
import functools
import operator
import threading

import numpy

__all__ = ['Expr', 'Constant', 'Variable', 'GetAttr', 'GetItem', 'Call', 'UnaryOperator',
           'BinaryOperator', 'BoolBinaryOperator', 'Testable', 'TypeInfo', 'TypeInfoTuple',
           'InvalidType', 'expect', 'eval', 'make_variable', 'get_types', 'same_types', 'argname',
           'prod']

_local = threading.local()

# Operator priorities, as Python binds them (higher binds tighter); comparisons are lowest.
_ATOM = 8
_COMPARISON = -1


def _evaluate(value):
    if isinstance(value, Expr):
        return value.eval()
    if isinstance(value, (list, tuple)):
        return type(value)(_evaluate(v) for v in value)
    return value


def _text(value):
    if isinstance(value, Expr):
        return str(value)
    if isinstance(value, list):
        return '[{}]'.format(', '.join(_text(v) for v in value))
    if isinstance(value, tuple):
        if len(value) == 1:
            return '({},)'.format(_text(value[0]))
        return '({})'.format(', '.join(_text(v) for v in value))
    return str(value)


def _subscript(key):
    # x[1:], x[::2], x[0, :] as written.
    if isinstance(key, slice):
        start, stop, step = ('' if v is None else _text(v) for v in (key.start, key.stop, key.step))
        return '{}:{}'.format(start, stop) + (':' + step if key.step is not None else '')
    if isinstance(key, tuple):
        return ', '.join(_subscript(k) for k in key)
    if key is Ellipsis:
        return '...'
    return _text(key)


class Expr(object):
    """A node of an expression tree. ``eval()`` computes its value, ``str()`` shows it as
    written. Comparisons give a Testable node, so ``bool(expr)`` is an error: pass
    conditions to ``expect`` (or call ``eval``)."""

    def __init__(self, priority):
        self.priority = priority

    def eval(self):
        """The value of the expression, computed from the values of its terms."""
        raise NotImplementedError('{}.eval is not implemented'.format(type(self).__name__))

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)  # keeps copy, pickle and numpy's protocol probes working
        return GetAttr(self, name)

    def __getitem__(self, key):
        return GetItem(self, key)

    def __call__(self, *args):
        return Call(self, args)

    def __iter__(self):
        # Without this, iterating would call __getitem__ with 0, 1, 2, ... for ever.
        raise TypeError('An Expr instance is not iterable: its length is known only when it is evaluated')

    def __bool__(self):
        raise RuntimeError('An Expr instance cannot be evaluated as bool. '
                           'Please use chainer.utils.type_check.eval() to evaluate an expression.')

    __hash__ = object.__hash__


def _comparison(symbol, inverse, func):
    def make(self, other):
        return BoolBinaryOperator(self, other, symbol, inverse, func)
    return make


def _binary(symbol, priority, func, right_associative=False):
    def make(self, other):
        return BinaryOperator(priority, self, other, symbol, func, right_associative)

    def make_reflected(self, other):
        return BinaryOperator(priority, other, self, symbol, func, right_associative)
    return make, make_reflected


def _unary(symbol, func):
    def make(self):
        return UnaryOperator(6, self, symbol, func)
    return make


class Atom(Expr):
    """An expression that needs no parentheses: a constant, a variable, an attribute, an item or a
    call."""

    def __init__(self):
        super().__init__(_ATOM)


class Constant(Atom):
    """A literal value."""

    def __init__(self, value):
        super().__init__()
        self.value = value

    def __str__(self):
        return _text(self.value)

    def eval(self):
        return self.value


class Variable(Atom):
    """A named value (``in_types[0]``)."""

    def __init__(self, value, name):
        super().__init__()
        self.value = value
        self.name = name

    def __str__(self):
        return self.name

    def eval(self):
        return self.value


class GetAttr(Atom):
    """``obj.name``."""

    def __init__(self, obj, name):
        super().__init__()
        self.obj = obj
        self.name = name

    def __str__(self):
        name = self.name if isinstance(self.name, str) else _text(self.name)
        return '{}.{}'.format(self._inner(self.obj), name)

    def _inner(self, obj):
        return _text(obj) if not isinstance(obj, Expr) or obj.priority >= _ATOM else '({})'.format(obj)

    def eval(self):
        return getattr(_evaluate(self.obj), _evaluate(self.name))


class GetItem(GetAttr):
    """``obj[key]``."""

    def __init__(self, obj, key):
        super().__init__(obj, None)
        self.key = key

    def __str__(self):
        return '{}[{}]'.format(self._inner(self.obj), _subscript(self.key))

    def eval(self):
        return _evaluate(self.obj)[_evaluate(self.key)]


class Call(GetAttr):
    """``obj(*args)``."""

    def __init__(self, obj, args):
        super().__init__(obj, None)
        self.args = args

    def __str__(self):
        return '{}({})'.format(self._inner(self.obj), ', '.join(_text(a) for a in self.args))

    def eval(self):
        return _evaluate(self.obj)(*[_evaluate(a) for a in self.args])


class UnaryOperator(Expr):
    """A unary operator applied to an expression (``-x``, ``+x``, ``~x``)."""

    def __init__(self, priority, term, symbol, func):
        super().__init__(priority)
        self.term = term
        self.exp = symbol
        self.func = func

    def __str__(self):
        term = _text(self.term)
        if isinstance(self.term, Expr) and self.term.priority < self.priority:
            term = '({})'.format(term)
        return self.exp + term

    def eval(self):
        return self.func(_evaluate(self.term))


class BinaryOperator(Expr):
    """A binary arithmetic or bitwise operator between two expressions (``x.ndim - 1``,
    ``x.shape[0] * 2``); ``str()`` puts parentheses where the priorities need them."""

    def __init__(self, priority, lhs, rhs, symbol, func, right_associative=False):
        super().__init__(priority)
        self.lhs = lhs
        self.rhs = rhs
        self.exp = symbol
        self.func = func
        self.right_associative = right_associative

    def _side(self, term, is_left):
        text = _text(term)
        if not isinstance(term, Expr):
            return text
        # The side an operator of equal priority would re-associate on needs parentheses.
        loose = term.priority < self.priority or (
            term.priority == self.priority and is_left == self.right_associative)
        return '({})'.format(text) if loose else text

    def __str__(self):
        return '{} {} {}'.format(self._side(self.lhs, True), self.exp, self._side(self.rhs, False))

    def eval(self):
        return self.func(_evaluate(self.lhs), _evaluate(self.rhs))


class Testable(object):
    """A condition ``expect`` can test."""

    def expect(self):
        """Raises InvalidType when the condition does not hold."""
        raise NotImplementedError


class BoolBinaryOperator(BinaryOperator, Testable):
    """A comparison; ``expect()`` raises InvalidType when it does not hold."""

    def __init__(self, lhs, rhs, symbol, inverse, func):
        super().__init__(_COMPARISON, lhs, rhs, symbol, func)
        self.inv = inverse

    def expect(self):
        """Evaluates both sides and raises InvalidType when the comparison does not hold; the error
        shows the condition as written and the values found (``Expect: in_types[0].ndim == 2``,
        ``Actual: 3 != 2``)."""
        left, right = _evaluate(self.lhs), _evaluate(self.rhs)
        if not self.func(left, right):
            raise InvalidType('{} {} {}'.format(_text(self.lhs), self.exp, _text(self.rhs)),
                              '{} {} {}'.format(_text(left), self.inv, _text(right)))


for _name, _symbol, _inverse, _func in (('eq', '==', '!=', operator.eq), ('ne', '!=', '==', operator.ne),
                                        ('lt', '<', '>=', operator.lt), ('le', '<=', '>', operator.le),
                                        ('gt', '>', '<=', operator.gt), ('ge', '>=', '<', operator.ge)):
    setattr(Expr, '__{}__'.format(_name), _comparison(_symbol, _inverse, _func))
for _name, _symbol, _priority, _func in (('add', '+', 4, operator.add), ('sub', '-', 4, operator.sub),
                                         ('mul', '*', 5, operator.mul), ('truediv', '/', 5, operator.truediv),
                                         ('floordiv', '//', 5, operator.floordiv), ('mod', '%', 5, operator.mod),
                                         ('lshift', '<<', 3, operator.lshift), ('rshift', '>>', 3, operator.rshift),
                                         ('and', '&', 2, operator.and_), ('xor', '^', 1, operator.xor),
                                         ('or', '|', 0, operator.or_)):
    _make, _reflected = _binary(_symbol, _priority, _func)
    setattr(Expr, '__{}__'.format(_name), _make)
    setattr(Expr, '__r{}__'.format(_name), _reflected)
Expr.__pow__, Expr.__rpow__ = _binary('**', 7, operator.pow, right_associative=True)
Expr.__neg__ = _unary('-', operator.neg)
Expr.__pos__ = _unary('+', operator.pos)
Expr.__invert__ = _unary('~', operator.invert)


class InvalidType(Exception):
    """Raised when inputs do not satisfy a function's type check; ``expect`` and
    ``actual`` are the condition as written and the values found."""

    def __init__(self, expect, actual, msg=None):
        if msg is None:
            msg = 'Expect: {}\nActual: {}'.format(expect, actual)
            function = getattr(_local, 'current_function', None)
            if function is not None:
                msg = '\nInvalid operation is performed in: {} (Forward)\n\n{}'.format(function.label, msg)
        super().__init__(msg)
        self.expect = expect
        self.actual = actual

    def __reduce__(self):
        return (InvalidType, (self.expect, self.actual, self.args[0]))


class TypeInfo(object):
    """The shape, dtype, ndim and size of one input."""

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = None if dtype is None else numpy.dtype(dtype)
        self.ndim = len(self.shape)

    @property
    def size(self):
        """The number of elements (the product of the shape)."""
        return functools.reduce(operator.mul, self.shape, 1)


class TypeInfoTuple(tuple):
    """The inputs' TypeInfo expressions; ``size()`` is an expression of their number."""

    name = 'in_types'

    def size(self):
        """An expression of the number of inputs, shown as ``in_types.size``."""
        return Variable(len(self), '{}.size'.format(self.name))


def get_types(data, name, accept_none):
    """The TypeInfoTuple of a tuple of arrays (None entries allowed with accept_none)."""
    infos = []
    for i, array in enumerate(data):
        label = '{}[{}]'.format(name, i)
        if array is None:
            if not accept_none:
                raise InvalidType('{} is an array'.format(label), '{} is None'.format(label))
            infos.append(Variable(TypeInfo((), None), label))
        else:
            infos.append(Variable(TypeInfo(array.shape, array.dtype), label))
    out = TypeInfoTuple(infos)
    out.name = name
    return out


def expect(*conditions):
    """Tests each condition in order; raises InvalidType at the first that fails. A plain
    bool is accepted as well (False fails without a description)."""
    for condition in conditions:
        if isinstance(condition, Testable):
            condition.expect()
        elif isinstance(condition, (bool, numpy.bool_)):
            if not condition:
                raise InvalidType('', '')
        else:
            raise TypeError('type_check.expect: expected comparisons of type_check expressions, got {}'.format(
                type(condition).__name__))


def eval(expression):  # noqa: A001  (Chainer's name)
    """The value of an expression (a non-expression is returned as is)."""
    return _evaluate(expression)


def make_variable(value, name):
    """A named expression over ``value``."""
    return Variable(value, name)


def same_types(*arrays):
    """Whether all arrays are numpy arrays, or all are device arrays."""
    if all(isinstance(a, numpy.ndarray) for a in arrays):
        return True
    from rensa import _core
    return all(isinstance(a, _core.ndarray) for a in arrays)


def argname(in_types, names):
    """Names the inputs (``x``, ``W`` instead of ``in_types[0]``, ...) in messages; raises
    InvalidType when the numbers differ."""
    if len(in_types) != len(names):
        raise InvalidType('{} argument(s)'.format(len(names)), '{} argument(s)'.format(len(in_types)),
                          'Invalid number of arguments')
    for info, name in zip(in_types, names):
        if isinstance(info, Variable):
            info.name = name


_argname = argname


def _product(values):
    return functools.reduce(operator.mul, values, 1)


def prod(values):
    """The product of ``values``: an expression, shown as ``prod(...)``, when ``values`` is
    one (``prod(x.shape)``), else the number."""
    if isinstance(values, Expr):
        return Call(Variable(_product, 'prod'), (values,))
    return _product([_evaluate(v) for v in values])


class _CurrentFunction(object):
    # Names `function` in the InvalidType messages raised inside the scope.

    def __init__(self, function):
        self.function = function

    def __enter__(self):
        self.previous = getattr(_local, 'current_function', None)
        _local.current_function = self.function

    def __exit__(self, *args):
        _local.current_function = self.previous
