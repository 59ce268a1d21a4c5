"""Chainer's beginner tutorial loop, as a Chainer user writes it (it imports chainer).

A hand-written training loop over SerialIterators with concat_examples, to_cpu,
cleargrads/backward/update, evaluation in test mode and the tutorial's way of
rewinding the test iterator (assigning its counters), then save_npz / load_npz of the
model and of the optimizer, and prediction with the loaded model.
"""
import os
import sys

import numpy as np

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import iterators
from chainer import optimizers
from chainer import serializers
from chainer.backends.cuda import to_cpu
from chainer.dataset import concat_examples


class MyNetwork(chainer.Chain):

    def __init__(self, n_mid_units=100, n_out=3):
        super(MyNetwork, self).__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_mid_units)
            self.l2 = L.Linear(n_mid_units, n_mid_units)
            self.l3 = L.Linear(n_mid_units, n_out)

    def forward(self, x):
        h = F.relu(self.l1(x))
        h = F.relu(self.l2(h))
        return self.l3(h)


def make_data(n, rng):
    """Three Gaussian blobs in 4 dimensions."""
    t = rng.randint(0, 3, n).astype(np.int32)
    centers = np.array([[2, 0, 0, 1], [0, 2, 0, -1], [0, 0, 2, 0]], dtype=np.float32)
    x = (centers[t] + rng.normal(0, 0.7, (n, 4))).astype(np.float32)
    return chainer.datasets.TupleDataset(x, t)


def main(out):
    np.random.seed(0)
    rng = np.random.RandomState(0)
    train = make_data(600, rng)
    test = make_data(150, rng)
    train_iter = iterators.SerialIterator(train, 50)
    test_iter = iterators.SerialIterator(test, 50, repeat=False, shuffle=False)

    model = MyNetwork()
    gpu_id = -1
    optimizer = optimizers.MomentumSGD(lr=0.01, momentum=0.9)
    optimizer.setup(model)

    max_epoch = 5
    accuracy_history = []
    while train_iter.epoch < max_epoch:
        train_batch = train_iter.next()
        x, t = concat_examples(train_batch, gpu_id)
        y = model(x)
        loss = F.softmax_cross_entropy(y, t)
        model.cleargrads()
        loss.backward()
        optimizer.update()

        if train_iter.is_new_epoch:
            print('epoch:{:02d} train_loss:{:.04f} '.format(
                train_iter.epoch, float(to_cpu(loss.data))), end='')
            test_losses = []
            test_accuracies = []
            while True:
                test_batch = test_iter.next()
                x_test, t_test = concat_examples(test_batch, gpu_id)
                with chainer.using_config('train', False), chainer.using_config('enable_backprop', False):
                    y_test = model(x_test)
                loss_test = F.softmax_cross_entropy(y_test, t_test)
                test_losses.append(to_cpu(loss_test.data))
                accuracy = F.accuracy(y_test, t_test)
                accuracy.to_cpu()
                test_accuracies.append(accuracy.data)
                if test_iter.is_new_epoch:
                    test_iter.epoch = 0
                    test_iter.current_position = 0
                    test_iter.is_new_epoch = False
                    test_iter._previous_epoch_detail = -1.
                    break
            accuracy_history.append(np.mean(test_accuracies))
            print('val_loss:{:.04f} val_accuracy:{:.04f}'.format(
                np.mean(test_losses), np.mean(test_accuracies)))

    serializers.save_npz(os.path.join(out, 'my_mnist.model'), model)
    serializers.save_npz(os.path.join(out, 'my_mnist.state'), optimizer)

    infer_net = MyNetwork()
    serializers.load_npz(os.path.join(out, 'my_mnist.model'), infer_net)
    optimizer2 = optimizers.MomentumSGD(lr=0.01, momentum=0.9)
    optimizer2.setup(infer_net)
    serializers.load_npz(os.path.join(out, 'my_mnist.state'), optimizer2)
    assert optimizer2.t == optimizer.t, (optimizer2.t, optimizer.t)

    x, t = test[0]
    with chainer.using_config('train', False), chainer.using_config('enable_backprop', False):
        y = infer_net(x[None, ...])
    y = y.array
    pred_label = y.argmax(axis=1)
    print('label:', t, 'predicted label:', pred_label[0])
    print('final accuracy: {:.3f}'.format(accuracy_history[-1]))
    assert len(accuracy_history) == max_epoch
    assert accuracy_history[-1] > 0.85, accuracy_history


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else '.')
