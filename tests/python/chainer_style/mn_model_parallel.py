"""ChainerMN's model-parallel MNIST example, small: two ranks, one model split between them.

Rank 0 holds the first layer and the classifier's loss; rank 1 the next two layers. Rank 0's
MultiNodeChainList sends its hidden layer to rank 1 and receives rank 1's output back (send
and recv through the graph), rank 1 iterates over an empty dataset of the same length so
both take the same steps. Synthetic data from RandomState replaces MNIST; every parameter is
set from RandomState, so rensa and Chainer print the same first losses. At the end the ranks
meet through comm.mpi_comm (mpi4py): a Barrier and an allreduce with MPI.MAX.
Run with mpiexec -n 2.
"""
import argparse

import numpy as np

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import training
from chainer.training import extensions

import chainermn

N_IN, N_UNITS, N_OUT = 12, 16, 4


class MLP0SubA(chainer.Chain):
    def __init__(self, n_out):
        super(MLP0SubA, self).__init__(l1=L.Linear(N_IN, n_out))

    def __call__(self, x):
        return F.relu(self.l1(x))


class MLP0SubB(chainer.Chain):
    def __call__(self, y):
        return y


class MLP0(chainermn.MultiNodeChainList):
    # The model on rank 0.
    def __init__(self, comm, n_out):
        super(MLP0, self).__init__(comm=comm)
        self.add_link(MLP0SubA(n_out), rank_in=None, rank_out=1)
        self.add_link(MLP0SubB(), rank_in=1, rank_out=None)


class MLP1Sub(chainer.Chain):
    def __init__(self, n_units, n_out):
        super(MLP1Sub, self).__init__(l2=L.Linear(n_units, n_units), l3=L.Linear(n_units, n_out))

    def __call__(self, h0):
        h1 = F.relu(self.l2(h0))
        return self.l3(h1)


class MLP1(chainermn.MultiNodeChainList):
    # The model on rank 1.
    def __init__(self, comm, n_units, n_out):
        super(MLP1, self).__init__(comm=comm)
        self.add_link(MLP1Sub(n_units, n_out), rank_in=0, rank_out=0)


class FirstLosses(training.Extension):
    """Keeps main/loss of every iteration (rank 0 reports it)."""
    trigger = 1, 'iteration'
    priority = training.PRIORITY_READER

    def __init__(self):
        self.losses = []

    def __call__(self, trainer):
        self.losses.append(float(chainer.as_array(trainer.observation['main/loss'])))


def make_data(n, rng):
    x = rng.standard_normal((n, N_IN)).astype(np.float32)
    t = (x[:, :N_OUT].argmax(axis=1)).astype(np.int32)
    return chainer.datasets.TupleDataset(x, t)


def set_params(model, seed):
    rng = np.random.RandomState(seed)
    for _, param in sorted(model.namedparams()):
        param.array[...] = rng.uniform(-0.3, 0.3, param.shape).astype(param.dtype)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--batchsize', type=int, default=8)
    parser.add_argument('--iterations', type=int, default=6)
    parser.add_argument('--out', default='result')
    args = parser.parse_args()

    comm = chainermn.create_communicator('naive')
    if comm.size != 2:
        raise ValueError('This example runs on exactly 2 processes.')

    if comm.rank == 0:
        model = L.Classifier(MLP0(comm, N_UNITS))
    else:
        model = MLP1(comm, N_UNITS, N_OUT)
    set_params(model, 10 + comm.rank)

    optimizer = chainer.optimizers.Adam()
    optimizer.setup(model)

    # The data is iterated on rank 0 only.
    rng = np.random.RandomState(0)
    train, test = make_data(48, rng), make_data(16, rng)
    if comm.rank == 1:
        train = chainermn.datasets.create_empty_dataset(train)
        test = chainermn.datasets.create_empty_dataset(test)

    train_iter = chainer.iterators.SerialIterator(train, args.batchsize, shuffle=False)
    test_iter = chainer.iterators.SerialIterator(test, args.batchsize, repeat=False, shuffle=False)

    updater = training.StandardUpdater(train_iter, optimizer)
    trainer = training.Trainer(updater, (args.iterations, 'iteration'), out=args.out)
    trainer.extend(extensions.Evaluator(test_iter, model), trigger=(3, 'iteration'))
    first = FirstLosses()
    if comm.rank == 0:
        trainer.extend(first)
        trainer.extend(extensions.LogReport(trigger=(3, 'iteration')))
        trainer.extend(extensions.PrintReport(['iteration', 'main/loss', 'validation/main/loss',
                                               'main/accuracy', 'validation/main/accuracy']))
    trainer.run()

    from mpi4py import MPI
    comm.mpi_comm.Barrier()
    last = comm.mpi_comm.allreduce(first.losses[-1] if comm.rank == 0 else -1.0, op=MPI.MAX)
    if comm.rank == 0:
        assert last == first.losses[-1], (last, first.losses)
        print('first losses: ' + ' '.join('%.6f' % v for v in first.losses))
    print('rank %d of %d done' % (comm.mpi_comm.Get_rank(), comm.mpi_comm.Get_size()))


if __name__ == '__main__':
    main()
