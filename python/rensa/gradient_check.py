"""rensa.gradient_check: numerical checks of backward (chainer.gradient_check).

As in Chainer, check_backward compares the derivative of the function along one
random direction in the space of its inputs (and params) computed by backward with
central differences of sum(f(x) * y_grad), evaluated in float64.
"""
import numpy

from rensa import _core
from rensa import testing

__all__ = ['check_backward', 'check_double_backward', 'numerical_grad']


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


def numerical_grad(f, inputs, grad_outputs, eps=1e-3, detect_nondifferentiable=False,
                   diff_atol=0, diff_rtol=1e-2, center_outputs=None):
    """Central differences of sum(f() * grad_outputs) w.r.t. each array in ``inputs``.

    ``f`` takes no arguments and returns a tuple of arrays; ``inputs`` are arrays that
    are perturbed in place (one element at a time). Returns one array per input, of
    its shape and dtype.
    """
    if eps <= 0:
        raise ValueError('numerical_grad: eps must be positive, got {}'.format(eps))
    inputs = tuple(inputs)
    grad_outputs = _as_tuple(grad_outputs)

    def value():
        ys = _as_tuple(f())
        total = 0.0
        for i, y in enumerate(ys):
            y = _host(y).astype(numpy.float64)
            gy = None if grad_outputs is None else grad_outputs[i]
            if gy is None:
                total += float(y.sum()) if grad_outputs is None else 0.0
            else:
                total += float((y * _host(gy).astype(numpy.float64)).sum())
        return total

    grads = []
    for x in inputs:
        x_np = x if isinstance(x, numpy.ndarray) else numpy.asarray(x)
        gx = numpy.zeros(x_np.shape, dtype=numpy.float64)
        for index in numpy.ndindex(x_np.shape):
            orig = x_np[index].copy()
            x_np[index] = orig + eps
            plus_step = float(x_np[index]) - float(orig)
            y_plus = value()
            x_np[index] = orig - eps
            minus_step = float(orig) - float(x_np[index])
            y_minus = value()
            x_np[index] = orig
            gx[index] = (y_plus - y_minus) / (plus_step + minus_step)
        grads.append(gx.astype(x_np.dtype) if x_np.dtype.kind == 'f' else gx)
    return grads


def _seed_outputs(ys, y_grad):
    outputs, seeds = [], []
    if y_grad is None:
        for y in ys:
            if y.size != 1:
                raise ValueError('check_backward: y_grad is None but an output has shape {}; '
                                 'pass y_grad for non-scalar outputs'.format(y.shape))
            outputs.append(y)
            seeds.append(numpy.ones(y.shape, dtype=y.dtype))
        return outputs, seeds
    if len(y_grad) != len(ys):
        raise ValueError('check_backward: {} outputs but {} y_grad entries'.format(len(ys), len(y_grad)))
    for y, gy in zip(ys, y_grad):
        if gy is not None:
            outputs.append(y)
            seeds.append(numpy.asarray(_host(gy), dtype=y.dtype))
    return outputs, seeds


