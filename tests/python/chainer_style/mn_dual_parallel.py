"""ChainerMN's dual-parallel MNIST example, small: model-parallel pairs inside data-parallel
groups.

The ranks split twice: data_axis = rank % 2 says which half of the model a rank holds (0:
the first layer and the loss, 1: the next two layers), model_axis = rank // 2 which pair it
is in. Each pair (model_comm) runs the model-parallel network of mn_model_parallel.py; the
ranks holding the same half (data_comm) are data-parallel: the dataset is scattered over
them and a multi-node optimizer averages their grads. With 2 ranks there is one pair and
no data parallelism; run with mpiexec -n 4 for both. Synthetic data and RandomState
parameters, so rensa and Chainer print the same first losses (the example's shuffle=True in
scatter_dataset is off here: the two libraries shuffle with different generators). Each
rank's parameters have their own seed: the multi-node optimizer's first step broadcasts rank
0's and skips the update, in ChainerMN always, in rensa when the broadcast changed the
parameters (Note [Multi-node update] in distributed/multi_node_optimizer.h), so with
mpiexec -n 4 both take the same steps.
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
    # The first half, on the ranks of data_axis 0.
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
    # The second half, on the ranks of data_axis 1.
    def __init__(self, comm, n_units, n_out):
        super(MLP1, self).__init__(comm=comm)
        self.add_link(MLP1Sub(n_units, n_out), rank_in=0, rank_out=0)


class FirstLosses(training.Extension):
    """Keeps main/loss of every iteration."""
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
    data_axis, model_axis = comm.rank % 2, comm.rank // 2
    data_comm = comm.split(data_axis, comm.rank)
    model_comm = comm.split(model_axis, comm.rank)
    if model_comm.size != 2:
        raise ValueError('This example runs on an even number of processes.')

    if data_axis == 0:
        model = L.Classifier(MLP0(model_comm, N_UNITS))
    else:
        model = MLP1(model_comm, N_UNITS, N_OUT)
    set_params(model, 10 + comm.rank)

    optimizer = chainermn.create_multi_node_optimizer(chainer.optimizers.Adam(), data_comm)
    optimizer.setup(model)

    # The dataset is on the first pair; scatter_dataset shares it over each data_comm.
    if model_axis == 0:
        rng = np.random.RandomState(0)
        train, test = make_data(64, rng), make_data(32, rng)
        if data_axis == 1:
            train = chainermn.datasets.create_empty_dataset(train)
            test = chainermn.datasets.create_empty_dataset(test)
    else:
        train, test = None, None
    train = chainermn.scatter_dataset(train, data_comm, shuffle=False)
    test = chainermn.scatter_dataset(test, data_comm, shuffle=False)

    train_iter = chainer.iterators.SerialIterator(train, args.batchsize, shuffle=False)
    test_iter = chainer.iterators.SerialIterator(test, args.batchsize, repeat=False, shuffle=False)

    updater = training.StandardUpdater(train_iter, optimizer)
    trainer = training.Trainer(updater, (args.iterations, 'iteration'), out=args.out)
    evaluator = extensions.Evaluator(test_iter, model)
    evaluator = chainermn.create_multi_node_evaluator(evaluator, data_comm)
    trainer.extend(evaluator, trigger=(3, 'iteration'))
    first = FirstLosses()
    if data_axis == 0:
        trainer.extend(first)
    if comm.rank == 0:
        trainer.extend(extensions.LogReport(trigger=(3, 'iteration')))
        trainer.extend(extensions.PrintReport(['iteration', 'main/loss', 'validation/main/loss',
                                               'main/accuracy', 'validation/main/accuracy']))
    trainer.run()

    # Rank 0 prints its own losses and, for the data-parallel groups, every pair's first.
    firsts = comm.gather_obj(first.losses[:1])
    if comm.rank == 0:
        print('first losses: ' + ' '.join('%.6f' % v for v in first.losses + sum(firsts, [])))


if __name__ == '__main__':
    main()
