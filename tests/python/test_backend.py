"""rensa.backend, rensa.cuda and print_runtime_info."""
import io

import numpy
import pytest

import rensa
from rensa import backend
from rensa import cuda


@pytest.mark.parametrize('spec', ['@numpy', 'native', 'native:0', -1])
def test_cpu_device_specs(spec):
    device = rensa.get_device(spec)
    assert isinstance(device, backend.CpuDevice)
    assert device.xp is numpy and device.name == '@numpy'
    a = numpy.arange(3.0)
    assert device.send(a) is a
    numpy.testing.assert_array_equal(device.send(rensa._core.ndarray(a)), a)
    device.use()
    assert device == backend.CpuDevice()


def test_get_array_module_and_to_cpu():
    v = rensa.Variable(numpy.ones(2))
    assert backend.get_array_module(v) is numpy
    assert backend.get_array_module(numpy.ones(2)) is numpy
    numpy.testing.assert_array_equal(backend.to_cpu(v), numpy.ones(2))


@pytest.mark.skipif(cuda.available, reason='checks the behaviour without CUDA')
def test_cuda_unavailable_errors():
    assert cuda.get_device_from_id(None) is cuda.DummyDevice
    with pytest.raises(RuntimeError, match='CUDA'):
        cuda.to_gpu(numpy.ones(2))
    with pytest.raises(RuntimeError, match='CUDA'):
        rensa.get_device('@cupy:0')
    with pytest.raises(RuntimeError):
        rensa.Variable(numpy.ones(2)).to_device('cuda:0')


def test_unknown_device_spec():
    with pytest.raises(RuntimeError, match='bogus'):
        rensa.get_device('bogus')


def test_seed_repeats_numpy_stream():
    backend.seed(3)
    a = numpy.random.rand(3)
    backend.seed(3)
    numpy.testing.assert_array_equal(numpy.random.rand(3), a)


def test_print_runtime_info():
    out = io.StringIO()
    rensa.print_runtime_info(out)
    text = out.getvalue()
    for key in ('rensa:', 'Python:', 'NumPy:', 'OpenBLAS:', 'oneDNN:', 'bfloat16 matmul:', 'CUDA:', 'cuDNN:',
                'NCCL:', 'MPI:'):
        assert key in text
    assert numpy.__version__ in text


def test_runtime_info_names_the_bf16_matmul_path():
    info = rensa._core.runtime_info()
    path = info['bf16_matmul']
    if not info['onednn']:
        assert 'without oneDNN' in path
    elif any(isa in path for isa in ('ISA avx512_core_bf16', 'ISA avx512_core_amx')):
        assert path.startswith('oneDNN matmul (ISA ') and 'native bf16 dot products' in path
    else:
        assert path.startswith('float32 temporaries and sgemm (ISA ')
