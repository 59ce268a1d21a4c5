#!/usr/bin/env python3
"""ChainerMN's MNIST example (examples/mnist/train_mnist.py), on rensa and Fashion-MNIST.

Written the way ChainerMN's example is: only the imports differ (``import rensa as
chainer``, ``import rensa.distributed as chainermn``). Rank 0 loads the data and
scatter_dataset hands each rank its shard; the multi-node optimizer averages the
gradients; the multi-node evaluator reports the accuracy over the whole test set; only
rank 0 logs and prints.

    mpiexec -n 2 env PYTHONPATH=build/python .venv/bin/python \\
        examples/distributed/train_mnist.py --epoch 3
"""
import argparse

import rensa as chainer
import rensa.distributed as chainermn
import rensa.functions as F
import rensa.links as L
from rensa import training
from rensa.training import extensions


class MLP(chainer.Chain):

    def __init__(self, n_units, n_out):
        super(MLP, self).__init__()
        with self.init_scope():
            # the size of the inputs to each layer will be inferred
            self.l1 = L.Linear(784, n_units)  # n_in -> n_units
            self.l2 = L.Linear(n_units, n_units)  # n_units -> n_units
            self.l3 = L.Linear(n_units, n_out)  # n_units -> n_out

    def forward(self, x):
        h1 = F.relu(self.l1(x))
        h2 = F.relu(self.l2(h1))
        return self.l3(h2)


def main():
    parser = argparse.ArgumentParser(description='rensa.distributed example: Fashion-MNIST')
    parser.add_argument('--batchsize', '-b', type=int, default=100,
                        help='Number of images in each mini-batch (per process)')
    parser.add_argument('--communicator', type=str, default='flat',
                        help='Type of communicator (flat, naive; pure_nccl and hierarchical with CUDA)')
    parser.add_argument('--epoch', '-e', type=int, default=20,
                        help='Number of sweeps over the dataset to train')
    parser.add_argument('--gpu', '-g', action='store_true',
                        help='Use a GPU (the one of index intra_rank)')
    parser.add_argument('--out', '-o', default='result',
                        help='Directory to output the result')
    parser.add_argument('--resume', '-r', default='',
                        help='Resume the training from snapshot')
    parser.add_argument('--unit', '-u', type=int, default=1000,
                        help='Number of units')
    parser.add_argument('--subset', type=int, default=0,
                        help='Train and test on the first N images only (0: all)')
    parser.add_argument('--min-accuracy', type=float, default=0.0,
                        help='Exit with an error below this final test accuracy')
    args = parser.parse_args()

    # Prepare ChainerMN communicator.
    if args.gpu:
        if args.communicator == 'naive':
            print('Error: \'naive\' communicator does not support GPU.\n')
            exit(-1)
        comm = chainermn.create_communicator(args.communicator)
        device = comm.intra_rank
    else:
        if args.communicator not in ('naive', 'flat'):
            print('Warning: using flat communicator because only naive and flat support CPU-only execution')
            args.communicator = 'flat'
        comm = chainermn.create_communicator(args.communicator)
        device = -1

    if comm.rank == 0:
        print('==========================================')
        print('Num process (COMM_WORLD): {}'.format(comm.size))
        if args.gpu:
            print('Using GPUs')
        print('Using {} communicator'.format(args.communicator))
        print('Num unit: {}'.format(args.unit))
        print('Num Minibatch-size: {}'.format(args.batchsize))
        print('Num epoch: {}'.format(args.epoch))
        print('==========================================')

    model = L.Classifier(MLP(args.unit, 10))
    if device >= 0:
        chainer.cuda.get_device_from_id(device).use()
        model.to_gpu()

    # Create a multi node optimizer from a standard Chainer optimizer.
    optimizer = chainermn.create_multi_node_optimizer(
        chainer.optimizers.Adam(), comm)
    optimizer.setup(model)

    # Split and distribute the dataset. Only worker 0 loads the whole dataset.
    # Datasets of worker 0 are evenly split and distributed to all workers.
    if comm.rank == 0:
        train, test = chainer.datasets.get_fashion_mnist()
        if args.subset > 0:
            train = chainer.datasets.split_dataset(train, min(args.subset, len(train)))[0]
            test = chainer.datasets.split_dataset(test, min(args.subset, len(test)))[0]
    else:
        train, test = None, None
    train = chainermn.scatter_dataset(train, comm, shuffle=True)
    test = chainermn.scatter_dataset(test, comm, shuffle=True)

    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(test, args.batchsize,
                                                 repeat=False, shuffle=False)

    updater = training.StandardUpdater(train_iter, optimizer, device=device)
    trainer = training.Trainer(updater, (args.epoch, 'epoch'), out=args.out)

    # Create a multi node evaluator from a standard Chainer evaluator.
    evaluator = extensions.Evaluator(test_iter, model, device=device)
    evaluator = chainermn.create_multi_node_evaluator(evaluator, comm)
    trainer.extend(evaluator)

    # Some display and output extensions are necessary only for one worker.
    # (Otherwise, there would just be repeated outputs.)
    if comm.rank == 0:
        trainer.extend(extensions.DumpGraph('main/loss'))
        trainer.extend(extensions.LogReport())
        trainer.extend(extensions.PrintReport(
            ['epoch', 'main/loss', 'validation/main/loss',
             'main/accuracy', 'validation/main/accuracy', 'elapsed_time']))
        trainer.extend(extensions.ProgressBar())

    if args.resume:
        chainer.serializers.load_npz(args.resume, trainer)

    trainer.run()

    # The multi-node evaluator gives every rank the same, whole-test-set value.
    accuracy = trainer.observation.get('validation/main/accuracy')
    if comm.rank == 0 and accuracy is not None:
        print('test accuracy: {:.4f}'.format(float(accuracy)))
    if accuracy is not None and float(accuracy) < args.min_accuracy:
        raise SystemExit('rank {}: test accuracy {:.4f} is below --min-accuracy {}'.format(
            comm.rank, float(accuracy), args.min_accuracy))


if __name__ == '__main__':
    main()
