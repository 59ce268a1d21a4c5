"""Python datasets of arbitrary objects (strings, nested lists, dicts of lists, None):
SerialIterator gives them back unchanged with SerialIterator's orders, and a converter turns
them into the model's inputs under StandardUpdater and Trainer (issue 22)."""
import copy

import numpy
import pytest

import rensa
import rensa.functions as F
import rensa.links as L
from rensa import iterators
from rensa import serializers
from rensa import training

WORDS = ['the', 'cat', 'sat', 'on', 'a', 'mat', 'and', 'slept']


def sentences(n=10):
    rs = numpy.random.RandomState(0)
    return [(' '.join(rs.choice(WORDS, size=rs.randint(1, 5))), [int(i) for i in rs.randint(0, 3, size=2)], None)
            for _ in range(n)]


def test_serial_iterator_gives_python_examples_back_unchanged():
    data = sentences()
    it = iterators.SerialIterator(data, 4, shuffle=False)
    batch = it.next()
    assert batch == data[:4]
    assert isinstance(batch[0][0], str) and isinstance(batch[0][1], list) and batch[0][2] is None
    assert it.current_position == 4 and it.epoch == 0 and not it.is_new_epoch
    it.next()
    batch = it.next()
    assert batch == data[8:10] + data[:2] and it.is_new_epoch and it.epoch == 1
    with pytest.raises(ValueError, match='SerialIterator: Expect: batch_size >= 1'):
        iterators.SerialIterator(data, 0)


def test_orders_are_serial_iterators_for_the_same_sampler():
    objects = [('x%d' % i,) for i in range(7)]
    arrays = [(numpy.array([i], numpy.int32),) for i in range(7)]
    ours = iterators.SerialIterator(objects, 3, order_sampler=iterators.ShuffleOrderSampler(numpy.random.RandomState(5)))
    cpp = iterators.SerialIterator(arrays, 3, order_sampler=iterators.ShuffleOrderSampler(numpy.random.RandomState(5)))
    assert type(cpp) is iterators.SerialIterator
    for _ in range(6):
        assert [int(e[0][1:]) for e in ours.next()] == [int(numpy.ravel(e)[0]) for e in cpp.next()]


def test_resume_mid_epoch_continues_with_the_same_batches():
    data = sentences(9)
    it = iterators.SerialIterator(data, 2)
    it.next()
    it.next()
    saved = serializers.DictionarySerializer()
    saved.save(it)
    expected = [it.next() for _ in range(5)]
    again = iterators.SerialIterator(data, 2)
    serializers.NpzDeserializer(dict(saved.target)).load(again)
    assert [again.next() for _ in range(5)] == expected
    clone = copy.copy(again)
    assert clone.next() == again.next()


class BagOfWords(rensa.Chain):
    def __init__(self):
        super(BagOfWords, self).__init__()
        with self.init_scope():
            self.embed = L.EmbedID(len(WORDS), 4)
            self.out = L.Linear(4, 3)

    def forward(self, word_ids, labels):
        sums = F.stack([F.sum(self.embed(ids), axis=0) for ids in word_ids])
        return F.softmax_cross_entropy(self.out(sums), labels)


def words_converter(batch, device):
    word_ids = [numpy.array([WORDS.index(w) for w in text.split()], numpy.int32) for text, _, _ in batch]
    labels = numpy.array([pair[0] for _, pair, _ in batch], numpy.int32)
    return word_ids, labels


def test_trainer_over_python_examples_with_a_converter(tmp_path):
    model = BagOfWords()
    optimizer = rensa.optimizers.SGD(lr=0.5)
    optimizer.setup(model)
    it = iterators.SerialIterator(sentences(), 5)
    updater = training.updaters.StandardUpdater(it, optimizer, converter=words_converter)
    trainer = training.Trainer(updater, (6, 'iteration'), out=str(tmp_path))
    original = model.out.W.array.copy()
    trainer.run()
    assert updater.iteration == 6 and it.epoch == 3
    assert not numpy.array_equal(original, model.out.W.array)


def test_text_dataset_through_serial_iterator(tmp_path):
    path = tmp_path / 'lines.txt'
    path.write_text('the cat\nsat on\na mat\n')
    data = rensa.datasets.TextDataset(str(path))
    it = iterators.SerialIterator(data, 2, shuffle=False)
    assert it.next() == ['the cat\n', 'sat on\n']
