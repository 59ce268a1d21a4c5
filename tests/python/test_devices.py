"""Device objects (rensa.backend, rensa.cuda): Chainer's specifiers, classes, equality,
hashing and errors. The expected behaviour is Chainer 7.8.1's where Chainer has one."""
import pickle

import numpy
import pytest

import rensa
from rensa import backend
from rensa import cuda
from chainer_style_harness import assert_same_first_losses, run_on_chainer, run_ported

no_gpu = pytest.mark.skipif(cuda.available, reason='checks the behaviour without a GPU')


@pytest.mark.parametrize('spec', ['@numpy', -1, '-1', numpy.int64(-1), 'native', 'native:0'])
def test_cpu_specifiers(spec):
    device = backend.get_device(spec)
    assert type(device) is backend.CpuDevice
    assert isinstance(device, backend.Device)
    assert not isinstance(device, (backend.GpuDevice, backend.ChainerxDevice, backend.Intel64Device))
    assert device.xp is numpy
    assert device.name == '@numpy' and str(device) == '@numpy'
    assert repr(device) == '<CpuDevice (numpy)>'
    assert device.supported_array_types == (numpy.ndarray,)


def test_device_object_is_returned_intact():
    device = backend.CpuDevice()
    assert backend.get_device(device) is device
    assert rensa.get_device is backend.get_device


def test_intel64_is_numpy_on_the_native_device():
    device = backend.get_device('@intel64')
    assert isinstance(device, backend.Intel64Device) and not isinstance(device, backend.CpuDevice)
    assert device.xp is numpy and device.name == '@intel64' and repr(device) == '<Intel64Device>'
    a = numpy.ones(3, numpy.float32)
    assert device.send(a) is a
    assert device == backend.Intel64Device() and device != backend.CpuDevice()


def test_equality_and_hash():
    cpu = backend.get_device('@numpy')
    assert cpu == backend.CpuDevice() and not (cpu != backend.CpuDevice())
    assert hash(cpu) == hash(backend.CpuDevice()) == hash('@numpy')
    assert cpu != '@numpy'  # a device equals devices only, as in Chainer
    assert len({cpu, backend.get_device(-1), backend.get_device('native:0')}) == 1
    assert {cpu: 1}[backend.CpuDevice()] == 1
    assert pickle.loads(pickle.dumps(cpu)) == cpu
    assert pickle.loads(pickle.dumps(backend.get_device('@intel64'))) == backend.Intel64Device()


def test_send_keeps_containers_and_converts_each_object_once():
    device = backend.CpuDevice()
    a = numpy.arange(3.0)
    sent = device.send((a, None, [a]))
    assert sent[0] is a and sent[1] is None and sent[2][0] is a
    out = device.send([rensa.ndarray(a), 2.0])
    assert isinstance(out, list) and isinstance(out[0], numpy.ndarray) and out[1] == 2.0
    numpy.testing.assert_array_equal(out[0], a)
    assert device.send({'x': a})['x'] is a
    with pytest.raises(TypeError, match='Variable'):
        device.send(rensa.Variable(a))


def test_use_and_context():
    device = backend.CpuDevice()
    device.use()
    with rensa.using_device('@numpy'):
        pass
    with backend.using_device(device):
        pass
    with pytest.raises(RuntimeError, match='using_device'):
        with device:
            pass


@pytest.mark.parametrize('spec', [None, 1.5, numpy, True, [0]])
def test_non_specifiers_raise_type_error(spec):
    with pytest.raises(TypeError, match='Device specifier must be'):
        backend.get_device(spec)


@pytest.mark.parametrize('spec', ['@cupy', '@numpy:0', '@intel64:0', '@torch', '@cupy:x', '@cupy:-1'])
def test_malformed_at_specifiers_raise_value_error(spec):
    with pytest.raises(ValueError, match="Device specifiers starting with '@'"):
        backend.get_device(spec)


def test_unknown_name_raises_runtime_error():
    with pytest.raises(RuntimeError, match='bogus'):
        backend.get_device('bogus')


def test_chainerx_device_is_a_class_that_no_device_is():
    assert issubclass(backend.ChainerxDevice, backend.Device)
    with pytest.raises(RuntimeError, match='ChainerX'):
        backend.ChainerxDevice()


@no_gpu
@pytest.mark.parametrize('spec', ['@cupy:0', 'cuda:0', 0, '0', 'cuda'])
def test_gpu_specifiers_without_gpu(spec):
    with pytest.raises(RuntimeError, match='CUDA environment is not correctly set up'):
        backend.get_device(spec)


