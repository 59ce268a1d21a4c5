"""rensa.cuda and rensa._core.cuda: the behaviour without a GPU, and (skipped without one)
transfers, synchronisation and the caching allocator's statistics on cuda:0."""
import numpy
import pytest

import rensa
from rensa import _core
from rensa import cuda

requires_gpu = pytest.mark.skipif(not cuda.available, reason='needs a CUDA device')
without_gpu = pytest.mark.skipif(cuda.available, reason='checks the behaviour without a GPU')


def test_module_shape():
    import rensa.backends.cuda
    assert rensa.backends.cuda is cuda
    assert isinstance(cuda.available, bool)
    assert cuda.device_count() == _core.cuda_device_count()
    assert cuda.available == (cuda.device_count() > 0)
    assert _core.runtime_info()['cuda_devices'] == cuda.device_count()
    assert cuda.built == bool(_core.runtime_info()['cuda_built'])
    for pool in (cuda.memory_pool, cuda.pinned_memory_pool):
        assert pool.total_bytes() == pool.used_bytes() + pool.free_bytes()


def test_allow_tf32_round_trip():
    was = cuda.allow_tf32()
    try:
        cuda.set_allow_tf32(False)
        assert cuda.allow_tf32() is False
        if cuda.built:
            cuda.set_allow_tf32(True)
            assert cuda.allow_tf32() is True
    finally:
        cuda.set_allow_tf32(was)


@without_gpu
def test_without_gpu():
    assert cuda.available is False
    assert cuda.cudnn_enabled is False
    assert cuda.device_count() == 0
    assert cuda.get_device_from_id(None) is cuda.DummyDevice
    assert cuda.get_device_from_id(-1) is cuda.DummyDevice
    with cuda.get_device_from_id(-1):
        pass
    with pytest.raises(RuntimeError, match='CUDA'):
        cuda.to_gpu(numpy.ones(2))
    with pytest.raises(RuntimeError, match='CUDA'):
        cuda.get_device_from_id(0)
    with pytest.raises(RuntimeError, match='CUDA'):
        cuda.memory_stats()
    with pytest.raises(RuntimeError, match='cuda'):
        _core.cuda.synchronize(0)
    with pytest.raises(RuntimeError, match='cuda'):
        rensa.Variable(numpy.ones(2)).to_device('cuda:0')
    assert cuda.memory_pool.used_bytes() == 0
    cuda.memory_pool.free_all_blocks()  # a no-op without a GPU
    numpy.testing.assert_array_equal(cuda.to_cpu(numpy.arange(3.0)), numpy.arange(3.0))


@requires_gpu
@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64, numpy.int32, numpy.bool_])
def test_to_gpu_round_trip(dtype):
    a = (numpy.arange(70001) % 7 + 1).astype(dtype)
    g = cuda.to_gpu(a)
    assert isinstance(g, _core.ndarray)
    assert str(g.device) == 'cuda:0'
    back = cuda.to_cpu(g)
    assert back.dtype == a.dtype
    numpy.testing.assert_array_equal(back, a)


@requires_gpu
def test_device_and_synchronize():
    device = cuda.get_device_from_id(0)
    assert device.id == 0
    with device:
        g = cuda.to_gpu(numpy.ones((3, 4), numpy.float32), device=device)
    device.synchronize()
    cuda.synchronize(0)
    numpy.testing.assert_array_equal(cuda.to_cpu(g), numpy.ones((3, 4), numpy.float32))
    assert cuda.get_device_from_array(g) == cuda.Device(0)
    assert rensa.backend.get_device_from_array(g) == rensa.get_device('cuda:0')


@requires_gpu
def test_memory_stats_and_empty_cache():
    before = cuda.memory_stats(0)
    for key in ('allocated_bytes', 'cached_bytes', 'peak_allocated_bytes', 'num_allocs', 'num_cache_hits',
                'pinned_bytes_in_use', 'pinned_bytes_cached'):
        assert key in before
    g = cuda.to_gpu(numpy.ones(1 << 20, numpy.float32))
    during = cuda.memory_stats(0)
    assert during['allocated_bytes'] >= before['allocated_bytes'] + (4 << 20)
    assert during['num_allocs'] > before['num_allocs']
    del g
    assert cuda.memory_stats(0)['cached_bytes'] >= 4 << 20
    cuda.memory_pool.free_all_blocks()
    assert cuda.memory_stats(0)['cached_bytes'] == 0
    assert cuda.memory_pool.free_bytes() == 0
