"""chainer.config.dtype / mixed16 reach the links' parameters; Variable.retain_data (issue 22)."""
import threading

import numpy
import pytest

import rensa
import rensa.functions as F
import rensa.links as L


def test_links_create_parameters_in_config_dtype():
    assert rensa.config.dtype == numpy.float32
    lazy = L.Linear(None, 2, nobias=True)  # a bias is made now, in float32 (so in Chainer too)
    with rensa.using_config('dtype', numpy.float16):
        assert rensa.get_dtype() == numpy.float16
        link = L.Linear(3, 2)
        assert link.W.dtype == numpy.float16 and link.b.dtype == numpy.float16
        lazy(numpy.zeros((1, 4), numpy.float16))
    assert lazy.W.dtype == numpy.float16  # fixed when it was initialised
    assert L.Linear(3, 2).W.dtype == numpy.float32 and rensa.config.dtype == numpy.float32
    with rensa.using_config('dtype', numpy.float64):
        assert L.Convolution2D(1, 2, 3).W.dtype == numpy.float64


def test_mixed16_keeps_batch_normalization_in_float32():
    with rensa.using_config('dtype', rensa.mixed16):
        assert rensa.config.dtype is rensa.mixed16
        assert rensa.get_dtype() == numpy.float16
        assert rensa.get_dtype(map_mixed16=numpy.float32) == numpy.float32
        assert L.Linear(3, 2).W.dtype == numpy.float16
        bn = L.BatchNormalization(3)
        assert bn.gamma.dtype == numpy.float32 and bn.avg_mean.dtype == numpy.float32
        y = bn(numpy.ones((2, 3), numpy.float16))
        assert y.dtype == numpy.float16
    assert L.BatchNormalization(3).gamma.dtype == numpy.float32


def test_config_dtype_is_per_thread_and_checked():
    seen = []
    with rensa.using_config('dtype', numpy.float64):
        t = threading.Thread(target=lambda: seen.append(L.Linear(2, 2).W.dtype))
        t.start()
        t.join()
    assert seen == [numpy.float32]
    with pytest.raises(TypeError, match='float16, float32, float64, mixed16 or mixed_bf16'):
        rensa.config.dtype = numpy.int32
    assert rensa.config.dtype == numpy.float32


def test_retain_data_keeps_the_array_in_the_node():
    a = numpy.arange(3, dtype=numpy.float32)
    v = rensa.Variable(a)
    node = v.node
    assert node.data is None
    v.retain_data()
    del v
    numpy.testing.assert_array_equal(node.data, a)
    y = F.sin(rensa.Variable(a))
    assert y.node.data is None
