"""Device objects (chainer._backend and chainer.backends' device classes).

A device object names where arrays live and how to move arrays there: ``xp`` (the array
module), ``send(arrays)``, ``use()``, ``name`` (Chainer's specifier string), equality and
hashing by name. Each carries the C++ device it stands for as ``_rensa_device``, which is
what rensa's C++ code reads (python/src/convert/device.cc), so every rensa call that takes
a device takes these objects too.

# Note [Device objects]: rensa's native device is the CPU and its arrays are numpy arrays, so
# '@numpy', -1, 'native' and 'native:0' all give CpuDevice, and '@intel64' gives an
# Intel64Device over the same native device (rensa's CPU kernels use oneDNN where it was
# built, so no iDeep is needed). '@cupy:N', 'cuda:N' and N >= 0 give GpuDevice, which, as in
# Chainer without CuPy, raises RuntimeError when no GPU is usable. ChainerX does not exist
# in rensa: ChainerxDevice is there for isinstance checks and is never returned.
"""
import numpy

from rensa import _core


def _convert_arrays(arrays, func):
    # As Chainer: a list or tuple keeps its type, one object met twice is converted once.
    # Nested lists, tuples and dicts are converted too (Chainer stops at the first level).
    if isinstance(arrays, (list, tuple)):
        done = {}
        out = []
        for a in arrays:
            if a is None:
                out.append(None)
                continue
            converted = done.get(id(a))
            if converted is None:
                converted = _convert_arrays(a, func)
                done[id(a)] = converted
            out.append(converted)
        return type(arrays)(out)
    if isinstance(arrays, dict):
        return {key: _convert_arrays(value, func) for key, value in arrays.items()}
    if arrays is None:
        return None
    return func(arrays)


class _DummyContext(object):

    def __enter__(self):
        return None

    def __exit__(self, *args):
        return None


class Device(object):
    """The base of rensa's device classes (chainer.backend.Device)."""

    #: The C++ device (rensa._core.Device) this object stands for.
    _rensa_device = None

    @property
    def xp(self):
        """The array module of this device's arrays (``numpy`` for the CPU, ``rensa`` for a GPU)."""
        raise NotImplementedError('Device implementation must override this property.')

    @property
    def name(self):
        """The device specifier string, as ``rensa.get_device`` takes it (``'@numpy'``, ``'@cupy:0'``)."""
        raise NotImplementedError('Device implementation must override this property.')

    @property
    def supported_array_types(self):
        """A tuple of the array types that live on this device."""
        raise NotImplementedError('Device implementation must override this property.')

    def __str__(self):
        return self.name

    def __enter__(self):
        raise RuntimeError('Device class does not support runtime context using `with` statement. '
                           'Use chainer.using_device instead.')

    def __exit__(self, exc_type, exc_value, traceback):
        pass

    def __eq__(self, other):
        raise NotImplementedError('Device implementation must override this method.')

    def __ne__(self, other):
        return not (self == other)

    def __hash__(self):
        return hash(self.name)

    def __reduce__(self):
        # Devices pickle by their specifier (a model's device travels with a snapshot).
        return (_get_device_by_name, (self.name,))

    def create_context(self):
        """A context manager in which this device is current (chainer.using_device)."""
        return _DummyContext()

    def send(self, arrays):
        """Moves an array, or a tuple/list/dict of them, to this device."""
        return _convert_arrays(arrays, self.send_array)

    def send_array(self, array):
        """Moves one array to this device and returns it (the array itself when it is already there).

        Args:
            array: a numpy array, a ``rensa.ndarray`` or a scalar. A Variable is refused with
                TypeError: send its ``array``, or use ``Variable.to_device``.
        """
        raise NotImplementedError('Device implementation must override this method.')

    def use(self):
        """Makes this device current in the calling thread (a no-op for the CPU)."""

    def is_array_supported(self, array):
        """Whether ``array`` is an array of this device (an instance of ``supported_array_types``)."""
        return isinstance(array, self.supported_array_types)


def _get_device_by_name(name):
    from rensa import backend
    return backend.get_device(name)


def _numpy_of(array):
    if isinstance(array, numpy.ndarray):
        return array
    if isinstance(array, _core.Variable):
        raise TypeError('send: expected an array, got a Variable (send its .array, or use '
                        'Variable.to_device)')
    if isinstance(array, _core.ndarray):
        return numpy.asarray(array.to_device('native:0'))
    if numpy.isscalar(array):
        return numpy.asarray(array)
    raise TypeError('Array cannot be converted into an numpy.ndarray\nActual type: {0}.'.format(type(array)))


class CpuDevice(Device):
    """The CPU (``@numpy``): arrays are numpy arrays."""

    name = '@numpy'
    xp = numpy
    supported_array_types = (numpy.ndarray,)
    _rensa_device = _core.Device('native:0')
    __hash__ = Device.__hash__

    @staticmethod
    def from_array(array):
        """A CpuDevice if ``array`` is a numpy array, else None."""
        return CpuDevice() if isinstance(array, numpy.ndarray) else None

    def __eq__(self, other):
        return isinstance(other, CpuDevice)

    def __repr__(self):
        return '<{} (numpy)>'.format(type(self).__name__)

    def send_array(self, array):
        """Returns ``array`` as a numpy array (a ``rensa.ndarray`` is copied to the host, a scalar
        becomes a 0-dimensional array); a Variable is refused with TypeError."""
        return _numpy_of(array)


