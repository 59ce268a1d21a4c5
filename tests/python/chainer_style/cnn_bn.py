"""A plain Chainer script, as a Chainer user writes one (it imports chainer).

tests/python/test_chainer_style.py runs it on rensa after rewriting its import lines
only. A CNN built from a custom Chain (Convolution2D + BatchNormalization), dropout,
MomentumSGD with weight decay, a Trainer with Evaluator, LogReport, observe_lr,
ExponentialShift, PrintReport, ProgressBar, snapshot_object, PlotReport and snapshot,
then save_npz / load_npz into a fresh model and inference in test mode.
"""
import argparse
import os

import numpy as np

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import training
from chainer.training import extensions


class ConvBlock(chainer.Chain):

    def __init__(self, out_channels):
        super(ConvBlock, self).__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(None, out_channels, 3, pad=1, nobias=True)
            self.bn = L.BatchNormalization(out_channels)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


class CNN(chainer.Chain):

    def __init__(self, n_out):
        super(CNN, self).__init__()
        with self.init_scope():
            self.block1 = ConvBlock(8)
            self.block2 = ConvBlock(16)
            self.fc = L.Linear(None, n_out)

    def forward(self, x):
        h = F.max_pooling_2d(self.block1(x), 2)
        h = F.max_pooling_2d(self.block2(h), 2)
        h = F.dropout(h, ratio=0.3)
        return self.fc(h)


def make_data(n, rng):
    """12x12 images with a bright 4x4 square in one of four quadrants; the label is the quadrant."""
    x = rng.normal(0, 0.3, (n, 1, 12, 12)).astype(np.float32)
    t = rng.randint(0, 4, n).astype(np.int32)
    for i, label in enumerate(t):
        r, c = 6 * (label // 2) + 1, 6 * (label % 2) + 1
        x[i, 0, r:r + 4, c:c + 4] += 1.0
    return x, t


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--out', default='result')
    parser.add_argument('--epoch', type=int, default=3)
    args = parser.parse_args()

    rng = np.random.RandomState(0)
    train_x, train_t = make_data(640, rng)
    test_x, test_t = make_data(200, rng)
    train = chainer.datasets.TupleDataset(train_x, train_t)
    test = chainer.datasets.TupleDataset(test_x, test_t)

    train_iter = chainer.iterators.SerialIterator(train, 32)
    test_iter = chainer.iterators.SerialIterator(test, 50, repeat=False, shuffle=False)

    model = L.Classifier(CNN(4))
    optimizer = chainer.optimizers.MomentumSGD(lr=0.05)
    optimizer.setup(model)
    optimizer.add_hook(chainer.optimizer_hooks.WeightDecay(5e-4))

    updater = training.updaters.StandardUpdater(train_iter, optimizer, device=-1)
    trainer = training.Trainer(updater, (args.epoch, 'epoch'), out=args.out)
    trainer.extend(extensions.Evaluator(test_iter, model, device=-1))
    trainer.extend(extensions.ExponentialShift('lr', 0.5), trigger=(1, 'epoch'))
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.observe_lr())
    trainer.extend(extensions.PrintReport(
        ['epoch', 'main/loss', 'main/accuracy', 'validation/main/accuracy', 'lr']))
    trainer.extend(extensions.ProgressBar(update_interval=5))
    trainer.extend(extensions.snapshot_object(model, 'model_epoch_{.updater.epoch}'),
                   trigger=(1, 'epoch'))
    trainer.extend(extensions.snapshot(), trigger=(args.epoch, 'epoch'))
    if extensions.PlotReport.available():
        trainer.extend(extensions.PlotReport(['main/loss', 'validation/main/loss'], 'epoch',
                                             filename='loss.png'))
    trainer.run()

    # Save the trained model and load it into a fresh one (its lazy layers take their
    # shapes from the file).
    path = os.path.join(args.out, 'cnn.npz')
    chainer.serializers.save_npz(path, model)
    restored = L.Classifier(CNN(4))
    chainer.serializers.load_npz(path, restored)

    with chainer.using_config('train', False), chainer.no_backprop_mode():
        y_trained = model.predictor(test_x)
        y_restored = restored.predictor(test_x)
    np.testing.assert_allclose(y_trained.array, y_restored.array, rtol=1e-5, atol=1e-5)
    accuracy = float(F.accuracy(y_restored, test_t).array)
    lr = optimizer.lr
    print('restored accuracy: {:.3f}'.format(accuracy))
    print('final lr: {}'.format(lr))
    assert accuracy > 0.9, accuracy
    assert abs(lr - 0.05 * 0.5 ** args.epoch) < 1e-12, lr


if __name__ == '__main__':
    main()
