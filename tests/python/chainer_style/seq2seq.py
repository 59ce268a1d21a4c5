"""A plain Chainer script: a sequence-to-sequence model trained on ragged batches.

tests/python/test_chainer_style_train.py runs it on rensa after rewriting its import lines
only, and on real Chainer where installed, comparing the first losses. Pairs of integer
sequences of different lengths (the target is the source reversed, plus one, modulo the
vocabulary), a decorated converter that sorts each batch by source length and returns a dict
of lists of variable-length arrays sent to the device object it is given, an encoder over
F.transpose_sequence steps of L.StatelessLSTM and a decoder over F.pad_sequence steps, a
Trainer with an Evaluator (same converter, called before training), LogReport and
PrintReport. Parameters and data come from numpy's RandomState, so both frameworks start
from the same model.
"""
import argparse

import numpy

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import training
from chainer.training import extensions

EOS = 0


def sequence_embed(embed, xs):
    # One embedding call for the whole batch, split back into the sequences.
    x_len = [len(x) for x in xs]
    x_section = list(numpy.cumsum(x_len[:-1]))
    ex = embed(F.concat(xs, axis=0))
    return F.split_axis(ex, x_section, 0)


class Seq2seq(chainer.Chain):

    def __init__(self, n_source_vocab, n_target_vocab, n_units):
        super(Seq2seq, self).__init__()
        with self.init_scope():
            self.embed_x = L.EmbedID(n_source_vocab, n_units)
            self.embed_y = L.EmbedID(n_target_vocab, n_units)
            self.encoder = L.StatelessLSTM(n_units, n_units)
            self.decoder = L.StatelessLSTM(n_units, n_units)
            self.W = L.Linear(n_units, n_target_vocab)

    def encode(self, exs):
        # exs sorted by length (longest first): each step runs the sequences still going;
        # a sequence's final state is kept when it ends.
        c = h = None
        final_c, final_h = [], []
        for x in F.transpose_sequence(exs):
            batch = x.shape[0]
            if h is not None and h.shape[0] > batch:
                final_c.append(c[batch:])
                final_h.append(h[batch:])
                c, h = c[:batch], h[:batch]
            c, h = self.encoder(c, h, x)
        final_c.append(c)
        final_h.append(h)
        return F.concat(final_c[::-1], axis=0), F.concat(final_h[::-1], axis=0)

    def forward(self, xs, ys):
        eos = self.xp.array([EOS], numpy.int32)
        ys_in = [self.xp.concatenate([eos, y]) for y in ys]
        ys_out = [self.xp.concatenate([y, eos]) for y in ys]
        c, h = self.encode(sequence_embed(self.embed_x, xs))
        eys = self.embed_y(F.pad_sequence(ys_in, padding=EOS))
        ts = F.pad_sequence(ys_out, padding=-1).array
        losses = []
        for t in range(ts.shape[1]):
            c, h = self.decoder(c, h, eys[:, t])
            losses.append(F.softmax_cross_entropy(self.W(h), ts[:, t], reduce='no'))
        loss = F.sum(F.stack(losses)) / len(xs)
        chainer.report({'loss': loss}, self)
        n_words = int((ts != -1).sum())
        chainer.report({'perp': F.exp(loss * len(xs) / n_words)}, self)
        return loss


@chainer.dataset.converter()
def convert(batch, device):
    # Longest source first (the encoder's transpose_sequence needs it); lists of arrays of
    # different lengths, on the device when one is given.
    batch = sorted(batch, key=lambda pair: -len(pair[0]))

    def to_device_batch(seqs):
        if device is None:
            return seqs
        return [device.send(s) for s in seqs]

    return {'xs': to_device_batch([x for x, _ in batch]), 'ys': to_device_batch([y for _, y in batch])}


def make_pairs(rng, n, vocab):
    pairs = []
    for _ in range(n):
        x = rng.randint(1, vocab, size=rng.randint(2, 7)).astype(numpy.int32)
        y = (x[::-1] % (vocab - 1) + 1).astype(numpy.int32)
        pairs.append((x, y))
    return pairs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--out', default='result')
    parser.add_argument('--device', default='@numpy')
    args = parser.parse_args()

    vocab, units = 10, 8
    model = Seq2seq(vocab, vocab, units)
    rng = numpy.random.RandomState(0)
    for _, param in sorted(model.namedparams()):
        param.array[...] = rng.uniform(-0.5, 0.5, param.shape).astype(param.dtype)
    train = make_pairs(rng, 16, vocab)
    valid = make_pairs(rng, 6, vocab)

    optimizer = chainer.optimizers.Adam(alpha=0.01)
    optimizer.setup(model)
    train_iter = chainer.iterators.SerialIterator(train, 4, shuffle=False)
    valid_iter = chainer.iterators.SerialIterator(valid, 3, repeat=False, shuffle=False)
    updater = training.updaters.StandardUpdater(train_iter, optimizer, converter=convert, device=args.device)
    trainer = training.Trainer(updater, (2, 'epoch'), out=args.out)

    losses = []

    @training.make_extension(trigger=(1, 'iteration'))
    def record_loss(trainer):
        losses.append(float(trainer.observation['main/loss'].array))

    trainer.extend(record_loss)
    trainer.extend(extensions.Evaluator(valid_iter, model, converter=convert, device=args.device),
                   call_before_training=True)
    trainer.extend(extensions.LogReport(), call_before_training=True)
    trainer.extend(extensions.PrintReport(['epoch', 'main/loss', 'main/perp', 'validation/main/loss']),
                   call_before_training=True)
    trainer.run()

    log = trainer.get_extension('LogReport').log
    print('first losses: ' + ' '.join('{:.7g}'.format(v) for v in losses))
    print('validation losses: ' + ' '.join('{:.7g}'.format(e['validation/main/loss']) for e in log))
    print('epochs logged: ' + ' '.join(str(e['epoch']) for e in log))


if __name__ == '__main__':
    main()
