"""Link, Chain, ChainList, Sequential, Parameter from Python (Chainer's behaviour)."""
import gc

import numpy
import pytest

import rensa
import rensa.functions as F
import rensa.links as L
from rensa import link


def _x(*shape):
    return numpy.random.RandomState(0).uniform(-1, 1, shape).astype(numpy.float32)


class MLP(link.Chain):
    def __init__(self, n_units=5, n_out=3):
        super().__init__()
        self.n_units = n_units  # plain attribute (outside init_scope)
        with self.init_scope():
            self.l1 = L.Linear(None, n_units)
            self.l2 = L.Linear(n_units, n_out)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


def _mlp_ref(model, x):
    h = numpy.maximum(x @ model.l1.W.array.T + model.l1.b.array, 0)
    return h @ model.l2.W.array.T + model.l2.b.array


def test_chain_init_scope_and_lazy_linear():
    model = MLP()
    assert not model.l1.W.is_initialized
    x = _x(4, 7)
    y = model(x)
    assert model.l1.W.shape == (5, 7)
    numpy.testing.assert_allclose(y.array, _mlp_ref(model, x), rtol=1e-5, atol=1e-6)
    assert [n for n, _ in model.namedparams()] == ['/l1/W', '/l1/b', '/l2/W', '/l2/b']
    assert [n for n, _ in model.namedlinks()] == ['/', '/l1', '/l2']
    assert model.n_units == 5
    assert model['l2'] is model.l2
    assert model.count_params() == 5 * 7 + 5 + 3 * 5 + 3


def test_params_include_uninit():
    model = MLP()
    assert len(list(model.params())) == 4
    assert len(list(model.params(include_uninit=False))) == 3


def test_link_with_own_parameters_and_persistent():
    class Affine(link.Link):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.a = link.Parameter(numpy.float32(2.0) * numpy.ones((3,), numpy.float32))
                self.c = link.Parameter(rensa.initializers.Zero(), (3,))
            self.add_persistent('count', 0)

        def forward(self, x):
            self.count += 1
            return x * self.a + self.c

    f = Affine()
    x = _x(2, 3)
    numpy.testing.assert_allclose(f(x).array, x * 2)
    f(x)
    assert f.count == 2
    assert [n for n, _ in f.namedparams()] == ['/a', '/c']
    assert f.a.name == 'a'


def test_cleargrads_zerograds_addgrads_copyparams():
    a, b = MLP(), MLP()
    x = _x(2, 4)
    F.sum(a(x)).backward()
    F.sum(b(x)).backward()
    ga = a.l1.W.grad.copy()
    a.addgrads(b)
    numpy.testing.assert_allclose(a.l1.W.grad, ga + b.l1.W.grad, rtol=1e-6)
    a.cleargrads()
    assert a.l1.W.grad is None
    a.zerograds()
    assert (a.l2.W.grad == 0).all()
    a.copyparams(b)
    numpy.testing.assert_array_equal(a.l1.W.array, b.l1.W.array)
    assert a.l1.W.array is not b.l1.W.array


def test_update_switches():
    model = MLP()
    model.disable_update()
    assert not model.update_enabled and not model.l1.W.update_enabled
    model.enable_update()
    assert model.update_enabled


@pytest.mark.parametrize('mode', ['share', 'copy', 'init'])
def test_copy_keeps_class_and_mode(mode):
    model = MLP()
    model(_x(2, 4))
    c = model.copy(mode)
    assert type(c) is MLP and c.n_units == 5
    assert [n for n, _ in c.namedparams()] == [n for n, _ in model.namedparams()]
    model.l2.W.array[...] = 7
    shared = (c.l2.W.array == 7).all()
    assert shared == (mode == 'share')
    numpy.testing.assert_allclose(c(_x(2, 4)).array, _mlp_ref(c, _x(2, 4)), rtol=1e-5, atol=1e-6)


def test_builtin_copy_and_repeat():
    lin = L.Linear(3, 2)
    shared = lin.copy()
    assert type(shared) is L.Linear
    lin.W.array[...] = 1
    assert (shared.W.array == 1).all()
    seq = lin.repeat(3)
    assert len(list(seq.children())) == 3


def test_chainlist_index_len_iter():
    class Stack(link.ChainList):
        def __init__(self):
            super().__init__(L.Linear(3, 4), L.Linear(4, 2))

        def forward(self, x):
            for layer in self:
                x = layer(x)
            return x

    s = Stack()
    assert len(s) == 2 and s[1] is list(s)[1] and s[-1] is s[1]
    assert [n for n, _ in s.namedparams()] == ['/0/W', '/0/b', '/1/W', '/1/b']
    x = _x(2, 3)
    ref = (x @ s[0].W.array.T + s[0].b.array) @ s[1].W.array.T + s[1].b.array
    numpy.testing.assert_allclose(s(x).array, ref, rtol=1e-5, atol=1e-6)
    with pytest.raises(IndexError):
        s[2]


def test_sequential_with_functions_and_lambdas():
    seq = link.Sequential(L.Linear(3, 4), F.relu, lambda v: v * 2, L.Linear(4, 2))
    assert len(seq) == 4
    x = _x(5, 3)
    h = numpy.maximum(x @ seq[0].W.array.T + seq[0].b.array, 0) * 2
    numpy.testing.assert_allclose(seq(x).array, h @ seq[3].W.array.T + seq[3].b.array,
                                  rtol=1e-5, atol=1e-6)
    assert [n for n, _ in seq.namedparams()] == ['/0/W', '/0/b', '/1/W', '/1/b']


