"""rensa.optimizers, rensa.optimizer and rensa.optimizer_hooks against numpy references."""
import gc

import numpy as np
import pytest

import rensa
from rensa import optimizer_hooks as hooks
from rensa import optimizers

L = rensa._core.links


def make_link(seed=0):
    rng = np.random.RandomState(seed)
    link = L.Linear(3, 2)
    link.W.array[...] = rng.uniform(-1, 1, (2, 3)).astype(np.float32)
    link.b.array[...] = rng.uniform(-1, 1, (2,)).astype(np.float32)
    return link


def grads(step):
    rng = np.random.RandomState(100 + step)
    return {'W': rng.uniform(-1, 1, (2, 3)).astype(np.float32),
            'b': rng.uniform(-1, 1, (2,)).astype(np.float32)}


def set_grads(link, g):
    # Copies: the grad aliases the numpy array, and hooks change grads in place.
    link.W.grad = g['W'].copy()
    link.b.grad = g['b'].copy()


def params(link):
    return {'W': np.array(link.W.array, dtype=np.float64), 'b': np.array(link.b.array, dtype=np.float64)}


def total(v):
    # A scalar-like loss from matmuls only (sum of all elements of a 2-d Variable).
    return np.ones((1, v.shape[0]), np.float32) @ v @ np.ones((v.shape[1], 1), np.float32)


# numpy versions of Chainer's update rules: rule(p, g, state, t) updates p and state.
def ref_sgd(lr=0.01):
    def rule(p, g, s, t):
        p -= lr * g
    return rule


def ref_momentum(lr=0.01, momentum=0.9):
    def rule(p, g, s, t):
        v = s.setdefault('v', np.zeros_like(p))
        v *= momentum
        v -= lr * g
        p += v
    return rule


def ref_nesterov(lr=0.01, momentum=0.9):
    def rule(p, g, s, t):
        v = s.setdefault('v', np.zeros_like(p))
        v *= momentum
        v -= lr * g
        p += momentum * momentum * v
        p -= (1 + momentum) * lr * g
    return rule


def ref_adagrad(lr=0.001, eps=1e-8):
    def rule(p, g, s, t):
        h = s.setdefault('h', np.zeros_like(p))
        h += g * g
        p -= lr * g / (np.sqrt(h) + eps)
    return rule


def ref_rmsprop(lr=0.01, alpha=0.99, eps=1e-8):
    def rule(p, g, s, t):
        ms = s.setdefault('ms', np.zeros_like(p))
        ms *= alpha
        ms += (1 - alpha) * g * g
        p -= lr * g / (np.sqrt(ms) + eps)
    return rule


def ref_adadelta(rho=0.95, eps=1e-6):
    def rule(p, g, s, t):
        msg = s.setdefault('msg', np.zeros_like(p))
        msdx = s.setdefault('msdx', np.zeros_like(p))
        msg *= rho
        msg += (1 - rho) * g * g
        dx = np.sqrt((msdx + eps) / (msg + eps)) * g
        msdx *= rho
        msdx += (1 - rho) * dx * dx
        p -= dx
    return rule


def ref_adam(alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8, eta=1.0, weight_decay_rate=0.0, amsgrad=False):
    def rule(p, g, s, t):
        m = s.setdefault('m', np.zeros_like(p))
        v = s.setdefault('v', np.zeros_like(p))
        m += (1 - beta1) * (g - m)
        v += (1 - beta2) * (g * g - v)
        vhat = v
        if amsgrad:
            vh = s.setdefault('vhat', np.zeros_like(p))
            np.maximum(vh, v, out=vh)
            vhat = vh
        alpha_t = alpha * np.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
        p -= eta * (alpha_t * m / (np.sqrt(vhat) + eps) + weight_decay_rate * p)
    return rule


CASES = [
    (lambda: optimizers.SGD(lr=0.1), ref_sgd(0.1)),
    (lambda: optimizers.MomentumSGD(lr=0.05, momentum=0.8), ref_momentum(0.05, 0.8)),
    (lambda: optimizers.NesterovAG(lr=0.05), ref_nesterov(0.05)),
    (lambda: optimizers.AdaGrad(lr=0.1), ref_adagrad(0.1)),
    (lambda: optimizers.RMSprop(lr=0.01, alpha=0.9), ref_rmsprop(0.01, 0.9)),
    (lambda: optimizers.AdaDelta(), ref_adadelta()),
    (lambda: optimizers.Adam(alpha=0.01, weight_decay_rate=0.1, eta=0.5),
     ref_adam(0.01, weight_decay_rate=0.1, eta=0.5)),
    (lambda: optimizers.Adam(alpha=0.01, amsgrad=True), ref_adam(0.01, amsgrad=True)),
    (lambda: optimizers.AdamW(alpha=0.01, weight_decay_rate=0.01), ref_adam(0.01, weight_decay_rate=0.01)),
]


