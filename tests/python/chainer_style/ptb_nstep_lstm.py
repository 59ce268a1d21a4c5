"""A PTB-style word language model with NStepLSTM, as a Chainer user writes it (it imports chainer).

Chainer's ptb example trains an RNN language model with truncated backpropagation through
time; here the recurrent part is one NStepLSTM over a tiny synthetic corpus made from
RandomState (a noisy cycle over the vocabulary, so there is something to learn). Each
update feeds every stream's next bprop_len words as one sequence, carries (hy, cy) to the
next update and cuts the graph there (unchain_backward). Then the model is evaluated on
sentences of different lengths in no particular order, with hx and cx None, saved with
save_npz, loaded into a fresh model, and must give the same perplexity.

Every parameter is set from RandomState after the model is built and there is no dropout,
so the run on rensa and the run on Chainer print the same ``first losses:``.
"""
import os
import sys

import numpy as np

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import optimizers
from chainer import serializers

N_VOCAB = 12
N_UNITS = 8
BATCH = 4
BPROP_LEN = 5
N_UPDATES = 16


class RNNLM(chainer.Chain):

    def __init__(self, n_vocab, n_units):
        super(RNNLM, self).__init__()
        with self.init_scope():
            self.embed = L.EmbedID(n_vocab, n_units)
            self.rnn = L.NStepLSTM(1, n_units, n_units, 0.0)
            self.out = L.Linear(n_units, n_vocab)

    def forward(self, hx, cx, xs):
        """xs: a list of word-id sequences; returns the final states and the logits of
        every word, the sequences one after another."""
        exs = [self.embed(x) for x in xs]
        hy, cy, ys = self.rnn(hx, cx, exs)
        return hy, cy, self.out(F.concat(ys, axis=0))


def make_corpus(rng, n):
    """A cycle 0, 1, ..., N_VOCAB - 1, 0, ... with a word replaced by noise now and then."""
    words = np.arange(n) % N_VOCAB
    noise = rng.rand(n) < 0.1
    words[noise] = rng.randint(0, N_VOCAB, noise.sum())
    return words.astype(np.int32)


def set_parameters(model, rng):
    for _, param in sorted(model.namedparams()):
        param.array[...] = rng.uniform(-0.3, 0.3, param.shape).astype(np.float32)


def perplexity(model, sentences):
    with chainer.using_config('train', False), chainer.using_config('enable_backprop', False):
        _, _, logits = model(None, None, [s[:-1] for s in sentences])
        targets = np.concatenate([s[1:] for s in sentences])
        loss = F.softmax_cross_entropy(logits, targets)
    return float(np.exp(float(loss.array)))


def main(out):
    rng = np.random.RandomState(0)
    train = make_corpus(rng, 400)
    model = RNNLM(N_VOCAB, N_UNITS)
    set_parameters(model, rng)
    names = [name for name, _ in sorted(model.namedparams())]
    print('parameters:', ' '.join(names))
    assert '/rnn/0/w0' in names and '/rnn/0/b7' in names, names

    optimizer = optimizers.Adam(alpha=0.05)
    optimizer.setup(model)
    optimizer.add_hook(chainer.optimizer_hooks.GradientClipping(5.0))

    # Chainer's ptb example: BATCH streams start at evenly spaced offsets of the corpus.
    stride = len(train) // BATCH
    offsets = [i * stride for i in range(BATCH)]
    hx = cx = None
    losses = []
    for update in range(N_UPDATES):
        start = update * BPROP_LEN
        xs = [train[o + start:o + start + BPROP_LEN] for o in offsets]
        ts = np.concatenate([train[o + start + 1:o + start + BPROP_LEN + 1] for o in offsets])
        hx, cx, logits = model(hx, cx, xs)
        loss = F.softmax_cross_entropy(logits, ts)
        model.cleargrads()
        loss.backward()
        loss.unchain_backward()  # truncate: the carried states start the next graph
        optimizer.update()
        losses.append(float(loss.array))
    assert hx.shape == (1, BATCH, N_UNITS) and cx.shape == (1, BATCH, N_UNITS), (hx.shape, cx.shape)
    print('first losses: ' + ' '.join('{:.6f}'.format(v) for v in losses))

    # Sentences of different lengths, not sorted: the link sorts and restores them.
    lengths = [6, 9, 4, 11, 7]
    sentences = [make_corpus(rng, n) for n in lengths]
    ppl = perplexity(model, sentences)
    print('perplexity: {:.6f}'.format(ppl))
    assert losses[-1] < 0.8 * losses[0] and ppl < N_VOCAB * 0.75, (losses, ppl)

    path = os.path.join(out, 'rnnlm.npz')
    serializers.save_npz(path, model)
    restored = RNNLM(N_VOCAB, N_UNITS)
    serializers.load_npz(path, restored)
    restored_ppl = perplexity(restored, sentences)
    print('restored perplexity: {:.6f}'.format(restored_ppl))
    assert abs(restored_ppl - ppl) <= 1e-5 * ppl, (restored_ppl, ppl)


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else '.')
