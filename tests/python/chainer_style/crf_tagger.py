"""A plain Chainer script: a small sequence tagger with batch renormalization and a CRF.

tests/python/test_issue23_normloss_style.py runs it on rensa after rewriting its import
lines only, and on real Chainer where installed, comparing the first losses. Sequences of
different lengths (features and tags from RandomState) go through Linear,
BatchRenormalization, ReLU and Linear, then L.CRF1d with transpose=True; a small DeCov
penalty on the hidden units joins the loss. Every parameter is set from RandomState after
the model is built, and nothing is random in the training steps.
"""
import numpy as np

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import optimizers


class Tagger(chainer.Chain):

    def __init__(self, n_in, n_hidden, n_label):
        super(Tagger, self).__init__()
        with self.init_scope():
            self.l1 = L.Linear(n_in, n_hidden)
            self.norm = L.BatchRenormalization(n_hidden, rmax=2.0, dmax=0.5)
            self.l2 = L.Linear(n_hidden, n_label)
            self.crf = L.CRF1d(n_label)

    def scores(self, xs):
        h = F.relu(self.norm(self.l1(F.concat(xs, axis=0))))
        sections = [int(s) for s in np.cumsum([len(x) for x in xs])[:-1]]
        return F.split_axis(self.l2(h), sections, axis=0), h

    def forward(self, xs, ys):
        scores, h = self.scores(xs)
        return self.crf(scores, ys, transpose=True) + 0.01 * F.decov(h)


def main():
    rs = np.random.RandomState(7)
    n_in, n_hidden, n_label = 4, 6, 3
    model = Tagger(n_in, n_hidden, n_label)
    for _, param in sorted(model.namedparams()):
        param.array[...] = rs.uniform(-0.5, 0.5, param.shape).astype(param.dtype)
    lengths = [5, 3, 4, 2, 5, 1]
    xs = [rs.uniform(-1, 1, (n, n_in)).astype(np.float32) for n in lengths]
    ys = [rs.randint(0, n_label, n).astype(np.int32) for n in lengths]
    optimizer = optimizers.SGD(lr=0.1)
    optimizer.setup(model)
    losses = []
    for _ in range(8):
        loss = model(xs, ys)
        model.cleargrads()
        loss.backward()
        optimizer.update()
        losses.append(float(loss.array))
    print('first losses: ' + ' '.join('%.7g' % v for v in losses))
    with chainer.using_config('train', False):
        scores, _ = model.scores(xs)
        _, path = model.crf.argmax(scores, transpose=True)
    print('paths: ' + ' '.join(''.join(str(int(v)) for v in p) for p in path))


if __name__ == '__main__':
    main()