@pytest.mark.parametrize('make_opt,ref', CASES)
def test_updates_match_numpy(make_opt, ref):
    link = make_link()
    opt = make_opt()
    assert opt.setup(link) is opt
    expected = params(link)
    state = {'W': {}, 'b': {}}
    for step in range(1, 4):
        g = grads(step)
        set_grads(link, g)
        opt.update()
        for name in ('W', 'b'):
            ref(expected[name], g[name].astype(np.float64), state[name], step)
        assert opt.t == step
        got = params(link)
        for name in ('W', 'b'):
            np.testing.assert_allclose(got[name], expected[name], rtol=1e-5, atol=1e-6)


def test_chainer_defaults():
    assert optimizers.SGD().lr == pytest.approx(0.01)
    m = optimizers.MomentumSGD()
    assert (m.lr, m.momentum) == (pytest.approx(0.01), pytest.approx(0.9))
    a = optimizers.Adam()
    assert a.alpha == pytest.approx(0.001) and a.beta1 == pytest.approx(0.9) and a.beta2 == pytest.approx(0.999)
    assert a.eps == pytest.approx(1e-8) and a.eta == pytest.approx(1.0) and a.weight_decay_rate == 0
    assert a.amsgrad is False and a.adabound is False
    assert a.final_lr == pytest.approx(0.1) and a.gamma == pytest.approx(1e-3)
    assert optimizers.AMSGrad().amsgrad is True
    assert optimizers.AdaBound().adabound is True
    r = optimizers.RMSpropGraves()
    assert (r.lr, r.alpha, r.momentum, r.eps) == tuple(pytest.approx(x) for x in (1e-4, 0.95, 0.9, 1e-4))
    assert optimizers.MSVAG().lr == pytest.approx(0.1)
    assert optimizers.SMORMS3().lr == pytest.approx(0.001)
    assert set(a.hyperparam.get_dict()) >= {'alpha', 'beta1', 'beta2', 'eps', 'eta', 'weight_decay_rate'}


@pytest.mark.parametrize('make_opt', [
    optimizers.CorrectedMomentumSGD, optimizers.RMSpropGraves, optimizers.SMORMS3, optimizers.MSVAG,
    optimizers.AdaBound, optimizers.AMSBound, optimizers.AMSGrad])
def test_other_optimizers_step_downhill(make_opt):
    # Loss sum(W * c): each optimizer's first steps must move W against c.
    link = make_link()
    opt = make_opt().setup(link)
    c = np.array([[1, -1, 2], [-2, 1, -1]], np.float32)
    before = params(link)['W']
    for _ in range(3):
        link.W.grad = c
        link.b.grad = np.zeros(2, np.float32)
        opt.update()
    delta = params(link)['W'] - before
    assert np.all(np.sign(delta) == -np.sign(c))


def test_lr_attribute_and_hyperparam():
    link = make_link()
    opt = optimizers.SGD(lr=0.1).setup(link)
    opt.lr = 0.5
    assert opt.lr == pytest.approx(0.5) and opt.hyperparam.lr == pytest.approx(0.5)
    assert link.W.update_rule.hyperparam.lr == pytest.approx(0.5)
    before = params(link)
    g = grads(1)
    set_grads(link, g)
    opt.update()
    np.testing.assert_allclose(params(link)['W'], before['W'] - 0.5 * g['W'], rtol=1e-6)
    # A rule's own value overrides the optimizer's for that parameter only.
    link.b.update_rule.hyperparam.lr = 0.0
    opt.hyperparam.lr = 0.25
    before = params(link)
    set_grads(link, g)
    opt.update()
    np.testing.assert_allclose(params(link)['W'], before['W'] - 0.25 * g['W'], rtol=1e-6)
    np.testing.assert_array_equal(params(link)['b'], before['b'])
    # Other names stay ordinary attributes.
    opt.my_note = 'x'
    assert opt.my_note == 'x'
    with pytest.raises(AttributeError):
        opt.no_such_hyperparameter


