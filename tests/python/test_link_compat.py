"""Links behave like Chainer's: Python subclasses of built-in links, copies and pickling,
ChainList and Sequential editing, Classifier.lossfun / accfun (issue 22)."""
import copy
import functools
import pickle

import numpy
import pytest

import rensa as chainer
import rensa.functions as F
import rensa.links as L


class DoubledLinear(L.Linear):
    """A built-in link with its own forward that calls the built-in one."""

    def forward(self, x):
        return super(DoubledLinear, self).forward(x) * 2


class MLP(chainer.Chain):
    def __init__(self):
        super(MLP, self).__init__()
        with self.init_scope():
            self.l1 = L.Linear(3, 4)
            self.l2 = DoubledLinear(4, 2)
        self.note = {'epochs': [1, 2]}

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


def _x(rng, n=5, d=3):
    return rng.standard_normal((n, d)).astype(numpy.float32)


def _reference(link, x):
    h = x @ link.l1.W.array.T + link.l1.b.array
    return 2 * (numpy.maximum(h, 0) @ link.l2.W.array.T + link.l2.b.array)


# --- Python subclasses of built-in links ------------------------------------------------------

def test_subclass_forward_called_directly_and_from_cpp_containers(rng):
    link = DoubledLinear(3, 2)
    x = _x(rng)
    expected = 2 * (x @ link.W.array.T + link.b.array)
    numpy.testing.assert_allclose(link(x).array, expected, rtol=1e-6)
    # Sequential and Classifier call their layers from C++.
    numpy.testing.assert_allclose(chainer.Sequential(link)(x).array, expected, rtol=1e-6)
    classifier = L.Classifier(link, lossfun=F.mean_squared_error)
    classifier.compute_accuracy = False
    t = numpy.zeros((5, 2), numpy.float32)
    loss = classifier(x, t)
    numpy.testing.assert_allclose(loss.array, numpy.mean(expected ** 2), rtol=1e-5)
    assert isinstance(link, L.Linear) and link.out_size == 2


def test_subclass_trained_by_standard_updater_uses_python_forward(rng):
    calls = []

    class Counting(L.Linear):
        def forward(self, x):
            calls.append(x.shape)
            return super(Counting, self).forward(x)

    model = L.Classifier(Counting(3, 2))
    optimizer = chainer.optimizers.SGD(lr=0.1)
    optimizer.setup(model)
    data = chainer.datasets.TupleDataset(_x(rng, 8), numpy.arange(8, dtype=numpy.int32) % 2)
    it = chainer.iterators.SerialIterator(data, 4, shuffle=False)
    updater = chainer.training.updaters.StandardUpdater(it, optimizer)
    updater.update()
    assert calls == [(4, 3)]


def test_builtin_link_without_subclass_stays_a_plain_builtin():
    link = L.Linear(3, 2)
    assert type(link) is L.Linear


# --- copy.copy, copy.deepcopy, pickle ------------------------------------------------------

def test_shallow_copy_shares_parameters_and_python_attributes(rng):
    model = MLP()
    clone = copy.copy(model)
    assert type(clone) is MLP and clone is not model
    assert clone.note is model.note
    clone.l1.W.array[...] = 7
    assert (model.l1.W.array == 7).all()
    lin = L.Linear(2, 3)
    lin.tag = 'x'
    c = copy.copy(lin)
    assert type(c) is L.Linear and c.tag == 'x'
    c.W.array[...] = 1
    assert (lin.W.array == 1).all()


def test_deepcopy_owns_new_arrays_and_grads(rng):
    model = MLP()
    x = _x(rng)
    F.sum(model(x)).backward()
    clone = copy.deepcopy(model)
    assert type(clone) is MLP and type(clone.l2) is DoubledLinear
    assert clone.note == model.note and clone.note is not model.note
    numpy.testing.assert_array_equal(clone(x).array, model(x).array)
    numpy.testing.assert_array_equal(clone.l1.W.grad, model.l1.W.grad)
    clone.l1.W.array[...] = 0
    clone.l1.W.grad[...] = 0
    assert not (model.l1.W.array == 0).all() and not (model.l1.W.grad == 0).all()


def test_deepcopy_keeps_shared_objects_shared():
    shared = [1, 2]
    model = MLP()
    model.a = shared
    model.b = shared
    clone = copy.deepcopy(model)
    assert clone.a is clone.b and clone.a is not shared


