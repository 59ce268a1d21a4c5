"""rensa.cuda (chainer.backends.cuda): CUDA availability, devices, transfers and memory.

Without a CUDA build (or a GPU) ``available`` is False and to_gpu raises a clear error.
The CUDA libraries are loaded the first time a CUDA device is used (``available``,
``device_count()``, a ``cuda:0`` device, ...), never by ``import rensa`` (Note [Lazy CUDA],
python/src/core/cuda.cc).
"""
import threading

from rensa import _backend
from rensa import _core
from rensa import backend

__all__ = ['available', 'cudnn_enabled', 'get_array_module', 'to_cpu', 'to_gpu',
           'get_device_from_id', 'get_device_from_array', 'DummyDevice', 'Device',
           'check_cuda_available', 'device_count', 'synchronize', 'memory_stats',
           'memory_pool', 'pinned_memory_pool', 'set_allow_tf32', 'allow_tf32']

_cuda = _core.cuda

#: Whether rensa was built with the CUDA backend (with or without a GPU present).
built = bool(_cuda.built)
get_array_module = backend.get_array_module
to_cpu = backend.to_cpu
device_count = _cuda.device_count
set_allow_tf32 = _cuda.set_allow_tf32
allow_tf32 = _cuda.allow_tf32


class _DummyDeviceType(object):
    """Chainer's cuda.DummyDevice: a no-op context manager for the CPU."""
    id = -1

    def __enter__(self):
        return self

    def __exit__(self, *args):
        pass

    def use(self):
        pass

    def synchronize(self):
        pass

    def __eq__(self, other):
        return isinstance(other, _DummyDeviceType)

    def __hash__(self):
        return hash(-1)


DummyDevice = _DummyDeviceType()


def _available():
    return _cuda.device_count() > 0


def __getattr__(name):
    # ``available`` (a GPU is usable) and ``cudnn_enabled``: module attributes as in Chainer,
    # computed on first access since they load the CUDA libraries.
    if name == 'available':
        value = _available()
    elif name == 'cudnn_enabled':
        value = _available() and built
    else:
        raise AttributeError('module {!r} has no attribute {!r}'.format(__name__, name))
    globals()[name] = value
    return value


def check_cuda_available():
    """Raises RuntimeError when rensa has no CUDA device."""
    if not _available():
        raise RuntimeError(
            'CUDA environment is not correctly set up: rensa was built without CUDA '
            'or no GPU is visible (see rensa.print_runtime_info())')


class Device(object):
    """A GPU as cupy.cuda.Device (what ``cuda.get_device_from_id`` returns): ``id``,
    ``use()``, ``synchronize()``, usable in ``with``. ``Device()`` is the current GPU.
    ``backend.get_device(cuda_device)`` gives its backend.GpuDevice.

    ``use()`` makes the GPU current for the thread: ``to_gpu`` without a device sends there.
    rensa's arrays and links still go where they are sent, as in Chainer."""

    def __init__(self, device=None):
        if device is None:
            device = _current_id()
        if isinstance(device, bool) or not isinstance(device, int):
            raise TypeError('cuda.Device: expected a GPU id (int), got {!r}'.format(device))
        self.id = device
        self._previous = []

    @property
    def _rensa_device(self):
        # What rensa's C++ calls read from a device argument (python/src/convert/device.cc).
        return _core.Device('cuda:{}'.format(self.id))

    def use(self):
        """Makes this GPU the current one of the calling thread."""
        _backend._check_gpu(self.id, 'cuda.Device({}).use'.format(self.id))
        _state.current = self.id

    def synchronize(self):
        """Blocks until the work queued on the GPU's current stream is done."""
        check_cuda_available()
        _cuda.synchronize(self.id)

    def __enter__(self):
        self._previous.append(getattr(_state, 'current', None))
        self.use()
        return self

    def __exit__(self, *args):
        _state.current = self._previous.pop()

    def __int__(self):
        return self.id

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(('cuda.Device', self.id))

    def __repr__(self):
        return '<CUDA Device {}>'.format(self.id)


_state = threading.local()


def _current_id():
    current = getattr(_state, 'current', None)
    return 0 if current is None else current


def get_device_from_id(device_id):
    """The cuda.Device of a GPU id, DummyDevice for None or a negative id; raises
    RuntimeError without a usable GPU (as Chainer does without CuPy)."""
    if device_id is None or device_id < 0:
        return DummyDevice
    check_cuda_available()
    return Device(int(device_id))


def get_device_from_array(*arrays):
    """The cuda.Device of the first GPU array, else DummyDevice."""
    for array in arrays:
        if isinstance(array, _core.ndarray) and array.device.kind == 'cuda':
            return Device(array.device.index)
    return DummyDevice


def to_gpu(array, device=None, stream=None):
    """Copies an array (or a tuple/list/dict of them) to a GPU (0 by default)."""
    check_cuda_available()
    if device is None or device is DummyDevice:
        device = _current_id()
    return backend.get_device(device).send(array)


def synchronize(device=0):
    """Blocks until the work queued on GPU ``device``'s current stream is done."""
    check_cuda_available()
    _cuda.synchronize(int(device))


def memory_stats(device=0):
    """The caching allocator's statistics of GPU ``device`` as a dict: allocated_bytes,
    cached_bytes, peak_allocated_bytes, num_allocs, num_cache_hits, pinned_bytes_in_use,
    pinned_bytes_cached."""
    check_cuda_available()
    return _cuda.memory_stats(int(device))


class _MemoryPool(object):
    """The shape of cupy's MemoryPool (``cuda.memory_pool``) over rensa's caching allocator
    of every GPU. Without a GPU every count is 0."""

    def _devices(self):
        return range(device_count()) if _available() else range(0)

    def used_bytes(self):
        return sum(_cuda.memory_stats(d)['allocated_bytes'] for d in self._devices())

    def free_bytes(self):
        return sum(_cuda.memory_stats(d)['cached_bytes'] for d in self._devices())

    def total_bytes(self):
        return self.used_bytes() + self.free_bytes()

    def free_all_blocks(self):
        for d in self._devices():
            _cuda.empty_cache(d)


class _PinnedMemoryPool(object):
    """The shape of cupy's PinnedMemoryPool (``cuda.pinned_memory_pool``)."""

    def _stats(self):
        return _cuda.memory_stats(0) if _available() else {}

    def used_bytes(self):
        return self._stats().get('pinned_bytes_in_use', 0)

    def free_bytes(self):
        return self._stats().get('pinned_bytes_cached', 0)

    def total_bytes(self):
        return self.used_bytes() + self.free_bytes()

    def free_all_blocks(self):
        if _available():
            _cuda.empty_cache(0)


memory_pool = _MemoryPool()
pinned_memory_pool = _PinnedMemoryPool()
