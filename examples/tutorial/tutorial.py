#!/usr/bin/env python3
"""The tutorial of the docs (docs/tutorial.rst), in Python; examples/tutorial/tutorial.cc is
the same program in C++, step for step.

A two-layer perceptron learns to tell three Gaussian blobs apart. The program trains it for
2 x N iterations straight; then trains a fresh model for N iterations, saves a snapshot (an
NPZ file), builds everything anew, resumes from the snapshot and trains to 2 x N. It exits
non-zero unless the resumed run ends where the straight one does (same iteration, same
parameters bit for bit), the test accuracy reaches --min-accuracy, and the saved model loads
back unchanged.

Run: PYTHONPATH=build/python .venv/bin/python examples/tutorial/tutorial.py --out result/tutorial
"""
import argparse
import os
import sys

import numpy as np

import rensa
import rensa.functions as F
import rensa.links as L
from rensa import serializers, training
from rensa.training import extensions


# [data]
def make_blobs(n, seed):
    """n points in 4 dimensions around three centres; labels 0, 1, 2 (int32)."""
    rng = np.random.RandomState(seed)
    centres = np.array([[2, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0]], dtype=np.float32)
    t = rng.randint(0, 3, size=n).astype(np.int32)
    x = (centres[t] + rng.normal(0.0, 0.7, size=(n, 4))).astype(np.float32)
    return rensa.datasets.TupleDataset(x, t)
# [data end]


# [model]
class MLP(rensa.Chain):
    def __init__(self, n_units, n_out):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_units)  # input size inferred from the first batch
            self.l2 = L.Linear(n_units, n_out)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))
# [model end]


# [trainer]
def make_trainer(train, test, stop, out, seed=0):
    """A fresh model, optimizer and trainer that trains until iteration `stop`."""
    rensa.backend.seed(seed)  # the initial weights and the shuffling (chainer.backend has no seed)
    model = L.Classifier(MLP(32, 3))  # softmax cross entropy, reports loss and accuracy
    optimizer = rensa.optimizers.MomentumSGD(lr=0.05)
    optimizer.setup(model)
    train_iter = rensa.iterators.SerialIterator(train, batch_size=32)
    test_iter = rensa.iterators.SerialIterator(test, batch_size=100, repeat=False, shuffle=False)
    updater = training.updaters.StandardUpdater(train_iter, optimizer)
    trainer = training.Trainer(updater, (stop, 'iteration'), out=out)
    trainer.extend(extensions.Evaluator(test_iter, model), trigger=(50, 'iteration'))
    trainer.extend(extensions.LogReport(trigger=(50, 'iteration')))
    trainer.extend(extensions.snapshot(filename='snapshot_iter_{.updater.iteration}'), trigger=(stop, 'iteration'))
    return trainer, model
# [trainer end]


# [evaluate]
def accuracy(model, test):
    """The accuracy of `model` on the whole test set, without a graph, in test mode."""
    x, t = rensa.dataset.concat_examples(test[:])
    with rensa.no_backprop_mode(), rensa.using_config('train', False):
        return float(F.accuracy(model.predictor(x), t).array)
# [evaluate end]


def params(model):
    return {name: p.array.copy() for name, p in model.namedparams()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--out', default='result/tutorial')
    ap.add_argument('--iterations', type=int, default=150, help='N: the run is 2 x N iterations')
    ap.add_argument('--min-accuracy', type=float, default=0.9)
    args = ap.parse_args()
    n = args.iterations
    train, test = make_blobs(1000, seed=1), make_blobs(300, seed=2)

    # [train]
    trainer, model = make_trainer(train, test, 2 * n, os.path.join(args.out, 'straight'))
    trainer.run()
    acc = accuracy(model, test)
    print('straight: iteration %d, test accuracy %.4f' % (trainer.updater.iteration, acc))
    # [train end]
    straight = params(model)

    # [save]
    first, _ = make_trainer(train, test, n, os.path.join(args.out, 'first'))
    first.run()  # its snapshot extension writes first/snapshot_iter_<n> at iteration n
    snapshot = os.path.join(args.out, 'first', 'snapshot_iter_%d' % n)
    # [save end]

    # [resume]
    # Another seed: only the snapshot can make this run end where the straight one does.
    trainer, model = make_trainer(train, test, 2 * n, os.path.join(args.out, 'resumed'), seed=1)
    serializers.load_npz(snapshot, trainer)  # model, optimizer, iterator, updater, extensions
    start = trainer.updater.iteration
    print('resumed from %s at iteration %d' % (snapshot, start))
    trainer.run()
    serializers.save_npz(os.path.join(args.out, 'model.npz'), model)  # the model alone
    # [resume end]

    failures = []
    if start != n:
        failures.append('the snapshot resumed at iteration %d, not %d' % (start, n))
    if trainer.updater.iteration != 2 * n:
        failures.append('resumed run ended at iteration %d, not %d' % (trainer.updater.iteration, 2 * n))
    resumed = params(model)
    diff = [k for k in straight if not np.array_equal(straight[k], resumed[k])]
    if diff:
        failures.append('resumed parameters differ from the straight run: %s' % ', '.join(sorted(diff)))
    if acc < args.min_accuracy:
        failures.append('test accuracy %.4f < %.4f' % (acc, args.min_accuracy))
    reloaded = L.Classifier(MLP(32, 3))
    serializers.load_npz(os.path.join(args.out, 'model.npz'), reloaded)
    if any(not np.array_equal(v, params(reloaded)[k]) for k, v in resumed.items()):
        failures.append('model.npz does not load back to the saved parameters')
    print('resumed: iteration %d, test accuracy %.4f, parameters %s the straight run\'s' %
          (trainer.updater.iteration, accuracy(model, test), 'differ from' if diff else 'equal to'))
    for f in failures:
        print('tutorial.py: ' + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
