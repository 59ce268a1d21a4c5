"""chainer.datasets.get_ptb_words: the Penn Treebank word ids, from the original text files.

Read from ``$RENSA_DATASET_ROOT/ptb/`` (``ptb.train.txt``, ``ptb.valid.txt``,
``ptb.test.txt``, as distributed with Zaremba's LSTM code, the files Chainer downloads).
As Chainer: each line's words are followed by ``<eos>``; the vocabulary numbers the words
of the training file in order of first appearance.
"""
import numpy

from rensa.datasets import _files

__all__ = ['get_ptb_words', 'get_ptb_words_vocabulary']

_NAME = 'ptb'
_FILES = ('ptb.train.txt', 'ptb.valid.txt', 'ptb.test.txt')


def _load_words(path):
    words = []
    with open(path) as f:
        for line in f:
            if line:
                words += line.strip().split()
                words.append('<eos>')
    return words


def _vocabulary(train_words):
    vocab = {}
    for word in train_words:
        if word not in vocab:
            vocab[word] = len(vocab)
    return vocab


def _ids(op, path, words, vocab):
    x = numpy.empty(len(words), dtype=numpy.int32)
    for i, word in enumerate(words):
        try:
            x[i] = vocab[word]
        except KeyError:
            raise KeyError("%s: the word %r of '%s' is not in the vocabulary of ptb.train.txt" % (op, word, path)) \
                from None
    return x


def get_ptb_words():
    """(train, valid, test): int32 arrays of word ids."""
    paths = _files.locate('get_ptb_words', _NAME, _FILES)
    train_words = _load_words(paths[0])
    vocab = _vocabulary(train_words)
    train = _ids('get_ptb_words', paths[0], train_words, vocab)
    return (train,) + tuple(_ids('get_ptb_words', p, _load_words(p), vocab) for p in paths[1:])


def get_ptb_words_vocabulary():
    """The dict word -> id of get_ptb_words."""
    (path,) = _files.locate('get_ptb_words_vocabulary', _NAME, _FILES[:1])
    return _vocabulary(_load_words(path))
