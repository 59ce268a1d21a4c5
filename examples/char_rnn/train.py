#!/usr/bin/env python3
"""Chainer's PTB example (examples/ptb/train_ptb.py) on characters, on rensa.

A recurrent language model (EmbedID -> LSTM -> LSTM -> Linear in a Classifier) reads a
text one character at a time and predicts the next. As in Chainer's example the data
comes through a custom ``Iterator`` (``ParallelSequentialIterator``: ``--batchsize`` read
heads spread over the text, consecutive batches continuing each other) and a custom
updater (``BPTTUpdater``: ``update_core`` overridden for truncated backprop through
time). The text is the GNU GPL v3 that every Debian system has (``--text`` picks
another); the last 10% is held out for validation and testing.

    PYTHONPATH=build/python .venv/bin/python examples/char_rnn/train.py --epoch 3
"""
import argparse
import os

import numpy as np

import rensa as chainer
import rensa.functions as F
import rensa.links as L
from rensa import training
from rensa.training import extensions


class RNNForLM(chainer.Chain):
    """Definition of a recurrent net for language modeling."""

    def __init__(self, n_vocab, n_units):
        super(RNNForLM, self).__init__()
        with self.init_scope():
            self.embed = L.EmbedID(n_vocab, n_units)
            self.l1 = L.LSTM(n_units, n_units)
            self.l2 = L.LSTM(n_units, n_units)
            self.l3 = L.Linear(n_units, n_vocab)

        for param in self.params():
            param.array[...] = np.random.uniform(-0.1, 0.1, param.shape)

    def reset_state(self):
        self.l1.reset_state()
        self.l2.reset_state()

    def forward(self, x):
        h0 = self.embed(x)
        h1 = self.l1(F.dropout(h0))
        h2 = self.l2(F.dropout(h1))
        y = self.l3(F.dropout(h2))
        return y


