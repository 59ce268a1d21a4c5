"""rensa.dataset: concat_examples, converters, DatasetMixin and Python Iterator subclasses."""
import gc

import numpy
import pytest

import rensa
from rensa import _core
from rensa import dataset as DS
from rensa import datasets as D


@pytest.fixture
def batch(rng):
    return [(rng.standard_normal(3).astype(numpy.float32), numpy.int32(i)) for i in range(4)]


class TestConcatExamples:
    def test_tuples(self, batch):
        x, t = DS.concat_examples(batch)
        numpy.testing.assert_array_equal(x, numpy.stack([e[0] for e in batch]))
        numpy.testing.assert_array_equal(t, numpy.array([e[1] for e in batch]))
        assert x.dtype == numpy.float32 and t.dtype == numpy.int32
        assert not numpy.shares_memory(x, batch[0][0])

    def test_dicts_and_bare_arrays(self, batch):
        got = DS.concat_examples([{'x': e[0], 't': e[1]} for e in batch])
        assert list(got) == ['x', 't']
        numpy.testing.assert_array_equal(got['x'], numpy.stack([e[0] for e in batch]))
        bare = DS.concat_examples([e[0] for e in batch])
        assert isinstance(bare, numpy.ndarray)
        numpy.testing.assert_array_equal(bare, numpy.stack([e[0] for e in batch]))
        one = DS.concat_examples([(e[0],) for e in batch])
        assert isinstance(one, tuple) and len(one) == 1

    def test_padding(self, rng):
        xs = [rng.standard_normal((n, 2)).astype(numpy.float32) for n in (1, 3, 2)]
        ts = [numpy.arange(n, dtype=numpy.int32) for n in (2, 1, 3)]
        x, t = DS.concat_examples(list(zip(xs, ts)), padding=-1)
        want = numpy.full((3, 3, 2), -1, numpy.float32)
        for i, a in enumerate(xs):
            want[i, :len(a)] = a
        numpy.testing.assert_array_equal(x, want)
        assert t.shape == (3, 3) and t[1, 1] == -1
        x2, t2 = DS.concat_examples(list(zip(xs, ts)), padding=(0, 9))
        numpy.testing.assert_array_equal(x2, numpy.where(want == -1, 0, want))
        assert t2[1, 2] == 9 and t2[2, 2] == 2

    def test_errors(self, rng):
        with pytest.raises(ValueError):
            DS.concat_examples([])
        with pytest.raises(ValueError):
            DS.concat_examples([numpy.zeros(2, numpy.float32), numpy.zeros(3, numpy.float32)])

    def test_device_and_to_device(self, batch):
        x, _ = DS.concat_examples(batch, device=-1)
        assert isinstance(x, numpy.ndarray)
        a = numpy.arange(3.0)
        assert DS.to_device(None, a) is a
        numpy.testing.assert_array_equal(DS.to_device('@numpy', a), a)
        assert DS.convert.concat_examples is DS.concat_examples


class TestConverters:
    def test_cpp_view_of_concat_examples(self, batch):
        x, t = _core.dataset._apply_converter(DS.concat_examples, batch, None)
        numpy.testing.assert_array_equal(x, numpy.stack([e[0] for e in batch]))

    def test_python_converter(self, batch):
        seen = []

        @DS.converter()
        def double(b, device):
            seen.append((len(b), device))
            x, t = DS.concat_examples(b, device)
            return x * 2, t

        assert isinstance(double, DS.Converter)
        x, t = _core.dataset._apply_converter(double, batch, None)
        numpy.testing.assert_array_equal(x, 2 * numpy.stack([e[0] for e in batch]))
        assert seen == [(4, None)]
        with pytest.raises(TypeError):
            _core.dataset._apply_converter(42, batch, None)


class Squares(DS.DatasetMixin):
    def __len__(self):
        return 6

    def get_example(self, i):
        return numpy.float32(i * i), numpy.int32(i)


def test_dataset_mixin_indexing():
    d = Squares()
    assert d[3] == (9.0, 3)
    assert [e[1] for e in d[1:5:2]] == [1, 3]
    assert [e[1] for e in d[[5, 0]]] == [5, 0]
    assert [e[1] for e in d[numpy.array([2, 2])]] == [2, 2]
    sub = D.SubDataset(d, 2, 5)
    assert [int(sub[i][1]) for i in range(len(sub))] == [2, 3, 4]


class Countdown(DS.Iterator):
    # Written as in Chainer (attributes, property, StopIteration), without super().__init__.
    def __init__(self, n, batch_size):
        self.n, self.batch_size = n, batch_size
        self.reset()

    def reset(self):
        self.position, self.epoch, self.is_new_epoch = 0, 0, False

    def __next__(self):
        if self.position >= self.n:
            raise StopIteration
        batch = [(numpy.float32(k), numpy.int32(k))
                 for k in range(self.position, min(self.n, self.position + self.batch_size))]
        self.position += len(batch)
        self.is_new_epoch = self.position >= self.n
        self.epoch = int(self.is_new_epoch)
        return batch

    @property
    def epoch_detail(self):
        return self.position / self.n

    def serialize(self, serializer):
        self.position = serializer('position', self.position)


class TestPythonIterator:
    def test_python_protocol(self):
        it = Countdown(5, 2)
        assert [len(b) for b in it] == [2, 2, 1]
        assert it.epoch == 1 and it.epoch_detail == 1.0
        with pytest.raises(StopIteration):
            it.next()

    def test_held_only_by_cpp(self):
        holder = _core.dataset._IteratorHolder(Countdown(5, 2))
        gc.collect()
        steps = holder.run(4)
        assert [None if b is None else [int(e[1]) for e in b] for b, _, _, _ in steps] == \
            [[0, 1], [2, 3], [4], None]
        assert [s[1:] for s in steps[:3]] == [(0, 0.4, False), (0, 0.8, False), (1, 1.0, True)]
        holder.reset()
        assert holder.get().position == 0 and isinstance(holder.get(), Countdown)

    def test_serialize_through_cpp(self):
        serializers = pytest.importorskip('rensa.serializers')
        if not hasattr(serializers, 'DictionarySerializer'):
            pytest.skip('serializers are not built')
        it = Countdown(5, 2)
        next(it)
        target = {}
        holder = _core.dataset._IteratorHolder(it)
        holder.serialize(serializers.DictionarySerializer(target))
        assert int(numpy.asarray(target['position'])) == 2

    def test_missing_next_is_not_implemented(self):
        class Empty(DS.Iterator):
            pass

        holder = _core.dataset._IteratorHolder(Empty())
        with pytest.raises(NotImplementedError):
            holder.run(1)
        with pytest.raises(NotImplementedError):
            next(Empty())

    def test_context_manager_finalizes(self):
        finalized = []

        class Finalizing(Countdown):
            def finalize(self):
                finalized.append(True)

        with Finalizing(3, 1) as it:
            next(it)
        assert finalized == [True]


def test_rensa_namespace():
    assert rensa.dataset.Iterator is DS.Iterator
    assert rensa.dataset.DatasetMixin is DS.DatasetMixin
