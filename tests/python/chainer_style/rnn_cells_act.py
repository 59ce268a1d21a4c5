"""Issue 23's recurrent cells, activations and noise functions in one tiny model: the
stateful peephole, zoneout and MGU cells, the tree LSTMs, S-LSTM, Swish, RReLU and simplified
dropconnect (the noisy ones in test mode or with given noise, so that runs compare), trained
for a few SGD steps.

    python rnn_cells_act.py OUTDIR            trains, prints the first losses, saves OUTDIR/model.npz
    python rnn_cells_act.py OUTDIR load FILE  loads FILE into a fresh model and prints its output
"""
import sys

import numpy as np

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import optimizers
from chainer import serializers

IN, UNITS, BATCH = 3, 4, 2


class Model(chainer.Chain):

    def __init__(self):
        super(Model, self).__init__()
        with self.init_scope():
            self.peep = L.StatefulPeepholeLSTM(IN, UNITS)
            self.zone = L.StatefulZoneoutLSTM(IN, UNITS, c_ratio=0.3, h_ratio=0.4)
            self.mgu = L.StatefulMGU(IN, UNITS)
            self.smgu = L.StatelessMGU(IN, UNITS)
            self.child = L.ChildSumTreeLSTM(UNITS, UNITS)
            self.nary = L.NaryTreeLSTM(UNITS, UNITS, n_ary=3)
            self.swish = L.Swish((UNITS,), beta_init=0.7)
            self.drop = L.SimplifiedDropconnect(UNITS, 2 * UNITS)
            self.slstm_in = L.Linear(UNITS, 4 * UNITS)
            self.out = L.Linear(2 * UNITS, 1)

    def reset_state(self):
        self.peep.reset_state()
        self.zone.reset_state()
        self.mgu.reset_state()

    def forward(self, xs, mask):
        for x in xs:
            h1 = self.peep(x)
            with chainer.using_config('train', False):
                h2 = self.zone(x)
            h3 = self.mgu(x)
        h4 = self.smgu(h3, xs[0])
        c5, h5 = self.child(None, h1, None, h2, h4)
        c6, h6 = self.nary(c5, None, c5, h3, h5, None, h4)
        c7, h7 = F.slstm(c5, c6, self.slstm_in(h6), self.slstm_in(h5))
        a = self.swish(h7)
        with chainer.using_config('train', False):
            a = F.rrelu(a - 0.2, l=0.1, u=0.3)
        d = self.drop(a, mask=mask)
        return self.out(F.tanh(d))


def make_model():
    model = Model()
    rs = np.random.RandomState(7)
    for _, p in sorted(model.namedparams()):
        p.array[...] = rs.uniform(-0.5, 0.5, p.shape).astype(np.float32)
    return model


def make_data():
    rs = np.random.RandomState(11)
    xs = [rs.uniform(-1, 1, (BATCH, IN)).astype(np.float32) for _ in range(3)]
    mask = (rs.uniform(0, 1, (BATCH, 2 * UNITS, UNITS)) >= 0.5)
    t = rs.uniform(-1, 1, (BATCH, 1)).astype(np.float32)
    return xs, mask, t


def main():
    outdir = sys.argv[1]
    xs, mask, t = make_data()
    model = make_model()
    if len(sys.argv) > 2 and sys.argv[2] == 'load':
        serializers.load_npz(sys.argv[3], model)
        y = model(xs, mask)
        print('loaded output: ' + ' '.join('%.6f' % v for v in y.array.ravel()))
        return
    opt = optimizers.SGD(lr=0.1)
    opt.setup(model)
    losses = []
    for _ in range(4):
        model.reset_state()
        loss = F.mean_squared_error(model(xs, mask), t)
        model.cleargrads()
        loss.backward()
        opt.update()
        losses.append(float(loss.array))
    print('first losses: ' + ' '.join('%.6f' % v for v in losses))
    print('parameters: ' + ' '.join(name for name, _ in sorted(model.namedparams())))
    serializers.save_npz(outdir + '/model.npz', model)


if __name__ == '__main__':
    main()
