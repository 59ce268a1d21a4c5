"""rensa.cuda (chainer.backends.cuda): CUDA availability and transfers.

Without a CUDA build (or a GPU) ``available`` is False and to_gpu raises a clear error.
"""
import numpy

from rensa import _core
from rensa import backend

__all__ = ['available', 'cudnn_enabled', 'get_array_module', 'to_cpu', 'to_gpu',
           'get_device_from_id', 'get_device_from_array', 'DummyDevice', 'check_cuda_available']

available = _core.cuda_device_count() > 0
cudnn_enabled = available and bool(_core.runtime_info()['cudnn'])
get_array_module = backend.get_array_module
get_device_from_array = backend.get_device_from_array
to_cpu = backend.to_cpu


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


def check_cuda_available():
    """Raises RuntimeError when rensa has no CUDA device."""
    if not available:
        raise RuntimeError(
            'CUDA environment is not correctly set up: rensa was built without CUDA '
            'or no GPU is visible (see rensa.print_runtime_info())')


def get_device_from_id(device_id):
    """The device for a GPU id, DummyDevice for None or a negative id."""
    if device_id is None or device_id < 0:
        return DummyDevice
    check_cuda_available()
    return backend.GpuDevice(int(device_id))


def to_gpu(array, device=None, stream=None):
    """Copies an array to a GPU (the current one, 0, by default)."""
    check_cuda_available()
    if device is None or device is DummyDevice:
        device = 0
    return backend.get_device(device).send(array)


del numpy
