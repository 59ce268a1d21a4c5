"""rensa.iterators: SerialIterator / MultithreadIterator over C++ and Python datasets."""
import gc

import numpy
import pytest

from rensa import _core
from rensa import dataset as DS
from rensa import datasets as D
from rensa import iterators as I

N = 10


def labels(batch):
    return [int(e[1]) for e in batch]


def make_cpp():
    return D.TupleDataset(numpy.arange(N * 2, dtype=numpy.float32).reshape(N, 2),
                          numpy.arange(N, dtype=numpy.int32))


def make_list():
    return [(numpy.array([2 * i, 2 * i + 1], numpy.float32), numpy.int32(i)) for i in range(N)]


class Mixin(DS.DatasetMixin):
    # Chainer's subclasses often skip the base __init__.
    def __init__(self):
        self.calls = 0

    def __len__(self):
        return N

    def get_example(self, i):
        self.calls += 1
        return numpy.array([2 * i, 2 * i + 1], numpy.float32), numpy.int32(i)


ITERATORS = [
    lambda d, bs, **kw: I.SerialIterator(d, bs, **kw),
    lambda d, bs, **kw: I.MultithreadIterator(d, bs, n_threads=2, **kw),
]
DATASETS = [make_cpp, make_list, Mixin]


@pytest.mark.parametrize('make_it', ITERATORS)
@pytest.mark.parametrize('make_data', DATASETS)
def test_order_epochs_and_stop(make_it, make_data):
    it = make_it(make_data(), 4, repeat=False, shuffle=False)
    got, details, new_epoch = [], [], []
    for batch in it:
        got.append(labels(batch))
        details.append(it.epoch_detail)
        new_epoch.append(it.is_new_epoch)
    assert got == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert details == pytest.approx([0.4, 0.8, 1.0])
    assert new_epoch == [False, False, True]
    assert it.epoch == 1
    with pytest.raises(StopIteration):
        next(it)
    it.reset()
    assert it.epoch == 0 and labels(next(it)) == [0, 1, 2, 3]


@pytest.mark.parametrize('make_it', ITERATORS)
@pytest.mark.parametrize('make_data', DATASETS)
def test_repeat_spans_epochs(make_it, make_data):
    it = make_it(make_data(), 4, shuffle=False)
    batches = [labels(it.next()) for _ in range(3)]
    assert batches == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 0, 1]]
    assert it.epoch == 1 and it.is_new_epoch
    assert it.previous_epoch_detail == pytest.approx(0.8)
    example = make_data()[2]  # the batch after [8, 9, 0, 1] starts at 2
    numpy.testing.assert_array_equal(next(it)[0][0], example[0])


@pytest.mark.parametrize('make_it', ITERATORS)
@pytest.mark.parametrize('make_data', [make_cpp, make_list])
def test_shuffle_is_a_permutation_and_reproducible(make_it, make_data):
    def run(seed):
        it = make_it(make_data(), 5, order_sampler=I.ShuffleOrderSampler(seed=seed))
        return [labels(next(it)) + labels(next(it)) for _ in range(3)]

    epochs = run(7)
    for epoch in epochs:
        assert sorted(epoch) == list(range(N))
    assert run(7) == epochs
    assert len({tuple(e) for e in epochs}) > 1
    assert run(8) != epochs


def test_shuffle_default_is_shuffled():
    it = I.SerialIterator(make_cpp(), N)
    orders = [labels(next(it)) for _ in range(4)]
    assert all(sorted(o) == list(range(N)) for o in orders)
    assert any(o != list(range(N)) for o in orders)
    assert isinstance(it.order_sampler, I.OrderSampler)
    with pytest.raises(ValueError):
        I.SerialIterator(make_cpp(), 2, shuffle=True, order_sampler=I.ShuffleOrderSampler())


def test_python_order_sampler():
    calls = []

    def reverse(current_order, current_position):
        calls.append((len(current_order), current_position))
        return numpy.arange(len(current_order))[::-1]

    it = I.SerialIterator(make_list(), 4, order_sampler=reverse)
    assert [labels(next(it)) for _ in range(3)] == [[9, 8, 7, 6], [5, 4, 3, 2], [1, 0, 9, 8]]
    assert calls[0] == (N, 0)


def test_dataset_held_only_by_cpp():
    it = I.SerialIterator(Mixin(), 3, shuffle=False)
    gc.collect()
    assert labels(next(it)) == [0, 1, 2]
    # One more read than the batch: SerialIterator looks at the first example of a Python
    # dataset to choose its C++ or Python form (Note [Python examples]).
    assert isinstance(it.dataset, Mixin) and it.dataset.calls == 4


def test_cpp_dataset_keeps_fast_path():
    d = make_cpp()
    assert I.SerialIterator(d, 2).dataset is d


def test_multiprocess_iterator_signature():
    it = I.MultiprocessIterator(make_cpp(), 4, repeat=False, shuffle=False, n_processes=2)
    assert [labels(b) for b in it] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


def test_errors_from_python_dataset_propagate():
    class Broken(DS.DatasetMixin):
        def __len__(self):
            return 4

        def get_example(self, i):
            raise KeyError('broken %d' % i)

    for it in (I.SerialIterator(Broken(), 2), I.MultithreadIterator(Broken(), 2, n_threads=2)):
        with pytest.raises(KeyError):
            next(it)


serializers = pytest.importorskip('rensa.serializers')


@pytest.mark.skipif(not hasattr(serializers, 'save_npz'), reason='serializers are not built')
@pytest.mark.parametrize('make_it', ITERATORS)
def test_serialize_resume(make_it, tmp_path):
    path = str(tmp_path / 'it.npz')
    ref = make_it(make_cpp(), 3, order_sampler=I.ShuffleOrderSampler(seed=1))
    for _ in range(5):
        next(ref)
    serializers.save_npz(path, ref)
    expected = [labels(next(ref)) for _ in range(6)]
    resumed = make_it(make_cpp(), 3, order_sampler=I.ShuffleOrderSampler(seed=99))
    serializers.load_npz(path, resumed)
    assert resumed.epoch == 1 and resumed.current_position == 5
    assert [labels(next(resumed)) for _ in range(6)] == expected


def test_iterator_base_is_shared():
    assert isinstance(I.SerialIterator(make_cpp(), 2), DS.Iterator)
    assert issubclass(I.MultithreadIterator, I.SerialIterator)
    assert _core.dataset.Iterator is DS.Iterator