def test_pickle_round_trip_of_chain_with_builtin_and_subclassed_children(rng):
    model = MLP()
    model.add_persistent('count', 3)
    x = _x(rng)
    F.sum(model(x)).backward()
    model.l1.b.disable_update()
    restored = pickle.loads(pickle.dumps(model))
    assert type(restored) is MLP and type(restored.l2) is DoubledLinear
    numpy.testing.assert_allclose(restored(x).array, _reference(model, x), rtol=1e-5)
    numpy.testing.assert_array_equal(restored.l1.W.grad, model.l1.W.grad)
    assert restored.count == 3 and restored.note == {'epochs': [1, 2]}
    assert not restored.l1.b.update_enabled
    assert [name for name, _ in restored.namedparams()] == [name for name, _ in model.namedparams()]


def test_pickle_of_lazy_builtin_link_after_first_forward(rng):
    link = L.Linear(None, 2)
    x = _x(rng)
    y = link(x).array
    restored = pickle.loads(pickle.dumps(link))
    numpy.testing.assert_array_equal(restored(x).array, y)


def test_pickle_of_chainlist_and_sequential(rng):
    chain_list = chainer.ChainList(L.Linear(3, 3), L.Linear(3, 2))
    restored = pickle.loads(pickle.dumps(chain_list))
    x = _x(rng)
    numpy.testing.assert_array_equal(restored[1](restored[0](x)).array, chain_list[1](chain_list[0](x)).array)
    seq = chainer.Sequential(L.Linear(3, 3), F.relu, L.Linear(3, 2))
    again = pickle.loads(pickle.dumps(seq))
    numpy.testing.assert_array_equal(again(x).array, seq(x).array)
    assert [name for name, _ in again.namedparams()] == ['/0/W', '/0/b', '/1/W', '/1/b']


def test_pickle_of_sequential_with_lambda_names_the_problem():
    seq = chainer.Sequential(L.Linear(3, 2), lambda x: x * 2)
    with pytest.raises(ValueError, match='lambda'):
        pickle.dumps(seq)
    ok = chainer.Sequential(L.Linear(3, 2), functools.partial(F.leaky_relu, slope=0.1))
    pickle.loads(pickle.dumps(ok))


# --- Editing containers --------------------------------------------------------------------

def test_chainlist_setitem_delitem_insert_rename_children():
    a, b, c = L.Linear(2, 2), L.Linear(2, 3), L.Linear(3, 4)
    chain_list = chainer.ChainList(a, b)
    chain_list.insert(0, c)
    assert [l.name for l in chain_list] == ['0', '1', '2'] and chain_list[0] is c
    del chain_list[1]
    assert len(chain_list) == 2 and chain_list[0] is c and chain_list[1] is b and b.name == '1'
    chain_list[0] = a
    assert chain_list[0] is a and a.name == '0'
    assert [name for name, _ in chain_list.namedparams()] == ['/0/W', '/0/b', '/1/W', '/1/b']
    with pytest.raises(TypeError):
        chain_list[0] = 3


def test_sequential_list_methods(rng):
    l1, l2, l3 = L.Linear(3, 3), L.Linear(3, 3), L.Linear(3, 2)
    seq = chainer.Sequential(l1, F.relu)
    seq.extend([l2, F.relu])
    seq.append(l3)
    assert len(seq) == 5 and seq.index(l2) == 2 and seq.count(F.relu) == 2
    assert seq.count_by_layer_type('Linear') == 3
    x = _x(rng)
    expected = l3(F.relu(l2(F.relu(l1(x))))).array
    numpy.testing.assert_allclose(seq(x).array, expected, rtol=1e-6)
    assert seq.pop(1) is F.relu and len(seq) == 4
    seq.insert(1, F.tanh)
    assert seq[1] is F.tanh
    seq.remove(l2)
    assert l2 not in seq and [l.name for l in seq.children()] == ['0', '1']
    seq.remove_by_layer_type('relu')
    assert seq.count(F.relu) == 0
    nested = chainer.Sequential(chainer.Sequential(l1, F.relu), chainer.Sequential(l3))
    flat = nested.flatten()
    assert list(flat) == [l1, F.relu, l3]
    seq.clear()
    assert len(seq) == 0 and list(seq.params()) == []
    with pytest.raises(IndexError):
        seq.insert(5, l1)
    with pytest.raises(ValueError, match='callable'):
        seq.insert(0, 3)


def test_classifier_lossfun_and_accfun_are_assignable(rng):
    model = L.Classifier(L.Linear(3, 2))
    assert model.lossfun is F.softmax_cross_entropy and model.accfun is F.accuracy
    model.lossfun = lambda y, t: F.sum(y) * 0 + 5
    x, t = _x(rng, 4), numpy.zeros(4, numpy.int32)
    assert float(model(x, t).array) == 5
    assert callable(model.lossfun) and model.lossfun(x, t).array == 5