@no_gpu
def test_cuda_device_without_gpu():
    with pytest.raises(RuntimeError, match='CUDA'):
        cuda.get_device_from_id(0)
    with pytest.raises(RuntimeError, match='CUDA'):
        cuda.Device(0).use()
    with pytest.raises(RuntimeError, match='CUDA'):
        backend.GpuDevice(0)
    assert cuda.get_device_from_id(None) is cuda.DummyDevice
    assert cuda.get_device_from_id(-1) is cuda.DummyDevice
    assert cuda.get_device_from_array(numpy.ones(2)) is cuda.DummyDevice
    with pytest.raises(TypeError, match='GPU id'):
        cuda.Device('0')


def test_cuda_device_value():
    # cuda.Device is cupy.cuda.Device's shape: an id, equality by id; no GPU needed to make one.
    assert cuda.Device(1).id == 1 and int(cuda.Device(1)) == 1
    assert cuda.Device(1) == cuda.Device(1) and cuda.Device(1) != cuda.Device(0)
    assert hash(cuda.Device(2)) == hash(cuda.Device(2))
    assert not isinstance(cuda.Device(0), backend.Device)


def test_get_device_from_array_and_array_module():
    assert backend.get_device_from_array(numpy.ones(2)) == backend.CpuDevice()
    assert backend.get_device_from_array() == backend.CpuDevice()
    assert backend.get_array_module(numpy.ones(2), rensa.Variable(numpy.ones(2))) is numpy


def test_copyto():
    dst = numpy.zeros(3, numpy.float32)
    backend.copyto(dst, numpy.arange(3.0))
    numpy.testing.assert_array_equal(dst, [0, 1, 2])
    backend.copyto(dst, rensa.ndarray(numpy.arange(3.0, 6.0)))
    numpy.testing.assert_array_equal(dst, [3, 4, 5])
    with pytest.raises(TypeError, match='cannot copy to non-array'):
        backend.copyto([0, 0, 0], dst)
    device_array = rensa.ndarray(numpy.zeros(3, numpy.float32))  # rensa's own array type
    backend.copyto(device_array, numpy.arange(3.0))
    numpy.testing.assert_array_equal(numpy.asarray(device_array), [0, 1, 2])
    backend.copyto(device_array, rensa.ndarray(numpy.ones(3, numpy.float32)))
    numpy.testing.assert_array_equal(numpy.asarray(device_array), [1, 1, 1])
    with pytest.raises(ValueError, match='broadcast'):
        backend.copyto(device_array, numpy.ones(4))


def test_array_types():
    assert rensa.get_array_types() == (numpy.ndarray, rensa.ndarray)
    assert rensa.get_cpu_array_types() == (numpy.ndarray,)
    assert isinstance(numpy.ones(1), rensa.get_array_types())
    assert rensa.is_arrays_compatible([numpy.ones(1), None, numpy.zeros(2)])
    assert rensa.is_arrays_compatible([])


def test_to_cpu():
    v = rensa.Variable(numpy.ones(2))
    numpy.testing.assert_array_equal(backend.to_cpu(v), numpy.ones(2))
    a, b = backend.to_cpu((numpy.zeros(1), rensa.ndarray(numpy.ones(1))))
    assert isinstance(b, numpy.ndarray) and b[0] == 1
    assert backend.to_cpu(None) is None


@pytest.mark.skipif(not cuda.available, reason='needs a GPU')
def test_gpu_device():
    device = backend.get_device('@cupy:0')
    assert isinstance(device, backend.GpuDevice) and device.name == '@cupy:0'
    assert device == backend.get_device('cuda:0') == backend.get_device(0) == backend.get_device(cuda.Device(0))
    assert hash(device) == hash('@cupy:0') and repr(device) == '<GpuDevice (cupy):0>'
    assert device.device == cuda.Device(0) and device.xp is rensa
    g = device.send(numpy.arange(3.0))
    assert isinstance(g, rensa.ndarray) and device.is_array_supported(g)
    assert backend.get_device_from_array(g) == device
    assert cuda.get_device_from_array(g) == cuda.Device(0)
    assert backend.CpuDevice().send(g)[2] == 2.0
    dst = device.send(numpy.zeros(3))
    backend.copyto(dst, numpy.arange(3.0))
    numpy.testing.assert_array_equal(backend.to_cpu(dst), numpy.arange(3.0))
    with cuda.get_device_from_id(0):
        device.use()


def test_script_matches_chainer(tmp_path):
    """A Chainer script using device objects, Variable copies, pickles and methods."""
    output = run_ported('variable_and_devices.py', tmp_path)
    assert_same_first_losses(output, run_on_chainer('variable_and_devices.py'))
