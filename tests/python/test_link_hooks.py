"""chainer.LinkHook, Link.add_hook / delete_hook and link_hooks.TimerHook (issue 22)."""
import io
import types

import numpy
import pytest

import rensa as chainer
import rensa.functions as F
import rensa.links as L
from rensa import link_hooks


class Recorder(chainer.LinkHook):
    name = 'Recorder'

    def __init__(self):
        self.events = []

    def added(self, link):
        self.events.append(('added', None if link is None else type(link).__name__))

    def deleted(self, link):
        self.events.append(('deleted', None if link is None else type(link).__name__))

    def forward_preprocess(self, args):
        self.events.append(('pre', type(args.link).__name__, args.forward_name, len(args.args)))

    def forward_postprocess(self, args):
        self.events.append(('post', type(args.link).__name__, tuple(args.out.shape)))


class Net(chainer.Chain):
    def __init__(self):
        super(Net, self).__init__()
        with self.init_scope():
            self.l1 = L.Linear(3, 4)
            self.l2 = L.Linear(4, 2)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


def _x():
    return numpy.ones((2, 3), numpy.float32)


def test_global_hook_sees_python_and_builtin_calls_in_order():
    net = Net()
    hook = Recorder()
    with hook:
        net(_x())
    assert hook.events == [
        ('added', None),
        ('pre', 'Net', 'forward', 1), ('pre', 'Linear', 'forward', 1), ('post', 'Linear', (2, 4)),
        ('pre', 'Linear', 'forward', 1), ('post', 'Linear', (2, 2)), ('post', 'Net', (2, 2)),
        ('deleted', None)]
    # Outside the context nothing is recorded and the built-in call is C++'s own again.
    net(_x())
    assert len(hook.events) == 8
    assert not isinstance(vars(L.Linear)['__call__'], types.FunctionType)


def test_local_hook_on_one_link_and_delete_hook():
    net = Net()
    hook = Recorder()
    assert net.l2.add_hook(hook) is net.l2
    assert list(net.l2.local_link_hooks) == ['Recorder']
    net(_x())
    assert [e[0] for e in hook.events] == ['added', 'pre', 'post']
    assert hook.events[1][1] == 'Linear'
    with pytest.raises(KeyError, match='already exists'):
        net.l2.add_hook(hook)
    net.l2.add_hook(Recorder(), name='second')
    net.l2.delete_hook('Recorder')
    net.l2.delete_hook('second')
    assert hook.events[-1] == ('deleted', 'Linear')
    with pytest.raises(KeyError, match='does not exist'):
        net.l2.delete_hook('Recorder')
    with pytest.raises(TypeError, match='LinkHook'):
        net.add_hook(object())


def test_duplicate_global_hook_name_is_an_error():
    with Recorder():
        with pytest.raises(KeyError, match='already exists'):
            with Recorder():
                pass


def test_timer_hook_reports_links():
    net = Net()
    hook = link_hooks.TimerHook()
    with hook:
        for _ in range(3):
            net(_x())
    summary = hook.summary()
    assert summary['Linear']['occurrence'] == 6 and summary['Net']['occurrence'] == 3
    assert hook.total_time() > 0
    out = io.StringIO()
    hook.print_report(file=out)
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ['LinkName', 'ElapsedTime', 'Occurrence'] and len(lines) == 3
    with pytest.raises(ValueError, match='unit'):
        hook.print_report(unit='minutes', file=out)


def test_spectral_normalization_divides_by_the_largest_singular_value(rng):
    link = L.Linear(5, 4)
    hook = link_hooks.SpectralNormalization(n_power_iteration=50)
    link.add_hook(hook)
    assert link.W_u.shape == (4,)
    W = link.W.array.copy()
    x = rng.standard_normal((3, 5)).astype(numpy.float32)
    y = link(x)
    sigma = numpy.linalg.svd(W, compute_uv=False)[0]
    numpy.testing.assert_allclose(y.array, x @ (W / sigma).T + link.b.array, rtol=1e-4, atol=1e-5)
    # The parameter is back in place, and the gradient reached it through W / sigma.
    assert isinstance(link.W, chainer.Parameter) and link.W.array is not None
    F.sum(y).backward()
    assert link.W.grad is not None and numpy.abs(link.W.grad).sum() > 0
    # u moved to the first left singular vector (training mode).
    u = numpy.linalg.svd(W)[0][:, 0]
    assert abs(abs(float(link.W_u @ u)) - 1) < 1e-3


def test_spectral_normalization_gradient_matches_finite_differences(rng):
    link = L.Linear(3, 2)
    link.add_hook(link_hooks.SpectralNormalization(n_power_iteration=30))
    x = rng.standard_normal((4, 3)).astype(numpy.float32)
    with chainer.using_config('train', False):  # u fixed during the check
        link(x)
        W0 = link.W.array.astype(numpy.float64).copy()
        F.sum(link(x) ** 2).backward()
        analytic = link.W.grad.copy()
        eps = 1e-3
        numeric = numpy.zeros_like(W0)
        for i in numpy.ndindex(W0.shape):
            vals = []
            for d in (eps, -eps):
                link.W.array[...] = W0
                link.W.array[i] += d
                vals.append(float(F.sum(link(x) ** 2).array))
            numeric[i] = (vals[0] - vals[1]) / (2 * eps)
        link.W.array[...] = W0
    numpy.testing.assert_allclose(analytic, numeric, rtol=2e-2, atol=2e-3)


def test_weight_standardization_standardises_each_output_row(rng):
    link = L.Convolution2D(2, 3, 3)
    link.add_hook(link_hooks.WeightStandardization())
    x = rng.standard_normal((1, 2, 5, 5)).astype(numpy.float32)
    W = link.W.array.astype(numpy.float64)
    flat = W.reshape(3, -1)
    W_hat = ((flat - flat.mean(axis=1, keepdims=True)) / numpy.sqrt(flat.var(axis=1, keepdims=True) + 1e-5))
    expected = F.convolution_2d(x, W_hat.reshape(W.shape).astype(numpy.float32), link.b).array
    numpy.testing.assert_allclose(link(x).array, expected, rtol=1e-4, atol=1e-4)
    assert isinstance(link.W, chainer.Parameter)


def test_weight_hooks_are_not_context_managers_and_need_the_weight():
    with pytest.raises(NotImplementedError):
        with link_hooks.SpectralNormalization():
            pass
    with pytest.raises(ValueError, match="weight 'V'"):
        L.Linear(2, 2).add_hook(link_hooks.WeightStandardization(weight_name='V'))
