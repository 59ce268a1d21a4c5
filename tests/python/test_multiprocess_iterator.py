"""MultiprocessIterator: SerialIterator's batches (same seed, same orders), fetched by worker
processes through shared memory; resume, errors, Python datasets, the Trainer."""
import copy
import os
import warnings

import numpy
import pytest

import rensa
from rensa import dataset as DS
from rensa import datasets as D
from rensa import iterators as I
from rensa import serializers as S


def make_data(n=11):
    x = numpy.arange(n * 6, dtype=numpy.float32).reshape(n, 2, 3)
    t = numpy.arange(n, dtype=numpy.int32)
    return D.TupleDataset(x, t)


def labels(batch):
    return [int(t) for _, t in batch]


def run(it, n):
    out = []
    for _ in range(n):
        batch = next(it)
        out.append((labels(batch), it.epoch, it.epoch_detail, it.is_new_epoch, it.previous_epoch_detail))
    return out


class PidDataset(DS.DatasetMixin):
    """Examples that say which process made them."""

    def __len__(self):
        return 8

    def get_example(self, i):
        return numpy.full((2,), i, dtype=numpy.float64), numpy.int64(os.getpid())


@pytest.mark.parametrize('batch_size,n_prefetch,shared_mem', [(3, 1, None), (4, 3, 1024), (5, 2, 16)])
def test_same_batches_as_serial_iterator(batch_size, n_prefetch, shared_mem):
    data = make_data()
    serial = I.SerialIterator(data, batch_size, order_sampler=I.ShuffleOrderSampler(seed=7))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', RuntimeWarning)  # shared_mem=16 is too small: pickled
        multi = I.MultiprocessIterator(data, batch_size, order_sampler=I.ShuffleOrderSampler(seed=7),
                                       n_processes=2, n_prefetch=n_prefetch, shared_mem=shared_mem)
        assert run(multi, 9) == run(serial, 9)
        batch = next(multi)
    reference = next(serial)
    for (x, t), (rx, rt) in zip(batch, reference):
        assert x.dtype == numpy.float32 and x.shape == (2, 3)
        numpy.testing.assert_array_equal(x, rx)
        assert t == rt
    multi.finalize()


def test_global_seed_gives_serial_iterators_order():
    data = make_data()
    rensa._core.seed(3)
    serial = I.SerialIterator(data, 4)
    rensa._core.seed(3)
    multi = I.MultiprocessIterator(data, 4, n_processes=2)
    assert run(multi, 6) == run(serial, 6)
    multi.finalize()


def test_no_repeat_and_no_shuffle():
    multi = I.MultiprocessIterator(make_data(), 4, repeat=False, shuffle=False, n_processes=2, n_prefetch=2)
    assert [labels(b) for b in multi] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10]]
    assert multi.epoch == 1 and multi.is_new_epoch
    with pytest.raises(StopIteration):
        next(multi)
    multi.reset()
    assert labels(next(multi)) == [0, 1, 2, 3] and multi.epoch == 0
    multi.finalize()


def test_workers_fetch_and_shared_memory_holds_arrays():
    multi = I.MultiprocessIterator(PidDataset(), 4, shuffle=False, n_processes=2)
    first = next(multi)  # measured in the main process
    assert {int(t) for _, t in first} == {os.getpid()}
    later = next(multi) + next(multi)
    assert all(int(t) != os.getpid() for _, t in later)
    assert [float(x[0]) for x, _ in later] == [4, 5, 6, 7, 0, 1, 2, 3]
    assert multi._memory is not None and multi._mem_size >= 16
    multi.finalize()


@pytest.mark.parametrize('stop', [2, 4, 5])
def test_resume_gives_the_uninterrupted_batches(stop):
    data = make_data()
    ref = I.MultiprocessIterator(data, 3, order_sampler=I.ShuffleOrderSampler(seed=1), n_processes=2, n_prefetch=3)
    expected = run(ref, stop + 6)
    first = I.MultiprocessIterator(data, 3, order_sampler=I.ShuffleOrderSampler(seed=1), n_processes=2,
                                   n_prefetch=3)
    assert run(first, stop) == expected[:stop]
    saved = S.DictionarySerializer()
    saved.save(first)  # fetched ahead past an epoch end: the sampler saved as it was at this batch
    first.finalize()
    resumed = I.MultiprocessIterator(data, 3, order_sampler=I.ShuffleOrderSampler(seed=99), n_processes=2)
    S.NpzDeserializer(saved.target).load(resumed)
    assert resumed.epoch_detail == expected[stop - 1][2]
    assert run(resumed, 6) == expected[stop:]
    resumed.finalize()
    ref.finalize()