class Intel64Device(Device):
    """``@intel64``: numpy arrays on rensa's native device, whose CPU kernels use oneDNN
    where rensa was built with it. See Note [Device objects]."""

    name = '@intel64'
    xp = numpy
    supported_array_types = (numpy.ndarray,)
    _rensa_device = _core.Device('native:0')
    __hash__ = Device.__hash__

    @staticmethod
    def from_array(array):
        """Always None: rensa has no iDeep array type, numpy arrays belong to CpuDevice."""
        return None  # there is no iDeep array type: numpy arrays belong to CpuDevice

    def __eq__(self, other):
        return isinstance(other, Intel64Device)

    def __repr__(self):
        return '<{}>'.format(type(self).__name__)

    def send_array(self, array):
        """Returns ``array`` as a numpy array (a ``rensa.ndarray`` is copied to the host, a scalar
        becomes a 0-dimensional array); a Variable is refused with TypeError."""
        return _numpy_of(array)


def _check_gpu(index, what):
    if _core.cuda_device_count() <= 0:
        raise RuntimeError('CUDA environment is not correctly set up: {} needs a GPU, and rensa was '
                           'built without CUDA or sees none (see rensa.print_runtime_info())'.format(what))
    if not 0 <= index < _core.cuda_device_count():
        raise RuntimeError('{}: invalid CUDA device ID {} ({} GPU(s) visible)'.format(
            what, index, _core.cuda_device_count()))


class GpuDevice(Device):
    """A CUDA GPU (``@cupy:N``; rensa's ``cuda:N``): arrays are rensa.ndarray.

    ``GpuDevice(device)`` takes a ``rensa.cuda.Device``, a GPU id or a rensa._core.Device.
    Raises RuntimeError without a usable GPU, as Chainer does without CuPy."""

    supported_array_types = (_core.ndarray,)
    __hash__ = Device.__hash__

    def __init__(self, device):
        index = getattr(device, 'id', None)
        if isinstance(device, _core.Device):
            if device.kind != 'cuda':
                raise ValueError('GpuDevice: expected a CUDA device, got {}'.format(device.name))
            index = device.index
        elif isinstance(device, int) and not isinstance(device, bool):
            index = device
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise ValueError('Invalid CUDA device ID: {!r}'.format(device))
        _check_gpu(index, '@cupy:{}'.format(index))
        self._rensa_device = _core.Device('cuda:{}'.format(index))

    @staticmethod
    def from_device_id(device_id):
        """The GpuDevice of a CUDA device id."""
        if not isinstance(device_id, int) or isinstance(device_id, bool) or device_id < 0:
            raise ValueError('Invalid CUDA device ID: {}'.format(device_id))
        return GpuDevice(device_id)

    @staticmethod
    def from_array(array):
        """The GpuDevice of ``array`` if it is a ``rensa.ndarray`` on a CUDA device, else None."""
        if isinstance(array, _core.ndarray) and array.device.kind == 'cuda':
            return GpuDevice(array.device)
        return None

    @property
    def device(self):
        """The ``rensa.cuda.Device`` (cupy.cuda.Device's shape) of this GPU."""
        from rensa import cuda
        return cuda.Device(self._rensa_device.index)

    @property
    def device_id(self):
        """The CUDA device id (an int)."""
        return self._rensa_device.index

    @property
    def name(self):
        """Chainer's specifier of this GPU, ``'@cupy:N'``."""
        return '@cupy:{}'.format(self._rensa_device.index)

    @property
    def xp(self):
        """The ``rensa`` module, rensa's array module for GPU arrays (where Chainer gives ``cupy``)."""
        import rensa
        return rensa

    def __eq__(self, other):
        return isinstance(other, GpuDevice) and other._rensa_device == self._rensa_device

    def __repr__(self):
        return '<{} (cupy):{}>'.format(type(self).__name__, self._rensa_device.index)

    def create_context(self):
        return self.device

    def send_array(self, array):
        """Copies ``array`` (numpy, ``rensa.ndarray`` or anything ``numpy.asarray`` takes) to this GPU and
        returns the ``rensa.ndarray``; an array already there is returned as is. A Variable is refused
        with TypeError."""
        if isinstance(array, _core.Variable):
            raise TypeError('send: expected an array, got a Variable (send its .array, or use '
                            'Variable.to_device)')
        if not isinstance(array, _core.ndarray):
            array = _core.ndarray(numpy.asarray(array))
        return array.to_device(self._rensa_device)

    def use(self):
        self.device.use()

    def is_array_supported(self, array):
        """Whether ``array`` is a ``rensa.ndarray`` on this very GPU."""
        return isinstance(array, _core.ndarray) and array.device == self._rensa_device


class ChainerxDevice(Device):
    """chainer.backend.ChainerxDevice, for isinstance checks: rensa has no ChainerX, so no
    device is one and constructing one raises RuntimeError. See Note [Device objects]."""

    def __init__(self, device=None):
        raise RuntimeError('ChainerxDevice: rensa has no ChainerX; its own devices are '
                           "'native:0' (CpuDevice, numpy arrays) and 'cuda:N' (GpuDevice)")

    @staticmethod
    def from_array(array):
        """Always None: no array is a ChainerX array in rensa."""
        return None
