"""A plain Chainer script: a small CIFAR-style VGG trained on PNG files.

tests/python/test_chainer_style_cifar.py runs it on rensa after rewriting its import lines
only, and on real Chainer where installed, comparing the first losses. The script writes
tiny RGB PNG files with Pillow (pixels from numpy's RandomState), lists them with labels in
Caffe's format, reads them back with LabeledImageDataset (CHW float32, 0..255) scaled by a
TransformDataset, and trains a VGG (3x3 convolutions, max pooling, few channels) with
MomentumSGD, a Trainer, StandardUpdater, Evaluator and LogReport. Parameters and data come
from RandomState, the iterator does not shuffle and nothing is random in the compared
steps, so both frameworks see the same numbers.
"""
import argparse
import os

import numpy as np
from PIL import Image

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import training
from chainer.training import extensions


class VGGBlock(chainer.Chain):

    def __init__(self, in_channels, out_channels, n_convs):
        super(VGGBlock, self).__init__()
        self.n_convs = n_convs
        with self.init_scope():
            for i in range(n_convs):
                setattr(self, 'conv%d' % i, L.Convolution2D(in_channels if i == 0 else out_channels,
                                                            out_channels, 3, pad=1))

    def forward(self, x):
        h = x
        for i in range(self.n_convs):
            h = F.relu(getattr(self, 'conv%d' % i)(h))
        return F.max_pooling_2d(h, 2, 2)


class VGG(chainer.Chain):

    def __init__(self, n_class, size):
        super(VGG, self).__init__()
        with self.init_scope():
            self.block1 = VGGBlock(3, 8, 2)
            self.block2 = VGGBlock(8, 16, 2)
            self.block3 = VGGBlock(16, 16, 1)
            self.fc1 = L.Linear(16 * (size // 8) ** 2, 32)
            self.fc2 = L.Linear(32, n_class)

    def forward(self, x):
        h = self.block3(self.block2(self.block1(x)))
        return self.fc2(F.relu(self.fc1(h)))


def write_images(folder, prefix, n, size, n_class, rs):
    """n RGB PNGs whose mean colour depends on the label; returns the list file's path."""
    os.makedirs(folder, exist_ok=True)
    list_path = os.path.join(folder, prefix + '.txt')
    with open(list_path, 'w') as f:
        for i in range(n):
            label = int(rs.randint(0, n_class))
            base = rs.randint(0, 160, (size, size, 3))
            base[:, :, label % 3] += 60 + 30 * (label // 3)
            name = '%s_%03d.png' % (prefix, i)
            Image.fromarray(np.clip(base, 0, 255).astype(np.uint8)).save(os.path.join(folder, name))
            f.write('%s %d\n' % (name, label))
    return list_path


def scale(example):
    x, t = example
    return x / np.float32(255.), t


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--out', default='result')
    parser.add_argument('--iterations', type=int, default=12)
    args = parser.parse_args()

    size, n_class = 16, 5
    rs = np.random.RandomState(0)
    images = os.path.join(args.out, 'images')
    train_list = write_images(images, 'train', 48, size, n_class, rs)
    test_list = write_images(images, 'test', 16, size, n_class, rs)
    train = chainer.datasets.TransformDataset(chainer.datasets.LabeledImageDataset(train_list, root=images), scale)
    test = chainer.datasets.TransformDataset(chainer.datasets.LabeledImageDataset(test_list, root=images), scale)
    x0, t0 = train[0]
    assert x0.shape == (3, size, size) and x0.dtype == np.float32 and t0.dtype == np.int32, (x0.shape, x0.dtype)

    model = L.Classifier(VGG(n_class, size))
    prs = np.random.RandomState(1)
    for name, param in sorted(model.namedparams()):
        fan_in = np.prod(param.array.shape[1:]) if param.array.ndim > 1 else 1
        param.array[...] = prs.normal(0, np.sqrt(2. / fan_in) if param.array.ndim > 1 else 0.01, param.array.shape)

    train_iter = chainer.iterators.SerialIterator(train, 8, shuffle=False)
    test_iter = chainer.iterators.SerialIterator(test, 8, repeat=False, shuffle=False)
    optimizer = chainer.optimizers.MomentumSGD(lr=0.01)
    optimizer.setup(model)

    updater = training.updaters.StandardUpdater(train_iter, optimizer, device=-1)
    trainer = training.Trainer(updater, (args.iterations, 'iteration'), out=args.out)
    trainer.extend(extensions.Evaluator(test_iter, model, device=-1), trigger=(6, 'iteration'))
    log = extensions.LogReport(trigger=(1, 'iteration'))
    trainer.extend(log)
    trainer.extend(extensions.PrintReport(['iteration', 'main/loss', 'validation/main/loss',
                                           'validation/main/accuracy']))
    trainer.run()

    losses = [entry['main/loss'] for entry in log.log]
    print('first losses: ' + ' '.join('%.7g' % v for v in losses[:8]))
    assert len(losses) == args.iterations and all(np.isfinite(losses)), losses
    assert sum('validation/main/accuracy' in entry for entry in log.log) == args.iterations // 6


if __name__ == '__main__':
    main()