def test_resume_from_serial_iterator_state(tmp_path):
    data = make_data()
    serial = I.SerialIterator(data, 4, order_sampler=I.ShuffleOrderSampler(seed=5))
    run(serial, 4)
    path = str(tmp_path / 'it.npz')
    S.save_npz(path, serial)
    multi = I.MultiprocessIterator(data, 4, order_sampler=I.ShuffleOrderSampler(seed=0), n_processes=2)
    S.load_npz(path, multi)
    assert run(multi, 5) == run(serial, 5)
    multi.finalize()


def test_bad_loaded_state():
    multi = I.MultiprocessIterator(make_data(), 4, shuffle=False, n_processes=1)
    state = {'current_position': numpy.int64(99), 'epoch': numpy.int64(0), 'is_new_epoch': numpy.bool_(False),
             'previous_epoch_detail': numpy.float64(-1)}
    with pytest.raises(ValueError, match=r'MultiprocessIterator: loaded epoch 0, current_position 99'):
        S.NpzDeserializer(state).load(multi)
    multi.finalize()


def test_copy_keeps_the_state():
    multi = I.MultiprocessIterator(make_data(), 4, order_sampler=I.ShuffleOrderSampler(seed=2), n_processes=1)
    next(multi)
    other = copy.copy(multi)
    assert other.current_position == 4 and other.epoch_detail == multi.epoch_detail
    assert labels(next(other)) == labels(next(multi))
    other.finalize()
    multi.finalize()


def test_errors():
    with pytest.raises(ValueError, match='MultiprocessIterator: shuffle is not None and a custom order_sampler'):
        I.MultiprocessIterator(make_data(), 2, shuffle=True, order_sampler=I.ShuffleOrderSampler())
    with pytest.raises(ValueError, match='MultiprocessIterator: Expect: batch_size >= 1, Actual: 0'):
        I.MultiprocessIterator(make_data(), 0)
    with pytest.raises(ValueError, match='the dataset is empty'):
        I.MultiprocessIterator([], 2)

    class Broken(DS.DatasetMixin):
        def __len__(self):
            return 6

        def get_example(self, i):
            if i == 5:
                raise KeyError('broken %d' % i)
            return numpy.zeros(2, numpy.float32), numpy.int32(i)

    multi = I.MultiprocessIterator(Broken(), 3, shuffle=False, n_processes=2)
    next(multi)
    with pytest.raises(KeyError, match='broken 5'):
        next(multi)  # raised in a worker, re-raised here
    assert labels(next(multi)) == [0, 1, 2]  # the failed batch counts as consumed
    multi.finalize()
    with pytest.raises(RuntimeError, match='finalized'):
        next(multi)


def test_slow_dataset_warns():
    class Slow(DS.DatasetMixin):
        def __len__(self):
            return 4

        def get_example(self, i):
            import time
            time.sleep(0.3)
            return numpy.zeros(1, numpy.float32),

    multi = I.MultiprocessIterator(Slow(), 2, shuffle=False, n_processes=1, shared_mem=64, dataset_timeout=0.05)
    with pytest.warns(I.MultiprocessIterator.TimeoutWarning):
        assert len(next(multi)) == 2
    multi.finalize()


def test_trains_with_standard_updater(tmp_path):
    rs = numpy.random.RandomState(0)
    x = rs.standard_normal((12, 3)).astype(numpy.float32)
    t = rs.randint(0, 2, 12).astype(numpy.int32)

    def train(make_iterator):
        model = rensa.links.Classifier(rensa.links.Linear(3, 2))
        model.predictor.W.array[...] = numpy.random.RandomState(1).standard_normal((2, 3))
        model.predictor.b.array[...] = 0
        opt = rensa.optimizers.SGD(lr=0.1)
        opt.setup(model)
        it = make_iterator(D.TupleDataset(x, t))
        updater = rensa.training.updaters.StandardUpdater(it, opt)
        trainer = rensa.training.Trainer(updater, (2, 'epoch'), out=str(tmp_path))
        trainer.run()
        return model.predictor.W.array.copy()

    ours = train(lambda d: I.MultiprocessIterator(d, 4, order_sampler=I.ShuffleOrderSampler(seed=4), n_processes=2))
    ref = train(lambda d: I.SerialIterator(d, 4, order_sampler=I.ShuffleOrderSampler(seed=4)))
    numpy.testing.assert_array_equal(ours, ref)