def test_adam_lr_is_alpha_t():
    link = make_link()
    opt = optimizers.Adam(alpha=0.01, beta1=0.8, beta2=0.9).setup(link)
    for _ in range(2):
        set_grads(link, grads(0))
        opt.update()
    assert opt.lr == pytest.approx(0.01 * np.sqrt(1 - 0.9 ** 2) / (1 - 0.8 ** 2))
    opt.alpha = 0.02
    assert opt.hyperparam.alpha == pytest.approx(0.02)
    assert opt.alpha_t == pytest.approx(2 * 0.01 * np.sqrt(1 - 0.9 ** 2) / (1 - 0.8 ** 2))


def test_update_with_lossfun_clears_grads():
    link = make_link()
    opt = optimizers.SGD(lr=0.1).setup(link)
    x = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    for step in range(2):  # the second step must not accumulate the first step's grads
        before = params(link)
        opt.update(lambda v, scale=1.0: total(link(v)) * scale, x, scale=2.0)
        np.testing.assert_allclose(params(link)['W'], before['W'] - 0.1 * 2 * np.tile(x.sum(0), (2, 1)), rtol=1e-5)
        np.testing.assert_allclose(params(link)['b'], before['b'] - 0.1 * 2 * 4, rtol=1e-5)
    assert opt.t == 2


def test_target_epoch_and_disabled_rule():
    link = make_link()
    opt = optimizers.SGD(lr=0.1)
    assert opt.target is None
    opt.setup(link)
    assert opt.target is link
    assert opt.epoch == 0
    opt.new_epoch()
    assert opt.epoch == 1
    link.W.update_rule.enabled = False
    before = params(link)
    set_grads(link, grads(1))
    opt.update()
    np.testing.assert_array_equal(params(link)['W'], before['W'])
    assert not np.array_equal(params(link)['b'], before['b'])
    state = optimizers.Adam().setup(link)
    set_grads(link, grads(1))
    state.update()
    assert set(link.b.update_rule.state) == {'m', 'v'}
    np.testing.assert_array_equal(link.b.update_rule.state['m'], 0.1 * grads(1)['b'])


def sgd_step_with(hook, g, lr=0.1):
    link = make_link()
    opt = optimizers.SGD(lr=lr).setup(link)
    opt.add_hook(hook)
    before = params(link)
    set_grads(link, g)
    opt.update()
    return before, params(link)


def test_weight_decay_and_lasso():
    g = grads(1)
    before, after = sgd_step_with(hooks.WeightDecay(0.1), g)
    np.testing.assert_allclose(after['W'], before['W'] - 0.1 * (g['W'] + 0.1 * before['W']), rtol=1e-5)
    before, after = sgd_step_with(hooks.Lasso(0.1), g)
    np.testing.assert_allclose(after['W'], before['W'] - 0.1 * (g['W'] + 0.1 * np.sign(before['W'])), rtol=1e-5)


def test_gradient_clipping():
    g = grads(1)
    norm = np.sqrt(sum((v.astype(np.float64) ** 2).sum() for v in g.values()))
    before, after = sgd_step_with(hooks.GradientClipping(norm / 2), g, lr=1.0)
    for name in ('W', 'b'):
        np.testing.assert_allclose(after[name], before[name] - g[name] / 2, rtol=1e-5, atol=1e-6)
    before, after = sgd_step_with(hooks.GradientHardClipping(-0.2, 0.3), g, lr=1.0)
    np.testing.assert_allclose(after['W'], before['W'] - np.clip(g['W'], -0.2, 0.3), rtol=1e-6)


def test_hook_on_update_rule_and_lars_noise_construct():
    link = make_link()
    opt = optimizers.SGD(lr=1.0).setup(link)
    link.W.update_rule.add_hook(hooks.GradientHardClipping(-0.1, 0.1))
    before = params(link)
    g = grads(1)
    set_grads(link, g)
    opt.update()
    np.testing.assert_allclose(params(link)['W'], before['W'] - np.clip(g['W'], -0.1, 0.1), rtol=1e-6)
    np.testing.assert_allclose(params(link)['b'], before['b'] - g['b'], rtol=1e-6)
    assert hooks.GradientLARS().threshold == pytest.approx(1e-2)
    assert hooks.GradientNoise(0.3).eta == pytest.approx(0.3)


