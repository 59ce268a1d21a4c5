"""rensa.testing: small helpers for tests (chainer.testing)."""
import itertools

import numpy

__all__ = ['assert_allclose', 'product', 'product_dict']


def _host(x):
    if hasattr(x, 'array') and not isinstance(x, numpy.ndarray):
        x = x.array  # a Variable
    return numpy.asarray(x)


def assert_allclose(x, y, atol=1e-5, rtol=1e-4, verbose=True):
    """Asserts |x - y| <= atol + rtol * |y| elementwise (Variables and arrays alike)."""
    x = _host(x)
    y = _host(y)
    try:
        numpy.testing.assert_allclose(
            x.astype(numpy.float64) if x.dtype.kind == 'f' else x,
            y.astype(numpy.float64) if y.dtype.kind == 'f' else y,
            atol=atol, rtol=rtol, verbose=verbose)
    except AssertionError as e:
        if not verbose:
            raise
        raise AssertionError('{}\nx: {}\ny: {}'.format(e, x, y)) from None


def product(parameter):
    """Every combination of the values of a dict of lists, as a list of dicts
    (chainer.testing.product); a list of lists of dicts gives their merged products."""
    if isinstance(parameter, dict):
        keys = sorted(parameter)
        return [dict(zip(keys, values))
                for values in itertools.product(*(parameter[k] for k in keys))]
    return product_dict(*parameter)


def product_dict(*parameters):
    """The merged dicts of every combination of one dict from each list."""
    out = []
    for dicts in itertools.product(*parameters):
        merged = {}
        for d in dicts:
            merged.update(d)
        out.append(merged)
    return out
