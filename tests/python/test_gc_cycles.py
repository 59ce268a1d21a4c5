"""Reference cycles through Python subclasses that C++ holds are collected (issue 20, item 3).

Each test makes 20 cycles, each through a model of about 1M parameters, drops them and runs
gc.collect(): every model must be gone (weakrefs dead) and the memory must not have grown by
the models' size. See Note [Garbage collection through C++] (python/src/gc_support.h).
"""
import gc
import weakref

import numpy
import pytest

import rensa
import rensa.links as L
from rensa import datasets
from rensa import iterators
from rensa import optimizers
from rensa import training

N_MODELS = 20
UNITS = 1000  # a 1000x1000 Linear: 1M float32 parameters, 4 MB


class Big(rensa.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l = L.Linear(UNITS, UNITS)

    def forward(self, x):
        return self.l(x)


class BigList(rensa.ChainList):
    pass


class Holder(training.Extension):
    def __call__(self, trainer):
        pass


def rss_bytes():
    with open('/proc/self/statm') as f:
        return int(f.read().split()[1]) * 4096


def make_self_cycle():
    m = Big()
    m.me = m
    return [weakref.ref(m)]


def make_chain_parent_cycle():
    parent = Big()
    with parent.init_scope():
        parent.child = Big()
    parent.child.parent = parent
    return [weakref.ref(parent), weakref.ref(parent.child)]


def make_chain_list_parent_cycle():
    child = Big()
    parent = BigList(child)
    child.parent = parent
    return [weakref.ref(parent), weakref.ref(child)]


def make_optimizer_cycle():
    model = Big()
    optimizer = optimizers.SGD()
    optimizer.setup(model)
    model.opt = optimizer
    return [weakref.ref(model), weakref.ref(optimizer)]


def make_trainer_cycle():
    model = L.Classifier(Big())
    x = numpy.zeros((4, UNITS), numpy.float32)
    t = numpy.zeros(4, numpy.int32)
    iterator = iterators.SerialIterator(datasets.TupleDataset(x, t), 2)
    optimizer = optimizers.SGD()
    optimizer.setup(model)
    updater = training.updaters.StandardUpdater(iterator, optimizer)
    trainer = training.Trainer(updater, (1, 'epoch'), out='unused')
    ext = Holder()
    trainer.extend(ext)
    ext.trainer = trainer
    return [weakref.ref(trainer), weakref.ref(ext), weakref.ref(model.predictor)]


def make_model_trainer_cycle():
    # Through the updater and its optimizer back to the model.
    model = Big()
    x = numpy.zeros((4, UNITS), numpy.float32)
    iterator = iterators.SerialIterator(datasets.TupleDataset(x), 2)
    optimizer = optimizers.SGD()
    optimizer.setup(model)
    updater = training.updaters.StandardUpdater(iterator, optimizer)
    model.trainer = training.Trainer(updater, (1, 'epoch'), out='unused')
    return [weakref.ref(model), weakref.ref(model.trainer)]


@pytest.mark.parametrize('make', [make_self_cycle, make_chain_parent_cycle,
                                  make_chain_list_parent_cycle, make_optimizer_cycle,
                                  make_trainer_cycle, make_model_trainer_cycle])
def test_cycles_are_collected(make):
    gc.collect()
    make()  # the first model may grow the allocator's caches
    gc.collect()
    before = rss_bytes()
    refs = []
    for _ in range(N_MODELS):
        refs += make()
        gc.collect()
    alive = [r() for r in refs if r() is not None]
    assert not alive, '{} objects in cycles survived gc.collect()'.format(len(alive))
    grown = rss_bytes() - before
    assert grown < N_MODELS * UNITS * UNITS * 4 // 4, 'memory grew by {} MB'.format(grown >> 20)


def test_live_objects_keep_their_state():
    # The collector must not clear what is still reachable from outside the cycle.
    model = Big()
    optimizer = optimizers.SGD()
    optimizer.setup(model)
    model.opt = optimizer
    model_ref = weakref.ref(model)
    del model
    gc.collect()
    assert model_ref() is not None  # the optimizer (alive) holds it
    assert model_ref().opt is optimizer
    assert optimizer.target is model_ref()

    parent = Big()
    child = Big()
    with parent.init_scope():
        parent.child = child
    child.parent = parent
    del child
    gc.collect()
    assert parent.child.parent is parent


def test_shared_children_are_not_reported_twice():
    # A child held by two parents has two C++ owners: neither reports it (the cycle stays),
    # and nothing alive is freed or cleared.
    child = Big()
    a = BigList(child)
    b = BigList(child)
    child.a = a
    refs = [weakref.ref(a), weakref.ref(child)]
    del a, child
    gc.collect()
    assert all(r() is not None for r in refs)
    assert b[0].a[0] is b[0]


def test_referents_include_what_cpp_holds():
    parent = BigList(Big())
    assert parent[0] in gc.get_referents(parent)
    optimizer = optimizers.SGD()
    model = Big()
    optimizer.setup(model)
    assert model in gc.get_referents(optimizer)
