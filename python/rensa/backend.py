"""rensa.backend (chainer.backend): devices and array modules.

``get_device('@numpy' | 'native' | -1 | '@cupy:0' | 'cuda:0' | 0 | device)`` returns a
device object with ``xp``, ``send(arr)``, ``use()`` and ``name``; CPU arrays are numpy
arrays, other devices' arrays are ``rensa.ndarray``.
"""
import numpy

from rensa import _core

__all__ = ['Device', 'CpuDevice', 'GpuDevice', 'get_device', 'get_device_from_array',
           'get_array_module', 'copyto', 'to_cpu', 'seed', 'ndarray']

ndarray = _core.ndarray


class Device(object):
    """A device as Chainer's ``chainer.backend.Device``; wraps ``rensa._core.Device``."""

    def __init__(self, device):
        self._rensa_device = device

    @property
    def name(self):
        return self._rensa_device.name

    @property
    def xp(self):
        raise NotImplementedError

    @property
    def supported_array_types(self):
        return ()

    def send(self, arrays):
        """Moves an array (or a tuple/list/dict of them) to this device."""
        if isinstance(arrays, (tuple, list)):
            return type(arrays)(self.send(a) for a in arrays)
        if isinstance(arrays, dict):
            return {k: self.send(v) for k, v in arrays.items()}
        if arrays is None:
            return None
        return self._send_array(arrays)

    def use(self):
        """Makes this device current (a no-op for the CPU)."""

    def is_array_supported(self, array):
        return isinstance(array, self.supported_array_types)

    def __eq__(self, other):
        if isinstance(other, Device):
            return self._rensa_device == other._rensa_device
        return NotImplemented

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(self._rensa_device)

    def __repr__(self):
        return '<{} {}>'.format(type(self).__name__, self.name)

    def __str__(self):
        return self.name


class CpuDevice(Device):
    """The CPU: arrays are numpy arrays (``@numpy``, rensa's ``native:0``)."""

    def __init__(self):
        super().__init__(_core.Device('native:0'))

    @property
    def xp(self):
        return numpy

    @property
    def supported_array_types(self):
        return (numpy.ndarray, numpy.generic)

    def _send_array(self, array):
        if isinstance(array, (numpy.ndarray, numpy.generic)):
            return array
        if isinstance(array, _core.ndarray):
            return numpy.asarray(array.to_device('native:0'))
        return numpy.asarray(array)

    @property
    def name(self):
        return '@numpy'


class GpuDevice(Device):
    """A CUDA device (``@cupy:N`` / ``cuda:N``); arrays are rensa.ndarray."""

    def __init__(self, device):
        if not isinstance(device, _core.Device):
            device = _core.Device(device)
        super().__init__(device)

    @property
    def device_id(self):
        return self._rensa_device.index

    @property
    def xp(self):
        import rensa
        return rensa

    @property
    def supported_array_types(self):
        return (_core.ndarray,)

    def _send_array(self, array):
        if not isinstance(array, _core.ndarray):
            array = _core.ndarray(array)
        return array.to_device(self._rensa_device)

    @property
    def name(self):
        return '@cupy:{}'.format(self._rensa_device.index)


def get_device(device_spec):
    """The device for a Chainer device specifier (``'@numpy'``, ``'@cupy:0'``, ``-1``, ``0``,
    ``'native'``, ``'cuda:0'``, a device object)."""
    if isinstance(device_spec, Device):
        return device_spec
    if isinstance(device_spec, str) and device_spec.lstrip('-').isdigit():
        device_spec = int(device_spec)  # Chainer's examples pass --device '-1' as a string
    device = _core.Device(device_spec)
    if device.kind == 'native':
        return CpuDevice()
    return GpuDevice(device)


def get_device_from_array(array):
    """The device an array (or Variable) lives on."""
    if isinstance(array, _core.Variable):
        return get_device(array.device)
    if isinstance(array, _core.ndarray):
        return get_device(array.device)
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


def to_cpu(array):
    """A numpy array for ``array`` (device arrays are copied to the host)."""
    if isinstance(array, _core.Variable):
        array = array.array
    if isinstance(array, (tuple, list)):
        return type(array)(to_cpu(a) for a in array)
    if array is None:
        return None
    return CpuDevice().send(array)


def copyto(dst, src):
    """Copies src into dst (numpy arrays on the CPU)."""
    numpy.copyto(numpy.asarray(dst), to_cpu(src))


def seed(value):
    """Seeds rensa's random generator (dropout, initializers) and numpy's."""
    _core.seed(int(value))
    numpy.random.seed(int(value) % (2 ** 32))
