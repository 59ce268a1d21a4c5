"""Variable, Parameter copies and pickles, as_variable, as_array (chainer.variable).

Variable is rensa._core.Variable (python/src/autograd). This module adds the parts of
Chainer's Variable that are Python protocols or text: copy.copy, copy.deepcopy, pickle,
``mean``, ``summary`` and ``debug_print``.

# Note [Variable copies and pickles]: as in Chainer, copy.copy gives a new leaf (no creator)
# with the same name and requires_grad over the same array and grad (aliased: writes through
# one are seen by the other; replacing one's array or grad does not change the other);
# copy.deepcopy and pickle give a leaf that owns copies of both, on the same device (a
# pickle holds numpy arrays and the device's name). A Parameter stays a Parameter: a copy
# keeps its initializer (rensa's initializers are immutable, so it is shared) and update
# switch. Copies and pickles leave the update rule out, where Chainer shares it (copy) or
# copies it (deepcopy, pickle): a rensa update rule belongs to one parameter and cannot be
# copied, and an optimizer's setup makes a new one. A pickle keeps the initializer only while
# the parameter is uninitialised, where it needs it (rensa's initializers do not pickle).
"""
import numpy

from rensa import _core
from rensa._core import Parameter, Variable, VariableNode

__all__ = ['Variable', 'VariableNode', 'Parameter', 'as_variable', 'as_array']


def as_variable(obj):
    """``obj`` when it is a Variable, else a Variable over it that requires no grad."""
    if isinstance(obj, Variable):
        return obj
    return Variable(obj, requires_grad=False)


def as_array(obj):
    """The array of a Variable (a numpy view for native arrays), or ``obj`` itself."""
    if isinstance(obj, Variable):
        return obj.array
    return obj


def _host(array):
    if array is None or isinstance(array, numpy.ndarray):
        return array
    return numpy.asarray(array.to_device('native:0'))


def _on(device_name, variable):
    if device_name != '@numpy':
        variable.to_device(device_name)
    return variable


def _create_variable(array, name, grad, requires_grad, device_name):
    return _on(device_name, Variable(array, name=name, grad=grad, requires_grad=requires_grad))


def _recover_parameter(array, name, grad, initializer, shape, dtype, update_enabled, device_name):
    if array is not None:
        param = _core.Parameter(None, name=name, dtype=array.dtype)
        param.array = array  # set, not passed: Parameter(0-d array) would take it as a constant initializer
        if grad is not None:
            param.grad = grad
    else:
        param = _core.Parameter(initializer, shape, name=name, dtype=dtype)
    if not update_enabled:
        param.disable_update()
    return _on(device_name, param)


def _variable_reduce(self):
    device = '@numpy' if self.array is None else self.device.name
    if isinstance(self, _core.Parameter):
        initialized = self.is_initialized
        return _recover_parameter, (_host(self.array), self.name, _host(self.grad),
                                    None if initialized else self.initializer, None, self.dtype,
                                    self.update_enabled, device)
    return _create_variable, (_host(self.array), self.name, _host(self.grad), self.requires_grad, device)


def _copy_parameter(self, deep):
    param = self._deep_copy() if deep else self._share_copy()
    if self.grad is not None:
        param.grad = self.grad.copy() if deep else self.grad
    return param


def _variable_copy(self):
    if isinstance(self, _core.Parameter):
        return _copy_parameter(self, deep=False)
    return Variable(self.array, name=self.name, grad=self.grad, requires_grad=self.requires_grad)


def _variable_deepcopy(self, memo):
    if isinstance(self, _core.Parameter):
        out = _copy_parameter(self, deep=True)
    else:
        array, grad = self.array, self.grad
        out = Variable(None if array is None else array.copy(), name=self.name,
                       grad=None if grad is None else grad.copy(), requires_grad=self.requires_grad)
    memo[id(self)] = out
    return out


def _mean(self, axis=None, *, weights=None, keepdims=False):
    """The (weighted) mean over ``axis`` (chainer.functions.average)."""
    from rensa import functions
    return functions.average(self, axis, weights, keepdims)


def _summary(self):
    """``<variable NAME>``, or ``<variable at 0x...>`` without a name."""
    if self.name:
        return '<variable {}>'.format(self.name)
    return '<variable at 0x{:x}>'.format(id(self))


def _statistics(array):
    host = _host(array)
    return 'mean={0:.8f}, std={1:.8f}'.format(float(numpy.mean(host)), float(numpy.std(host)))


def _debug_print(self):
    """A summary of the variable: name, device, array type, shape, dtype, statistics of
    the array and of the grad, in Chainer's layout."""
    array, grad = self.array, self.grad
    if array is None:
        device = backend = shape = dtype = stats = None
    else:
        device = 'CPU' if isinstance(array, numpy.ndarray) else str(array.device)
        backend, shape, dtype, stats = type(array), array.shape, array.dtype, _statistics(array)
    if grad is None:
        grad_text = None
    elif not numpy.any(_host(grad)):
        grad_text = 0
    else:
        grad_text = _statistics(grad)
    return ('{}\n- device: {}\n- backend: {}\n- shape: {}\n- dtype: {}\n- statistics: {}\n- grad: {}').format(
        self.summary(), device, backend, shape, dtype, stats, grad_text)


# Set on the bound class, so Parameter (a subclass) and the Variables C++ returns have them.
# See Note [Variable copies and pickles].
Variable.__reduce__ = _variable_reduce
Variable.__copy__ = _variable_copy
Variable.__deepcopy__ = _variable_deepcopy
Variable.mean = _mean
Variable.summary = _summary
Variable.debug_print = _debug_print
