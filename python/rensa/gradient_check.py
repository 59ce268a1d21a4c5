"""rensa.gradient_check: numerical checks of backward (chainer.gradient_check).

As in Chainer, check_backward compares the derivative of the function along one
random direction in the space of its inputs (and params) computed by backward with
central differences of sum(f(x) * y_grad), evaluated in float64. The numerics are
the C++ ones (autograd/gradient_check.h, bound as rensa._core.gradient_check), so
the checks of Python and of C++ cannot disagree; this module gives them Chainer's
signatures. A failed check raises AssertionError.
"""
import numpy

from rensa import _core

__all__ = ['check_backward', 'check_double_backward', 'numerical_grad']

_numerics = _core.gradient_check


def _as_tuple(x):
    if x is None:
        return None
    if isinstance(x, (tuple, list)):
        return tuple(x)
    return (x,)


def _host(x):
    if isinstance(x, _core.Variable):
        x = x.array
    return numpy.asarray(x)


def _params(params):
    if isinstance(params, _core.Variable):
        return [params]
    return list(params)


def numerical_grad(f, inputs, grad_outputs, eps=1e-3, detect_nondifferentiable=False,
                   diff_atol=0, diff_rtol=1e-2, center_outputs=None):
    """Central differences of sum(f() * grad_outputs) w.r.t. each array in ``inputs``.

    ``f`` takes no arguments and returns a tuple of arrays; ``inputs`` are arrays that
    are perturbed in place (one element at a time) and put back. ``grad_outputs`` None
    sums every output. Returns one array per input, of its shape and dtype.
    """
    if eps <= 0:
        raise ValueError('numerical_grad: eps must be positive, got {}'.format(eps))
    arrays = [x if isinstance(x, numpy.ndarray) else numpy.asarray(x) for x in inputs]
    originals = [numpy.array(a, copy=True) for a in arrays]

    def f_at(values):
        # The C++ numerics hand over the inputs they evaluate at; f reads them in place.
        for a, v in zip(arrays, values):
            a[...] = numpy.asarray(v)
        return _as_tuple(f())

    try:
        if grad_outputs is None:
            grad_outputs = [numpy.ones_like(_host(y), dtype=numpy.float64) for y in _as_tuple(f())]
        grads = _numerics.numerical_grad(f_at, originals, list(_as_tuple(grad_outputs)), eps)
    finally:
        for a, orig in zip(arrays, originals):
            a[...] = orig
    return [numpy.asarray(g).astype(a.dtype) if a.dtype.kind == 'f' else numpy.asarray(g)
            for g, a in zip(grads, arrays)]


def check_backward(func, x_data, y_grad, params=(), eps=1e-3, atol=1e-5, rtol=1e-4,
                   no_grads=None, dtype=None, detect_nondifferentiable=False,
                   is_immutable_params=False):
    """Checks func's backward against central differences along a random direction.

    ``func`` takes Variables (one per array of ``x_data``) and returns a Variable or a
    tuple of them; ``y_grad`` seeds the outputs (None for outputs of one element; a None
    entry leaves its output out); ``params`` are Variables used by func (a link's
    parameters) whose grads are checked too; ``no_grads[i]`` skips input i (default:
    non-float inputs); ``dtype`` casts the inputs of the numerical side. Raises
    AssertionError when the derivatives differ.
    """
    xs = [numpy.array(_host(x), copy=True) for x in _as_tuple(x_data)]
    y_grad = _as_tuple(y_grad)
    _numerics.check_backward(func, xs, None if y_grad is None else list(y_grad), _params(params),
                             [] if no_grads is None else [bool(ng) for ng in no_grads], eps, atol, rtol, dtype)


def check_double_backward(func, x_data, y_grad, x_grad_grad, params=(), params_grad_grad=(),
                          eps=1e-3, atol=1e-4, rtol=1e-3, no_grads=None, dtype=None,
                          detect_nondifferentiable=False):
    """Checks the backward of func's backward (chainer.gradient_check.check_double_backward).

    Runs check_backward on (x_data, y_grad) -> first-order grads of the inputs and params
    (computed with enable_double_backprop), seeded with x_grad_grad and params_grad_grad.
    """
    xs = [numpy.array(_host(x), copy=True) for x in _as_tuple(x_data)]
    y_grad = _as_tuple(y_grad)
    if no_grads is None:
        no_grads = [x.dtype.kind != 'f' for x in xs]
    checked = [i for i in range(len(xs)) if not no_grads[i]]
    ggs = _as_tuple(x_grad_grad) or ()
    if len(ggs) == len(xs) and len(checked) != len(xs):  # one per input: keep the checked ones'
        ggs = tuple(ggs[i] for i in checked)
    seeds = [_host(g) for g in tuple(ggs) + tuple(_as_tuple(params_grad_grad) or ())]
    _numerics.check_double_backward(func, xs, None if y_grad is None else [_host(g) for g in y_grad], seeds,
                                    _params(params), [bool(ng) for ng in no_grads], eps, atol, rtol, dtype)
