"""chainermn.functions.pseudo_connect over the C++ one."""
import numpy

from rensa._distributed import functions as _f


def pseudo_connect(delegate_variable, *actual_variables):
    """The ``actual_variables`` unchanged, as a tuple (chainermn's return, even for one), but
    connected to ``delegate_variable`` so that the backward reaches it first. A None
    delegate stands for an empty one, as in chainermn."""
    if not actual_variables:
        raise ValueError('pseudo_connect: Expect: at least one actual variable, Actual: none')
    if delegate_variable is None:
        delegate_variable = numpy.empty((0,), numpy.float32)
    ys = _f.pseudo_connect(delegate_variable, *actual_variables)
    return ys if isinstance(ys, tuple) else (ys,)
