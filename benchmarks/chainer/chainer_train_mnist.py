"""Chainer 7.8.1's MNIST example (examples/mnist/train_mnist.py), and with --communicator
ChainerMN's (examples/chainermn/mnist/train_mnist.py), on Fashion-MNIST read from Debian's
dataset-fashion-mnist package the way rensa's benchmarks read it (nothing downloaded).
The Chainer side of benchmarks/chainer/run.py; run it with .venv-chainermn's Python:

    .venv-chainermn/bin/python benchmarks/chainer/chainer_train_mnist.py --epoch 1 --out DIR [--noplot]
    mpiexec -n 2 .venv-chainermn/bin/python benchmarks/chainer/chainer_train_mnist.py --communicator naive ...

MLP 784-1000-1000-10 (Linear(None, n)) in a Classifier, Adam, batch 100, SerialIterator,
StandardUpdater, Trainer with Evaluator, DumpGraph, snapshot, LogReport, PlotReport,
PrintReport and ProgressBar (single process: Chainer's extension list; with ChainerMN: its
example's list, the reporting extensions on rank 0 only). Prints the final test accuracy.
"""
import argparse
import os
import sys

import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np
from chainer import training
from chainer.training import extensions

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "train_mlp"))
import bench_common  # noqa: E402  (Fashion-MNIST from Debian's package)


class MLP(chainer.Chain):

    def __init__(self, n_units, n_out):
        super(MLP, self).__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_units)
            self.l2 = L.Linear(None, n_units)
            self.l3 = L.Linear(None, n_out)

    def forward(self, x):
        h1 = F.relu(self.l1(x))
        h2 = F.relu(self.l2(h1))
        return self.l3(h2)


def get_fashion_mnist():
    """chainer.datasets.get_fashion_mnist()'s layout (float32 (784,) in [0, 1], int32 labels)."""
    train = bench_common.load_split("train")
    test = bench_common.load_split("t10k")
    return tuple(chainer.datasets.TupleDataset(x, t.astype(np.int32)) for x, t in (train, test))


def main():
    parser = argparse.ArgumentParser(description="Chainer example: Fashion-MNIST")
    parser.add_argument("--batchsize", "-b", type=int, default=100)
    parser.add_argument("--epoch", "-e", type=int, default=20)
    parser.add_argument("--frequency", "-f", type=int, default=-1)
    parser.add_argument("--out", "-o", default="result")
    parser.add_argument("--unit", "-u", type=int, default=1000)
    parser.add_argument("--noplot", dest="plot", action="store_false")
    parser.add_argument("--communicator", help="ChainerMN: a communicator (naive for CPU arrays)")
    args = parser.parse_args()

    comm = None
    if args.communicator:
        import chainermn
        comm = chainermn.create_communicator(args.communicator)
    rank0 = comm is None or comm.rank == 0
    if rank0:
        print("Chainer {} ({} process(es))".format(chainer.__version__, 1 if comm is None else comm.size))
        print("# unit: {}\n# Minibatch-size: {}\n# epoch: {}\n".format(args.unit, args.batchsize, args.epoch))

    model = L.Classifier(MLP(args.unit, 10))
    optimizer = chainer.optimizers.Adam()
    if comm is not None:
        optimizer = chainermn.create_multi_node_optimizer(optimizer, comm)
    optimizer.setup(model)

    if comm is None:
        train, test = get_fashion_mnist()
    else:
        train, test = get_fashion_mnist() if comm.rank == 0 else (None, None)
        train = chainermn.scatter_dataset(train, comm, shuffle=True)
        test = chainermn.scatter_dataset(test, comm, shuffle=True)

    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(test, args.batchsize, repeat=False, shuffle=False)
    updater = training.updaters.StandardUpdater(train_iter, optimizer)
    trainer = training.Trainer(updater, (args.epoch, "epoch"), out=args.out)

    evaluator = extensions.Evaluator(test_iter, model)
    if comm is not None:
        evaluator = chainermn.create_multi_node_evaluator(evaluator, comm)
    trainer.extend(evaluator)
    if comm is None:
        frequency = args.epoch if args.frequency == -1 else max(1, args.frequency)
        trainer.extend(extensions.snapshot(), trigger=(frequency, "epoch"))
    if rank0:
        trainer.extend(extensions.DumpGraph("main/loss"))
        trainer.extend(extensions.LogReport())
        if args.plot and extensions.PlotReport.available():
            trainer.extend(extensions.PlotReport(["main/loss", "validation/main/loss"], "epoch",
                                                 filename="loss.png"))
            trainer.extend(extensions.PlotReport(["main/accuracy", "validation/main/accuracy"], "epoch",
                                                 filename="accuracy.png"))
        trainer.extend(extensions.PrintReport(["epoch", "main/loss", "validation/main/loss", "main/accuracy",
                                               "validation/main/accuracy", "elapsed_time"]))
        trainer.extend(extensions.ProgressBar())
    trainer.run()

    accuracy = trainer.observation.get("validation/main/accuracy")
    if rank0 and accuracy is not None:
        print("test accuracy: {:.4f}".format(float(accuracy)))


if __name__ == "__main__":
    main()