def test_python_predictor_held_only_by_cpp():
    model = L.Classifier(MLP(n_out=3))
    gc.collect()  # the MLP now lives only through the C++ Classifier
    x, t = _x(6, 4), numpy.array([0, 1, 2, 0, 1, 2], numpy.int32)
    loss = model(x, t)
    assert isinstance(model.predictor, MLP)
    ref = _mlp_ref(model.predictor, x)
    ref = ref - ref.max(axis=1, keepdims=True)
    logp = ref - numpy.log(numpy.exp(ref).sum(axis=1, keepdims=True))
    numpy.testing.assert_allclose(float(loss.array), -logp[numpy.arange(6), t].mean(), rtol=1e-5)
    acc = (ref.argmax(axis=1) == t).mean()
    numpy.testing.assert_allclose(float(model.accuracy.array), acc)
    assert [n for n, _ in model.namedparams()][0] == '/predictor/l1/W'
    model.compute_accuracy = False
    assert not model.compute_accuracy
    numpy.testing.assert_allclose(float(model(x, t).array), float(loss.array), rtol=1e-6)


def test_old_style_call_only_subclass():
    class Old(link.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l = L.Linear(3, 3)

        def __call__(self, x):
            return F.relu(self.l(x))

    model = L.Classifier(Old())
    gc.collect()
    loss = model(_x(4, 3), numpy.array([0, 1, 2, 0], numpy.int32))
    assert loss.shape == ()


def test_errors_name_shapes():
    lin = L.Linear(3, 2)
    with pytest.raises(ValueError, match='3|4'):
        lin(_x(2, 4))
    with pytest.raises(ValueError):
        lin.copy('deep')
    with pytest.raises(KeyError):
        MLP()['nope']
    with pytest.raises(AttributeError):
        MLP().nope


def test_to_cpu_and_gpu():
    model = MLP()
    assert model.to_cpu() is model
    assert model.xp is numpy
    if not getattr(rensa.cuda, 'available', False):
        with pytest.raises(RuntimeError):
            model.to_gpu()


def test_save_load_npz_names_and_serialize_override(tmp_path):
    class WithState(MLP):
        def __init__(self):
            super().__init__()
            self.steps = 0
            with self.init_scope():
                self.bn = L.BatchNormalization(3)

        def serialize(self, serializer):
            super().serialize(serializer)
            self.steps = serializer('steps', self.steps)

    a = WithState()
    a(_x(2, 4))
    a.steps = 17
    a.bn.avg_mean[...] = 3
    path = str(tmp_path / 'model.npz')
    rensa.serializers.save_npz(path, a)
    with numpy.load(path) as f:
        names = set(f.files)
    assert {'l1/W', 'l1/b', 'l2/W', 'bn/avg_mean', 'bn/gamma', 'steps'} <= names
    b = WithState()
    rensa.serializers.load_npz(path, b)
    numpy.testing.assert_array_equal(b.l1.W.array, a.l1.W.array)
    numpy.testing.assert_array_equal(b.bn.avg_mean, numpy.full((3,), 3, numpy.float32))
    assert b.steps == 17


def test_add_param_register_persistent_and_early_attribute_lookup():
    class Early(link.Link):
        def __init__(self):
            assert not hasattr(self, 'W')  # before Link.__init__: AttributeError, not a crash
            super().__init__()
            self.add_param('W', (2, 3), initializer=rensa.initializers.One())
            self.total = numpy.zeros((3,), numpy.float32)
            self.register_persistent('total')
            assert not self.within_init_scope
            with self.init_scope():
                assert self.within_init_scope

    e = Early()
    assert e.W.shape == (2, 3) and (e.W.array == 1).all()
    e.total[...] = 4  # a numpy view of the C++ persistent
    assert (e.total == 4).all()
    e.total = numpy.ones((3,), numpy.float32)
    assert (e.total == 1).all()
    assert [n for n, _ in e.namedparams()] == ['/W']
    with pytest.raises(ValueError):
        e.add_param('W', (1,))  # the name is taken


def test_cpp_copy_of_python_child_keeps_its_class():
    class RNN(link.Chain):
        def __init__(self):
            super().__init__()
            self.tag = 'rnn'
            with self.init_scope():
                self.l = L.Linear(3, 3)

        def reset_state(self):
            return self.tag

        def forward(self, x):
            return self.l(x)

    model = L.Classifier(RNN())
    clone = model.copy()  # C++ Link.copy reaches the Python child through its trampoline
    gc.collect()
    assert isinstance(clone.predictor, RNN) and clone.predictor is not model.predictor
    assert clone.predictor.reset_state() == 'rnn'
    model.predictor.l.W.array[...] = 5
    assert (clone.predictor.l.W.array == 5).all()  # 'share'
    x, t = _x(4, 3), numpy.array([0, 1, 2, 0], numpy.int32)
    numpy.testing.assert_allclose(clone(x, t).array, model(x, t).array, rtol=1e-6)
    deep = model.copy('copy')
    model.predictor.l.W.array[...] = 1
    assert (deep.predictor.l.W.array == 5).all()