class ParallelSequentialIterator(chainer.dataset.Iterator):
    """Consecutive characters from ``batch_size`` positions spread over the text."""

    def __init__(self, dataset, batch_size, repeat=True):
        super(ParallelSequentialIterator, self).__init__()
        self.dataset = dataset
        self.batch_size = batch_size  # batch size
        self.repeat = repeat
        length = len(dataset)
        # Offsets maintain the position of each sequence in the mini-batch.
        self.offsets = [i * length // batch_size for i in range(batch_size)]
        self.reset()

    def reset(self):
        # NOTE: this is not a count of parameter updates. It is just a count of
        # calls of ``__next__``.
        self.epoch = 0
        # True if the epoch is incremented at the last iteration.
        self.is_new_epoch = False
        self.iteration = 0
        self._previous_epoch_detail = -1.

    def __next__(self):
        # This iterator returns a list representing a mini-batch. Each item
        # indicates a different position in the original sequence. Each item is
        # represented by a pair of two character ids. The first id is at the
        # current position, and the second id at the next position.
        length = len(self.dataset)
        if not self.repeat and self.iteration * self.batch_size >= length:
            # If not self.repeat, this iterator stops at the end of the first
            # epoch (i.e., when all characters are visited once).
            raise StopIteration
        cur_words = self.get_words()
        self._previous_epoch_detail = self.epoch_detail
        self.iteration += 1
        next_words = self.get_words()

        epoch = self.iteration * self.batch_size // length
        self.is_new_epoch = self.epoch < epoch
        if self.is_new_epoch:
            self.epoch = epoch

        return list(zip(cur_words, next_words))

    @property
    def epoch_detail(self):
        # Floating point version of epoch.
        return self.iteration * self.batch_size / len(self.dataset)

    @property
    def previous_epoch_detail(self):
        if self._previous_epoch_detail < 0:
            return None
        return self._previous_epoch_detail

    def get_words(self):
        # It returns a list of current characters.
        return [self.dataset[(offset + self.iteration) % len(self.dataset)]
                for offset in self.offsets]

    def serialize(self, serializer):
        # It is important to serialize the state to be recovered on resume.
        self.iteration = serializer('iteration', self.iteration)
        self.epoch = serializer('epoch', self.epoch)
        self._previous_epoch_detail = serializer(
            'previous_epoch_detail', self._previous_epoch_detail)


class BPTTUpdater(training.updaters.StandardUpdater):
    """Custom updater for truncated BackProp Through Time (BPTT)."""

    def __init__(self, train_iter, optimizer, bprop_len, device):
        super(BPTTUpdater, self).__init__(
            train_iter, optimizer, device=device)
        self.bprop_len = bprop_len

    # The core part of the update routine can be customized by overriding.
    def update_core(self):
        loss = 0
        # When we pass one iterator and optimizer to StandardUpdater.__init__,
        # they are automatically named 'main'.
        train_iter = self.get_iterator('main')
        optimizer = self.get_optimizer('main')

        # Progress the dataset iterator for bprop_len characters at each iteration.
        for i in range(self.bprop_len):
            # Get the next batch (a list of tuples of two character IDs)
            batch = train_iter.__next__()

            # Concatenate the character IDs to matrices and send them to the device
            # self.converter does this job
            # (it is chainer.dataset.concat_examples by default)
            x, t = self.converter(batch, self.device)

            # Compute the loss at this time step and accumulate it
            loss += optimizer.target(chainer.Variable(x), chainer.Variable(t))

        optimizer.target.cleargrads()  # Clear the parameter gradients
        loss.backward()  # Backprop
        loss.unchain_backward()  # Truncate the graph
        optimizer.update()  # Update the parameters


# Routine to rewrite the result dictionary of LogReport to add perplexity values
def compute_perplexity(result):
    result['perplexity'] = np.exp(result['main/loss'])
    if 'validation/main/loss' in result:
        result['val_perplexity'] = np.exp(result['validation/main/loss'])


def load_text(path, max_chars):
    with open(path, 'rb') as f:
        data = f.read()
    if max_chars > 0:
        data = data[:max_chars]
    chars = np.frombuffer(data, dtype=np.uint8)
    vocab = np.unique(chars)
    ids = np.searchsorted(vocab, chars).astype(np.int32)
    return ids, vocab


def main():
    parser = argparse.ArgumentParser(description='rensa example: character-level RNN LM')
    parser.add_argument('--text', default='/usr/share/common-licenses/GPL-3',
                        help='Plain-text file to train on')
    parser.add_argument('--max-chars', type=int, default=0,
                        help='Use only the first N characters of the text (0: all)')
    parser.add_argument('--batchsize', '-b', type=int, default=20,
                        help='Number of examples in each mini-batch')
    parser.add_argument('--bproplen', '-l', type=int, default=35,
                        help='Number of characters in each mini-batch '
                        '(= length of truncated BPTT)')
    parser.add_argument('--epoch', '-e', type=int, default=3,
                        help='Number of sweeps over the dataset to train')
    parser.add_argument('--device', '-d', type=str, default='-1',
                        help='Device specifier (-1 or @numpy: CPU)')
    parser.add_argument('--gradclip', '-c', type=float, default=5,
                        help='Gradient norm threshold to clip')
    parser.add_argument('--out', '-o', default='result_char_rnn',
                        help='Directory to output the result')
    parser.add_argument('--resume', '-r', type=str,
                        help='Resume the training from snapshot')
    parser.add_argument('--unit', '-u', type=int, default=200,
                        help='Number of LSTM units in each layer')
    parser.add_argument('--lr', type=float, default=0.005, help="Adam's alpha")
    parser.add_argument('--interval', type=int, default=50,
                        help='Iterations between log entries')
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args()

    np.random.seed(args.seed)
    device = chainer.get_device(args.device)
    device.use()

    if not os.path.exists(args.text):
        raise SystemExit('text file not found: {} (pass another with --text)'.format(args.text))
    ids, vocab = load_text(args.text, args.max_chars)
    n_vocab = len(vocab)
    n_held = len(ids) // 20
    train, val, test = ids[:-2 * n_held], ids[-2 * n_held:-n_held], ids[-n_held:]
    print('#vocab = {}, #train = {}, #val = {}, #test = {}'.format(
        n_vocab, len(train), len(val), len(test)))

    train_iter = ParallelSequentialIterator(train, args.batchsize)
    val_iter = ParallelSequentialIterator(val, 1, repeat=False)
    test_iter = ParallelSequentialIterator(test, 1, repeat=False)

    # Prepare an RNNLM model
    rnn = RNNForLM(n_vocab, args.unit)
    model = L.Classifier(rnn)
    model.compute_accuracy = False  # we only want the perplexity
    model.to_device(device)

    # Set up an optimizer
    optimizer = chainer.optimizers.Adam(alpha=args.lr)
    optimizer.setup(model)
    optimizer.add_hook(chainer.optimizer_hooks.GradientClipping(args.gradclip))

    # Set up a trainer
    updater = BPTTUpdater(train_iter, optimizer, args.bproplen, device)
    trainer = training.Trainer(updater, (args.epoch, 'epoch'), out=args.out)

    eval_model = model.copy()  # Model with shared params and distinct states
    eval_rnn = eval_model.predictor
    trainer.extend(extensions.Evaluator(
        val_iter, eval_model, device=device,
        # Reset the RNN state at the beginning of each evaluation
        eval_hook=lambda _: eval_rnn.reset_state()))

    trainer.extend(extensions.LogReport(postprocess=compute_perplexity,
                                        trigger=(args.interval, 'iteration')))
    trainer.extend(extensions.PrintReport(
        ['epoch', 'iteration', 'perplexity', 'val_perplexity']
    ), trigger=(args.interval, 'iteration'))
    trainer.extend(extensions.ProgressBar(update_interval=10))
    trainer.extend(extensions.snapshot(), trigger=(args.epoch, 'epoch'))
    trainer.extend(extensions.snapshot_object(
        model, 'model_epoch_{.updater.epoch}'), trigger=(args.epoch, 'epoch'))
    if args.resume is not None:
        chainer.serializers.load_npz(args.resume, trainer)

    trainer.run()

    # Evaluate the final model
    print('test')
    eval_rnn.reset_state()
    evaluator = extensions.Evaluator(test_iter, eval_model, device=device)
    result = evaluator()
    print('test perplexity: {:.3f}'.format(np.exp(float(result['main/loss']))))


if __name__ == '__main__':
    main()
