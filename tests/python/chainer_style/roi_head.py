"""A Fast R-CNN style detection head in plain Chainer 7.8.1: a convolution over the image, the
five region-of-interest functions over its feature map (roi_pooling_2d, roi_max_pooling_2d,
roi_average_pooling_2d, roi_max_align_2d, roi_average_align_2d), a linear classifier per
roi, trained with SGD. Parameters, images and rois come from numpy's RandomState, so the test
runs it on rensa and, where installed, on real Chainer and compares the first losses."""
import numpy as np

import chainer
import chainer.functions as F
import chainer.links as L


class Head(chainer.Chain):

    def __init__(self, n_class=3):
        super(Head, self).__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(3, 4, ksize=3, pad=1)
            self.fc = L.Linear(4 * 2 * 2 * 5, n_class)

    def forward(self, x, rois, roi_indices):
        h = F.tanh(self.conv(x))
        legacy = np.concatenate([roi_indices[:, None].astype(np.float32), rois[:, [1, 0, 3, 2]]], axis=1)
        pooled = [
            F.roi_pooling_2d(h, legacy, 2, 2, 0.5),
            F.roi_max_pooling_2d(h, rois, roi_indices, 2, 0.5),
            F.roi_average_pooling_2d(h, rois, roi_indices, (2, 2), 0.5),
            F.roi_max_align_2d(h, rois, roi_indices, 2, 0.5, sampling_ratio=2),
            F.roi_average_align_2d(h, rois, roi_indices, 2, 0.5),
        ]
        return self.fc(F.concat(pooled, axis=1))


def main():
    rs = np.random.RandomState(0)
    x = rs.uniform(-1, 1, (2, 3, 10, 12)).astype(np.float32)
    corners = rs.uniform(0, 20, (6, 2, 2)).astype(np.float32)
    rois = np.concatenate([corners.min(axis=1), corners.max(axis=1)], axis=1)
    roi_indices = np.array([0, 1, 0, 1, 1, 0], np.int32)
    labels = rs.randint(0, 3, 6).astype(np.int32)

    model = Head()
    model(x, rois, roi_indices)
    prs = np.random.RandomState(1)
    for name, param in sorted(model.namedparams()):
        param.array[...] = prs.uniform(-0.5, 0.5, param.array.shape)
    optimizer = chainer.optimizers.SGD(lr=0.1)
    optimizer.setup(model)

    losses = []
    for _ in range(6):
        loss = F.softmax_cross_entropy(model(x, rois, roi_indices), labels)
        model.cleargrads()
        loss.backward()
        optimizer.update()
        losses.append(float(loss.array))
    print('first losses: ' + ' '.join('%.7g' % v for v in losses))
    assert all(np.isfinite(losses)) and losses[-1] < losses[0], losses


if __name__ == '__main__':
    main()
