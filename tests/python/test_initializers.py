"""rensa.initializers: statistics, in-place fill of numpy arrays, Chainer's keywords."""
import numpy
import pytest

import rensa
import rensa.initializers as I
import rensa.links as L


def _filled(init, shape, dtype=numpy.float32):
    array = numpy.empty(shape, dtype=dtype)
    init(array)  # fills in place
    return array


@pytest.mark.parametrize('init, value', [
    (I.Constant(2.5), 2.5), (I.Zero(), 0.0), (I.One(), 1.0),
])
def test_constant_fills_in_place(init, value):
    numpy.testing.assert_array_equal(_filled(init, (3, 4)), numpy.full((3, 4), value))


def test_nan():
    assert numpy.isnan(_filled(I.NaN(), (5,))).all()


def test_in_place_float64():
    array = numpy.zeros((2, 3), dtype=numpy.float64)
    I.Constant(fill_value=-1.0)(array)
    numpy.testing.assert_array_equal(array, -numpy.ones((2, 3)))


@pytest.mark.parametrize('init, std', [
    (I.Normal(scale=0.5), 0.5),
    (I.LeCunNormal(scale=2.0), 2.0 * numpy.sqrt(1.0 / 100)),
    (I.GlorotNormal(), numpy.sqrt(2.0 / (100 + 200))),
    (I.HeNormal(), numpy.sqrt(2.0 / 100)),
    (I.HeNormal(fan_option='fan_out'), numpy.sqrt(2.0 / 200)),
])
def test_normal_statistics(init, std):
    w = _filled(init, (200, 100))
    assert abs(w.mean()) < 4 * std / numpy.sqrt(w.size)
    assert abs(w.std() / std - 1) < 0.03


@pytest.mark.parametrize('init, bound', [
    (I.Uniform(scale=0.3), 0.3),
    (I.LeCunUniform(), numpy.sqrt(3.0 / 100)),
    (I.GlorotUniform(scale=1.0), numpy.sqrt(6.0 / (100 + 200))),
    (I.HeUniform(), numpy.sqrt(6.0 / 100)),
])
def test_uniform_statistics(init, bound):
    w = _filled(init, (200, 100))
    assert w.max() <= bound and w.min() >= -bound
    # U(-a, a) has std a / sqrt(3)
    assert abs(w.std() / (bound / numpy.sqrt(3)) - 1) < 0.03


def test_orthogonal_and_identity():
    w = _filled(I.Orthogonal(scale=2.0), (4, 6))
    numpy.testing.assert_allclose(w @ w.T, 4.0 * numpy.eye(4), atol=1e-5)
    numpy.testing.assert_array_equal(_filled(I.Identity(scale=3.0), (3, 3)), 3.0 * numpy.eye(3))


def test_bad_shapes_raise_value_error():
    with pytest.raises(ValueError):
        I.Identity()(numpy.empty((2, 3), numpy.float32))
    with pytest.raises(ValueError):
        I.Orthogonal()(numpy.empty((5,), numpy.float32))
    with pytest.raises(ValueError):
        I.HeNormal(fan_option='fan_sideways')


def test_dtype_keyword_and_generate_array():
    init = I.Constant(1.5, dtype=numpy.float64)
    assert init.dtype == numpy.float64
    a = I.generate_array(init, (2, 2), numpy)
    assert a.dtype == numpy.float64
    numpy.testing.assert_array_equal(a, numpy.full((2, 2), 1.5))
    b = I.generate_array(I.One(), (3,), numpy, dtype=numpy.float32)
    assert b.dtype == numpy.float32 and (b == 1).all()


def test_initialW_accepts_initializer_scalar_and_array():
    w = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    numpy.testing.assert_array_equal(L.Linear(3, 2, initialW=w).W.array, w)
    numpy.testing.assert_array_equal(L.Linear(3, 2, initialW=0.5).W.array, numpy.full((2, 3), 0.5))
    numpy.testing.assert_array_equal(L.Linear(3, 2, initialW=I.One(), initial_bias=2).b.array,
                                     numpy.full((2,), 2.0))
    with pytest.raises(ValueError):
        L.Linear(4, 2, initialW=w)  # wrong shape


class _Twos(I.Initializer):
    def __call__(self, array):
        array[...] = 2


def test_python_initializer_subclass():
    numpy.testing.assert_array_equal(L.Linear(3, 2, initialW=_Twos()).W.array, numpy.full((2, 3), 2))
