"""rensa.backend (chainer.backend): devices and array modules.

``get_device(spec)`` takes Chainer's device specifiers ('@numpy', '@cupy:0', '@intel64',
-1, a GPU id, '-1' / '0' as strings, a device object, a ``rensa.cuda.Device``) and rensa's
own ('native', 'native:0', 'cuda:0', a ``rensa._core.Device``) and returns a device object
(Note [Device objects] in python/rensa/_backend.py). CPU arrays are numpy arrays, other
devices' arrays are ``rensa.ndarray``.
"""
import numpy

from rensa import _core
from rensa._backend import ChainerxDevice, CpuDevice, Device, GpuDevice, Intel64Device

__all__ = ['Device', 'CpuDevice', 'GpuDevice', 'Intel64Device', 'ChainerxDevice', 'get_device',
           'get_device_from_array', 'get_array_module', 'using_device', 'copyto', 'to_cpu', 'seed',
           'ndarray', 'get_array_types', 'get_cpu_array_types', 'is_arrays_compatible']

ndarray = _core.ndarray

_SPEC_TYPES = 'a backend.Device, cuda.Device, rensa._core.Device, integer or a string'


def _from_core(device):
    # The device object of a C++ device (what Variable.device, Link.device and converters get).
    if device.kind == 'native':
        return CpuDevice()
    return GpuDevice(device)


def _from_int(device_id):
    return CpuDevice() if device_id < 0 else GpuDevice.from_device_id(device_id)


def _from_string(spec):
    try:
        return _from_int(int(spec))  # '-1', '0': Chainer's examples pass --device as a string
    except ValueError:
        pass
    if spec.startswith('@'):
        module, colon, precise = spec[1:].partition(':')
        if module == 'numpy' and not colon:
            return CpuDevice()
        if module == 'intel64' and not colon:
            return Intel64Device()
        if module == 'cupy' and colon:
            try:
                index = int(precise)
            except ValueError:
                index = None
            if index is not None and index >= 0:
                return GpuDevice.from_device_id(index)
        raise ValueError("Device specifiers starting with '@' must be followed by a module name and depending on "
                         "the module, module specific precise device specifiers ('@numpy', '@cupy:<id>', "
                         "'@intel64'). Actual: {}".format(spec))
    # rensa's own names ('native', 'native:0', 'cuda:1'); DeviceError (a RuntimeError) otherwise.
    return _from_core(_core.Device(spec))


def get_device(device_spec):
    """The device object for a device specifier (chainer.get_device).

    Raises TypeError for an object that is no specifier, ValueError for a malformed '@'
    specifier, RuntimeError for an unknown name or a GPU when none is usable."""
    if isinstance(device_spec, Device):
        return device_spec
    if isinstance(device_spec, _core.Device):
        return _from_core(device_spec)
    if isinstance(device_spec, bool):
        raise TypeError('Device specifier must be {}. Actual: {}'.format(_SPEC_TYPES, type(device_spec)))
    if isinstance(device_spec, (int, numpy.integer)):
        return _from_int(int(device_spec))
    if isinstance(device_spec, str):
        return _from_string(device_spec)
    from rensa import cuda
    if isinstance(device_spec, cuda.Device):
        return GpuDevice(device_spec)
    raise TypeError('Device specifier must be {}. Actual: {}'.format(_SPEC_TYPES, type(device_spec)))


def using_device(device_spec):
    """A context manager in which the device is current (chainer.using_device)."""
    return get_device(device_spec).create_context()


def get_device_from_array(*arrays):
    """The device of the first array not on the CPU, else CpuDevice. As in Chainer a
    Variable is not looked into: pass ``v.array`` (or read ``v.device``)."""
    for array in arrays:
        device = GpuDevice.from_array(array)
        if device is not None:
            return device
    return CpuDevice()


def get_array_module(*args):
    """numpy for numpy arrays and CPU Variables, the rensa module for device arrays."""
    for a in args:
        if isinstance(a, _core.Variable):
            a = a.array
        if isinstance(a, _core.ndarray) and a.device.kind != 'native':
            import rensa
            return rensa
    return numpy


def get_array_types():
    """The array types rensa's functions take (chainer.get_array_types)."""
    return (numpy.ndarray, _core.ndarray)


def get_cpu_array_types():
    """The CPU array types (chainer.get_cpu_array_types)."""
    return (numpy.ndarray,)


def is_arrays_compatible(arrays):
    """Whether the arrays (None entries ignored) live on one device, so one function can
    take them all (chainer.is_arrays_compatible)."""
    devices = {get_device_from_array(a) for a in arrays if a is not None}
    return len(devices) <= 1


def to_cpu(array):
    """A numpy array for ``array`` (device arrays are copied to the host); tuples, lists
    and dicts of arrays are converted element by element."""
    if isinstance(array, _core.Variable):
        array = array.array
    return CpuDevice().send(array)


def copyto(dst, src):
    """Copies the elements of ``src`` into the array ``dst`` (chainer.backend.copyto), across
    devices; raises TypeError when ``dst`` is not an array."""
    if isinstance(dst, numpy.ndarray):
        numpy.copyto(dst, to_cpu(src))
    elif isinstance(dst, _core.ndarray):
        if isinstance(src, _core.ndarray):
            src = src.to_device(dst.device)
        else:
            src = _core.ndarray(numpy.asarray(src, dtype=dst.dtype)).to_device(dst.device)
        dst._assign(src)
    else:
        raise TypeError('cannot copy to non-array object of type {}'.format(type(dst)))


def seed(value):
    """Seeds rensa's random generator (dropout, initializers) and numpy's."""
    _core.seed(int(value))
    numpy.random.seed(int(value) % (2 ** 32))
