"""A plain Chainer script (issue 23): a small spatial-transformer classifier.

A localisation Linear predicts the affine maps that spatial_transformer_grid /
spatial_transformer_sampler warp the images with; then DeformableConvolution2D, shift,
LocalConvolution2D, unpooling_nd, DilatedConvolution2D and Convolution1D, trained with SGD
for a few steps. Every parameter and the data come from numpy's RandomState, so Chainer and
rensa print the same first losses.
"""
import numpy as np

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import optimizers


class Net(chainer.Chain):

    def __init__(self):
        super(Net, self).__init__()
        with self.init_scope():
            self.loc = L.Linear(64, 6)
            self.deform = L.DeformableConvolution2D(1, 9, 3, pad=1)
            self.local = L.LocalConvolution2D(9, 4, (4, 4), 2)
            self.dilated = L.DilatedConvolution2D(4, 4, 3, pad=2, dilate=2)
            self.conv1d = L.Convolution1D(4, 4, 3, stride=3)
            self.fc = L.Linear(48, 3)

    def forward(self, x):
        n = x.shape[0]
        base = np.array([[0.9, 0.05, 0.02], [-0.04, 0.85, 0.03]], np.float32)
        theta = F.reshape(self.loc(F.reshape(x, (n, 64))), (n, 2, 3)) * 0.2 + base
        h = F.spatial_transformer_sampler(x, F.spatial_transformer_grid(theta, (8, 8)))
        h = F.relu(self.deform(h))
        h = F.max_pooling_2d(F.shift(h), 2)
        h = F.relu(self.local(h))
        h = F.unpooling_nd(h, 2, cover_all=False)
        h = F.relu(self.dilated(h))
        h = self.conv1d(F.reshape(h, (n, 4, 36)))
        return self.fc(h)


def main():
    rng = np.random.RandomState(0)
    model = Net()
    for _, p in sorted(model.namedparams()):
        p.array[...] = rng.uniform(-0.3, 0.3, p.shape)
    x = rng.uniform(-1, 1, (16, 1, 8, 8)).astype(np.float32)
    t = rng.randint(0, 3, 16).astype(np.int32)
    optimizer = optimizers.SGD(lr=0.05)
    optimizer.setup(model)
    losses = []
    for _ in range(6):
        loss = F.softmax_cross_entropy(model(x), t)
        model.cleargrads()
        loss.backward()
        optimizer.update()
        losses.append(float(loss.array))
    print('first losses: ' + ' '.join('%.6f' % v for v in losses))


if __name__ == '__main__':
    main()