def check_backward(func, x_data, y_grad, params=(), eps=1e-3, atol=1e-5, rtol=1e-4,
                   no_grads=None, dtype=None, detect_nondifferentiable=False,
                   is_immutable_params=False):
    """Checks func's backward against central differences along a random direction.

    ``func`` takes Variables (one per array of ``x_data``) and returns a Variable or a
    tuple of them; ``y_grad`` seeds the outputs (None for outputs of one element);
    ``params`` are Variables used by func (a link's parameters) whose grads are checked
    too; ``no_grads[i]`` skips input i (default: non-float inputs); ``dtype`` casts the
    inputs of the numerical side. Raises AssertionError when the derivatives differ.
    """
    xs = _as_tuple(x_data)
    y_grad = _as_tuple(y_grad)
    if isinstance(params, _core.Variable):
        params = (params,)
    params = tuple(params)
    if no_grads is None:
        no_grads = [_host(x).dtype.kind != 'f' for x in xs]
    elif len(no_grads) != len(xs):
        raise ValueError('check_backward: {} inputs but {} no_grads entries'.format(len(xs), len(no_grads)))
    x_arrays = [numpy.array(_host(x), copy=True) for x in xs]
    x_vars = [_core.Variable(x, requires_grad=not ng) for x, ng in zip(x_arrays, no_grads)]
    for p in params:
        p.cleargrad()

    ys = _as_tuple(func(*x_vars))
    outputs, seeds = _seed_outputs(ys, y_grad)

    # The analytical directional derivative along a random unit direction. grad(), not
    # backward(): an output that is itself an input (a function whose gradient passes the
    # seed through, as in double backprop of x * y + z) must count its own seed, which
    # backward() skips for leaves, as Chainer's backward does.
    targets = [(x, v) for x, v, ng in zip(x_arrays, x_vars, no_grads) if not ng]
    target_vars = [v for _, v in targets] + list(params)
    grad_vars = _core.grad(outputs, target_vars, seeds) if outputs else [None] * len(target_vars)
    rng = numpy.random.RandomState(len(targets) + len(params))
    directions = [rng.normal(size=x.shape) for x, _ in targets]
    directions += [rng.normal(size=p.shape) for p in params]
    norm = numpy.sqrt(sum(float(numpy.square(d).sum()) for d in directions)) or 1.0
    directions = [d / norm for d in directions]
    grads = [None if g is None else g.array for g in grad_vars]
    for v, g in zip(target_vars, grads):  # left on the variables, as Chainer's backward pass does
        if g is not None:
            v.grad = g
    analytical = sum(float((numpy.asarray(g, dtype=numpy.float64) * d).sum())
                     for g, d in zip(grads, directions) if g is not None)

    # The numerical one: the same function on perturbed copies, without a graph.
    num_dtype = None if dtype is None else numpy.dtype(dtype)
    # Each evaluation gives the params new arrays (cast to dtype when given); the
    # originals (views of the params' memory) are put back afterwards.
    param_arrays = [p.array for p in params]
    param_orig = [numpy.array(a, copy=True) for a in param_arrays]

    def evaluate(delta):
        ds = iter(directions)
        inputs = []
        for x, ng in zip(x_arrays, no_grads):
            base = x if ng else (x.astype(numpy.float64) + delta * next(ds))
            cast = x.dtype if num_dtype is None or x.dtype.kind != 'f' else num_dtype
            inputs.append(_core.Variable(numpy.asarray(base).astype(cast), requires_grad=not ng))
        for p, orig in zip(params, param_orig):
            cast = orig.dtype if num_dtype is None else num_dtype
            p.array = (orig.astype(numpy.float64) + delta * next(ds)).astype(cast)
        with _core.no_backprop_mode():
            out = _as_tuple(func(*inputs))
        total = 0.0
        for y, gy in zip(out, y_grad if y_grad is not None else [None] * len(out)):
            y64 = _host(y).astype(numpy.float64)
            if y_grad is None:
                total += float(y64.sum())
            elif gy is not None:
                total += float((y64 * _host(gy).astype(numpy.float64)).sum())
        return total

    try:
        numerical = (evaluate(eps) - evaluate(-eps)) / (2 * eps)
    finally:
        for p, a in zip(params, param_arrays):
            p.array = a
    try:
        testing.assert_allclose(numpy.float64(numerical), numpy.float64(analytical), atol=atol, rtol=rtol,
                                verbose=False)
    except AssertionError:
        raise AssertionError(
            'check_backward failed: the directional derivative by backward is {!r} but by '
            'central differences (eps={}) it is {!r} (atol={}, rtol={})'.format(
                analytical, eps, numerical, atol, rtol)) from None


def check_double_backward(func, x_data, y_grad, x_grad_grad, params=(), params_grad_grad=(),
                          eps=1e-3, atol=1e-4, rtol=1e-3, no_grads=None, dtype=None,
                          detect_nondifferentiable=False):
    """Checks the backward of func's backward (chainer.gradient_check.check_double_backward).

    Runs check_backward on (x_data, y_grad) -> first-order grads of the inputs and params
    (computed with enable_double_backprop), seeded with x_grad_grad and params_grad_grad.
    """
    xs = _as_tuple(x_data)
    y_grad = _as_tuple(y_grad)
    if isinstance(params, _core.Variable):
        params = (params,)
    params = tuple(params)
    n_x = len(xs)
    if no_grads is None:
        no_grads = [_host(x).dtype.kind != 'f' for x in xs]
    grad_targets = [i for i in range(n_x) if not no_grads[i]]

    def first_order_grad(*inputs):
        x_vars = inputs[:n_x]
        gys = inputs[n_x:]
        # The numerical side of check_backward runs in no_backprop_mode; grad needs the graph.
        with _core.force_backprop_mode():
            return _first_order(x_vars, gys)

    def _first_order(x_vars, gys):
        ys = _as_tuple(func(*x_vars))
        if y_grad is None:
            seeds = [_core.Variable(numpy.ones(y.shape, dtype=y.dtype), requires_grad=False) for y in ys]
        else:
            seeds = list(gys)
        targets = [x_vars[i] for i in grad_targets] + list(params)
        gxs = _core.grad(ys, targets, seeds, enable_double_backprop=True)
        return tuple(g if g is not None else _core.Variable(numpy.zeros(t.shape, dtype=t.dtype),
                                                            requires_grad=False)
                     for g, t in zip(gxs, targets))

    inputs = xs + (y_grad if y_grad is not None else ())
    ggs = _as_tuple(x_grad_grad) or ()
    if len(ggs) == n_x and len(grad_targets) != n_x:
        ggs = tuple(ggs[i] for i in grad_targets)
    seeds = tuple(ggs) + tuple(_as_tuple(params_grad_grad) or ())
    check_backward(first_order_grad, inputs, seeds, params=params, eps=eps, atol=atol, rtol=rtol,
                   no_grads=list(no_grads) + [False] * (len(inputs) - n_x), dtype=dtype)
