"""Python subclasses of Optimizer, GradientMethod and UpdateRule (Chainer's documented way
of writing an optimizer), UpdateRule.state, and copies / pickling of optimizers (issue 22)."""
import copy
import pickle

import numpy
import pytest

import rensa as chainer
import rensa.functions as F
import rensa.links as L
from rensa import optimizer as optimizer_module
from rensa import optimizers


class MomentumRule(optimizer_module.UpdateRule):
    """Chainer's docs: a rule with state made in init_state and an update_core_cpu."""

    def __init__(self, parent_hyperparam=None, lr=0.1, momentum=0.5):
        super(MomentumRule, self).__init__(parent_hyperparam)
        if parent_hyperparam is None:
            self.hyperparam.lr = lr
            self.hyperparam.momentum = momentum

    def init_state(self, param):
        self.state['v'] = numpy.zeros_like(param.data)

    def update_core_cpu(self, param):
        v = self.state['v']
        v *= self.hyperparam.momentum
        v -= self.hyperparam.lr * param.grad
        param.data += v


class MyMomentumSGD(optimizer_module.GradientMethod):
    def __init__(self, lr=0.1, momentum=0.5):
        super(MyMomentumSGD, self).__init__()
        self.hyperparam.lr = lr
        self.hyperparam.momentum = momentum

    def create_update_rule(self):
        return MomentumRule(self.hyperparam)


def _problem(rng):
    model = L.Linear(3, 2)
    x = rng.standard_normal((6, 3)).astype(numpy.float32)
    return model, x


def _steps(optimizer, model, x, n):
    for _ in range(n):
        optimizer.update(lambda: F.sum(model(x) ** 2))


def test_python_gradient_method_matches_builtin_momentum_sgd(rng):
    model, x = _problem(rng)
    reference = model.copy('copy')
    mine = MyMomentumSGD(lr=0.05, momentum=0.5)
    mine.setup(model)
    theirs = optimizers.MomentumSGD(lr=0.05, momentum=0.5)
    theirs.setup(reference)
    _steps(mine, model, x, 3)
    _steps(theirs, reference, x, 3)
    numpy.testing.assert_allclose(model.W.array, reference.W.array, rtol=1e-5)
    assert mine.t == 3 and model.W.update_rule.t == 3
    assert isinstance(model.W.update_rule, MomentumRule)
    assert set(model.W.update_rule.state) == {'v'}
    assert mine.lr == 0.05


def test_python_rule_drives_standard_updater(rng):
    model = L.Classifier(L.Linear(3, 2))
    opt = MyMomentumSGD()
    opt.setup(model)
    data = chainer.datasets.TupleDataset(rng.standard_normal((8, 3)).astype(numpy.float32),
                                         numpy.arange(8, dtype=numpy.int32) % 2)
    before = model.predictor.W.array.copy()
    updater = chainer.training.updaters.StandardUpdater(chainer.iterators.SerialIterator(data, 4), opt)
    updater.update()
    assert not numpy.array_equal(before, model.predictor.W.array)
    assert model.predictor.W.update_rule.t == 1


def test_rule_without_update_core_names_its_class(rng):
    class Lazy(optimizer_module.UpdateRule):
        pass

    class Method(optimizer_module.GradientMethod):
        def create_update_rule(self):
            return Lazy(self.hyperparam)

    model, x = _problem(rng)
    opt = Method()
    opt.setup(model)
    with pytest.raises(NotImplementedError, match='Lazy'):
        _steps(opt, model, x, 1)


def test_create_update_rule_must_return_a_rule():
    class Broken(optimizer_module.GradientMethod):
        def create_update_rule(self):
            return 3

    with pytest.raises(TypeError, match='UpdateRule'):
        Broken().setup(L.Linear(2, 2))


def test_python_optimizer_update_is_called_from_cpp(rng):
    class Halver(optimizer_module.Optimizer):
        def update(self, lossfun=None, *args, **kwds):
            if lossfun is not None:
                loss = lossfun(*args, **kwds)
                self.target.cleargrads()
                loss.backward()
            for param in self.target.params():
                param.array[...] *= 0.5
            self.t += 1

    model = L.Classifier(L.Linear(3, 2))
    opt = Halver()
    opt.setup(model)
    data = chainer.datasets.TupleDataset(rng.standard_normal((4, 3)).astype(numpy.float32),
                                         numpy.zeros(4, numpy.int32))
    before = model.predictor.W.array.copy()
    chainer.training.updaters.StandardUpdater(chainer.iterators.SerialIterator(data, 4), opt).update()
    numpy.testing.assert_allclose(model.predictor.W.array, before * 0.5)
    assert opt.t == 1


def test_update_rule_state_mapping_aliases_arrays(rng):
    model, x = _problem(rng)
    opt = optimizers.Adam()
    opt.setup(model)
    _steps(opt, model, x, 1)
    state = model.W.update_rule.state
    assert set(state) == {'m', 'v'} and len(state) == 2
    state['m'][...] = 0
    assert (model.W.update_rule.state['m'] == 0).all()
    with pytest.raises(KeyError):
        state['nope']


@pytest.mark.parametrize('how', ['pickle', 'deepcopy'])
def test_optimizer_copies_continue_like_the_original(rng, how):
    model, x = _problem(rng)
    opt = optimizers.Adam(alpha=0.01)
    opt.setup(model)
    _steps(opt, model, x, 2)
    clone = pickle.loads(pickle.dumps(opt)) if how == 'pickle' else copy.deepcopy(opt)
    assert type(clone) is optimizers.Adam and clone.alpha == pytest.approx(0.01) and clone.t == 2
    assert clone.target is not opt.target
    numpy.testing.assert_array_equal(clone.target.W.update_rule.state['v'], model.W.update_rule.state['v'])
    _steps(opt, model, x, 2)
    _steps(clone, clone.target, x, 2)
    numpy.testing.assert_allclose(clone.target.W.array, model.W.array, rtol=1e-6)


def test_shallow_copy_of_optimizer_shares_the_target(rng):
    model, x = _problem(rng)
    opt = optimizers.SGD(lr=0.1)
    opt.setup(model)
    clone = copy.copy(opt)
    assert clone.target is model and clone.lr == pytest.approx(0.1)


def test_pickle_of_python_gradient_method(rng):
    model, x = _problem(rng)
    opt = MyMomentumSGD(lr=0.05)
    opt.setup(model)
    _steps(opt, model, x, 2)
    clone = pickle.loads(pickle.dumps(opt))
    assert type(clone) is MyMomentumSGD and isinstance(clone.target.W.update_rule, MomentumRule)
    _steps(opt, model, x, 1)
    _steps(clone, clone.target, x, 1)
    numpy.testing.assert_allclose(clone.target.W.array, model.W.array, rtol=1e-6)


def test_loss_scale_helpers(rng):
    model, x = _problem(rng)
    opt = optimizers.SGD(lr=0.1)
    opt.setup(model)
    opt.set_loss_scale(8.0)
    assert opt.loss_scale == 8.0
    opt.check_nan_in_grads()  # static scaling: nothing checked
    assert opt.is_safe_to_update()
    opt.loss_scaling()
    model.cleargrads()
    F.sum(model(x)).backward()
    opt.check_nan_in_grads()
    assert opt.is_safe_to_update()
    model.W.grad[0, 0] = numpy.inf
    with pytest.warns(UserWarning, match='Non finite'):
        opt.check_nan_in_grads()
    assert not opt.is_safe_to_update()
    with pytest.warns(DeprecationWarning):
        opt.use_cleargrads()
