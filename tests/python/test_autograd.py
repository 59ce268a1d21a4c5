"""backward, grad, double backprop and the backprop modes from Python."""
import threading

import numpy
import pytest

import rensa


@pytest.fixture
def x_data(rng):
    return rng.uniform(0.5, 2.0, (3, 2))


def test_backward_matches_analytic(x_data):
    x = rensa.Variable(x_data)
    y = x * x * x + 2 * x
    y.grad = numpy.ones_like(x_data)
    y.backward()
    numpy.testing.assert_allclose(x.grad, 3 * x_data ** 2 + 2)


def test_scalar_backward_seed_and_loss_scale():
    x = rensa.Variable(numpy.array(3.0))
    y = x * x
    y.backward(loss_scale=2.0)
    assert x.grad == pytest.approx(12.0)


def test_non_scalar_backward_without_grad_raises(x_data):
    with pytest.raises(ValueError):
        (rensa.Variable(x_data) * 2).backward()


def test_retain_grad(x_data):
    x = rensa.Variable(x_data)
    h = x * 2
    y = h * h
    y.grad = numpy.ones_like(x_data)
    y.backward()
    assert h.grad is None
    x.cleargrad()
    y.backward(retain_grad=True)
    numpy.testing.assert_allclose(h.grad, 2 * h.array)


def test_double_backprop(x_data):
    x = rensa.Variable(x_data)
    y = x * x * x
    y.grad = numpy.ones_like(x_data)
    y.backward(enable_double_backprop=True)
    gx = x.grad_var
    assert gx.creator is not None
    x.cleargrad()
    gx.grad = numpy.ones_like(x_data)
    gx.backward()
    numpy.testing.assert_allclose(x.grad, 6 * x_data)


def test_module_backward_several_outputs(x_data):
    x = rensa.Variable(x_data)
    a, b = x * 2, x * 3
    rensa.backward([a, b], [numpy.ones_like(x_data), numpy.ones_like(x_data)])
    numpy.testing.assert_allclose(x.grad, numpy.full_like(x_data, 5))


def test_grad_function(x_data):
    x = rensa.Variable(x_data)
    w = rensa.Variable(x_data + 1)
    y = x * w
    gx, gw = rensa.grad([y], [x, w], [numpy.ones_like(x_data)])
    numpy.testing.assert_allclose(gx.array, x_data + 1)
    numpy.testing.assert_allclose(gw.array, x_data)
    assert x.grad is None  # grad() does not accumulate
    unrelated = rensa.Variable(x_data)
    assert rensa.grad([y], [unrelated], [numpy.ones_like(x_data)]) == [None]
    rensa.grad([y], [x], [numpy.ones_like(x_data)], set_grad=True)
    numpy.testing.assert_allclose(x.grad, x_data + 1)


def test_grad_double_backprop(x_data):
    x = rensa.Variable(x_data)
    y = x * x * x
    gx, = rensa.grad([y], [x], [numpy.ones_like(x_data)], enable_double_backprop=True)
    ggx, = rensa.grad([gx], [x], [numpy.ones_like(x_data)])
    numpy.testing.assert_allclose(ggx.array, 6 * x_data)


def test_no_backprop_and_force_backprop_mode(x_data):
    x = rensa.Variable(x_data)
    with rensa.no_backprop_mode():
        assert not rensa.config.enable_backprop
        assert (x * 2).creator is None
        with rensa.force_backprop_mode():
            assert (x * 2).creator is not None
        assert (x * 2).creator is None
    assert rensa.config.enable_backprop
    assert (x * 2).creator is not None


def test_mode_restored_after_exception():
    with pytest.raises(RuntimeError):
        with rensa.no_backprop_mode():
            raise RuntimeError('boom')
    assert rensa.config.enable_backprop


def test_graph_release_frees_nodes(x_data):
    x = rensa.Variable(x_data)
    y = x
    for _ in range(1000):
        y = y * 1.0
    y = None  # a long chain is released without recursion
    assert x.creator is None


def test_backward_releases_gil(x_data):
    # Another Python thread makes progress while backward runs (no deadlock, no crash).
    x = rensa.Variable(numpy.ones((256, 256)))
    y = x
    for _ in range(50):
        y = y * 1.01
    counter = []
    t = threading.Thread(target=lambda: [counter.append(i) for i in range(10000)])
    t.start()
    y.grad = numpy.ones((256, 256))
    y.backward()
    t.join()
    assert len(counter) == 10000
    numpy.testing.assert_allclose(x.grad, numpy.full((256, 256), 1.01 ** 50))