def test_gradient_noise_python_noise_func():
    seen = []

    def noise(xp, shape, dtype, hook, rule):
        seen.append((shape, hook.eta))
        return xp.full(shape, 0.5, dtype=dtype)

    g = grads(1)
    before, after = sgd_step_with(hooks.GradientNoise(0.3, noise_func=noise), g, lr=1.0)
    np.testing.assert_allclose(after['W'], before['W'] - (g['W'] + 0.5), rtol=1e-6)
    assert sorted(seen) == [((2,), pytest.approx(0.3)), ((2, 3), pytest.approx(0.3))]


def test_python_function_hook_held_only_by_cpp():
    link = make_link()
    opt = optimizers.SGD(lr=1.0).setup(link)
    log = []

    def make_hook():
        def scale_grads(optimizer):
            log.append(optimizer.t)
            optimizer.target.W.grad = optimizer.target.W.grad * 0  # freezes W this step
        return scale_grads

    opt.add_hook(make_hook())
    gc.collect()
    before = params(link)
    set_grads(link, grads(1))
    opt.update()
    assert log == [0]
    np.testing.assert_array_equal(params(link)['W'], before['W'])
    opt.remove_hook('scale_grads')
    opt.update()
    assert log == [0]


def test_python_per_param_hook_object():
    link = make_link()
    opt = optimizers.SGD(lr=1.0).setup(link)
    seen = []

    class Recorder(object):
        name = 'Recorder'
        timing = 'post'
        call_for_each_param = True

        def __call__(self, rule, param):
            seen.append((param.shape, rule.t, np.array(param.array)))

    opt.add_hook(Recorder())
    gc.collect()
    g = grads(1)
    set_grads(link, g)
    before = params(link)
    opt.update()
    assert sorted(s[0] for s in seen) == [(2,), (2, 3)]
    by_shape = {s[0]: s for s in seen}
    assert by_shape[(2, 3)][1] == 1  # post: after the rule counted its step
    np.testing.assert_allclose(by_shape[(2, 3)][2], before['W'] - g['W'], rtol=1e-6)


def test_hook_errors():
    opt = optimizers.SGD().setup(make_link())
    opt.add_hook(hooks.WeightDecay(0.1))
    with pytest.raises(ValueError, match='WeightDecay'):
        opt.add_hook(hooks.WeightDecay(0.2))
    opt.add_hook(hooks.WeightDecay(0.2), name='wd2')
    with pytest.raises(ValueError, match='timing'):
        opt.add_hook(hooks.Lasso(0.1), timing='later')
    with pytest.raises(ValueError, match='not callable'):
        opt.add_hook(42)
    opt.remove_hook('wd2')
    opt.remove_hook('WeightDecay')


def test_optimizer_module_exports():
    assert rensa.optimizer.Optimizer is rensa._core.optimizers.Optimizer
    assert issubclass(optimizers.Adam, rensa.optimizer.GradientMethod)
    assert rensa.optimizer.WeightDecay is hooks.WeightDecay
    link = make_link()
    optimizers.Adam().setup(link)
    assert isinstance(link.W.update_rule, rensa.optimizer.UpdateRule)


def test_static_loss_scaling_gives_the_same_update():
    x = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    results = []
    for scale in (None, 8.0):
        link = make_link()
        opt = optimizers.SGD(lr=0.1).setup(link)
        if scale is not None:
            opt.loss_scaling(scale=scale)
            assert opt._loss_scale == pytest.approx(scale)
        opt.update(lambda v: total(link(v)), x)
        results.append(params(link))
    np.testing.assert_allclose(results[1]['W'], results[0]['W'], rtol=1e-6)
    np.testing.assert_allclose(results[1]['b'], results[0]['b'], rtol=1e-6)


def test_update_rule_attributes():
    link = make_link()
    opt = optimizers.MomentumSGD(lr=0.1, momentum=0.5).setup(link)
    rule = link.W.update_rule
    assert rule.lr == pytest.approx(0.1) and rule.momentum == pytest.approx(0.5)
    assert rule.t == 0 and rule.state == {}
    set_grads(link, grads(1))
    opt.update()
    assert rule.t == 1
    # state arrays are views: editing one changes the next update.
    rule.state['v'][...] = 0
    before = params(link)
    set_grads(link, grads(2))
    opt.update()
    np.testing.assert_allclose(params(link)['W'], before['W'] - 0.1 * grads(2)['W'], rtol=1e-5)
    rule.use_fp32_update = True
    assert rule.use_fp32_update is True
    opt.use_fp32_update()
