"""rensa.datasets against numpy: every dataset class, the split functions, the loaders."""
import os

import numpy
import pytest

import rensa
from rensa import datasets as D


@pytest.fixture
def arrays(rng):
    x = rng.standard_normal((10, 3)).astype(numpy.float32)
    t = rng.integers(0, 5, size=10).astype(numpy.int32)
    return x, t


def assert_example(example, expected):
    assert type(example) is type(expected)
    if isinstance(expected, dict):
        assert list(example) == list(expected)
        for key in expected:
            numpy.testing.assert_array_equal(example[key], expected[key])
        return
    assert len(example) == len(expected)
    for got, want in zip(example, expected):
        assert numpy.asarray(got).dtype == numpy.asarray(want).dtype
        numpy.testing.assert_array_equal(got, want)


class TestTupleDataset:
    def test_index_like_numpy(self, arrays):
        x, t = arrays
        d = D.TupleDataset(x, t)
        assert len(d) == len(x)
        for i in list(range(len(x))) + [-1, -len(x)]:
            assert_example(d[i], (x[i], t[i]))
        # the label is a numpy scalar, as indexing a 1-d numpy array gives
        assert isinstance(d[2][1], numpy.int32)

    @pytest.mark.parametrize('index', [slice(2, 7), slice(None, None, -3), slice(-4, None),
                                       [0, 9, 4, 4], numpy.array([3, 1])])
    def test_slices_and_lists_give_lists(self, arrays, index):
        x, t = arrays
        got = D.TupleDataset(x, t)[index]
        want = list(zip(x[index], t[index]))
        assert isinstance(got, list) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_example(g, w)

    def test_iteration_and_out_of_range(self, arrays):
        x, t = arrays
        d = D.TupleDataset(x, t)
        assert len(list(d)) == len(x)
        with pytest.raises(IndexError):
            d[len(x)]
        with pytest.raises(IndexError):
            d[-len(x) - 1]

    def test_zero_copy(self, arrays):
        x, t = arrays
        d = D.TupleDataset(x, t)
        assert numpy.shares_memory(d[3][0], x)
        assert numpy.shares_memory(d._datasets[0], x)
        x[3] = 42.0
        numpy.testing.assert_array_equal(d[3][0], numpy.full(3, 42.0, numpy.float32))

    def test_single_array_gives_one_tuples(self, arrays):
        x, _ = arrays
        assert_example(D.TupleDataset(x)[4], (x[4],))

    def test_lengths_must_match(self, arrays):
        x, t = arrays
        with pytest.raises(ValueError):
            D.TupleDataset(x, t[:5])


def test_dict_dataset(arrays):
    x, t = arrays
    d = D.DictDataset(x=x, t=t)
    assert len(d) == len(x)
    for i in range(len(x)):
        assert_example(d[i], {'x': x[i], 't': t[i]})
    assert_example(d[1:3][1], {'x': x[2], 't': t[2]})
    with pytest.raises(ValueError):
        D.DictDataset(x=x, t=t[:3])


def test_sub_dataset_with_order(arrays):
    x, t = arrays
    order = numpy.array([9, 8, 7, 6, 5, 4, 3, 2, 1, 0])
    d = D.SubDataset(D.TupleDataset(x, t), 2, 6, order)
    assert len(d) == 4
    for i in range(4):
        assert_example(d[i], (x[order[2 + i]], t[order[2 + i]]))
    with pytest.raises(ValueError):
        D.SubDataset(D.TupleDataset(x, t), 3, 11)


def test_split_dataset(arrays):
    x, t = arrays
    a, b = D.split_dataset(D.TupleDataset(x, t), 4)
    assert (len(a), len(b)) == (4, 6)
    assert_example(a[3], (x[3], t[3]))
    assert_example(b[0], (x[4], t[4]))


def test_split_dataset_random_is_a_seeded_partition(arrays):
    x, t = arrays
    d = D.TupleDataset(x, numpy.arange(10))
    a, b = D.split_dataset_random(d, 7, seed=3)
    a2, b2 = D.split_dataset_random(d, 7, seed=3)
    got = [int(e[1]) for e in a] + [int(e[1]) for e in b]
    assert sorted(got) == list(range(10))
    assert [int(e[1]) for e in a2] == got[:7]
    for example in a:
        numpy.testing.assert_array_equal(example[0], x[example[1]])


def test_cross_validation_partitions(arrays):
    x, _ = arrays
    folds = D.get_cross_validation_datasets(D.TupleDataset(numpy.arange(10), x), 3)
    assert len(folds) == 3
    tested = []
    for train, test in folds:
        assert len(train) + len(test) == 10
        tested += [int(e[0]) for e in test]
        assert not set(int(e[0]) for e in train) & set(int(e[0]) for e in test)
    assert sorted(tested) == list(range(10))


def test_concatenated_dataset_mixes_cpp_and_python(arrays):
    x, t = arrays
    extra = [(numpy.ones(3, numpy.float32), numpy.int32(7))]
    d = D.ConcatenatedDataset(D.TupleDataset(x, t), extra)
    assert len(d) == len(x) + 1
    assert_example(d[2], (x[2], t[2]))
    assert_example(d[len(x)], extra[0])
    assert_example(d[-1], extra[0])


def test_transform_dataset(arrays):
    x, t = arrays
    seen = []

    def transform(example):
        a, b = example
        seen.append(int(b))
        return a * 2, b + 1

    d = D.TransformDataset(D.TupleDataset(x, t), transform)
    assert len(d) == len(x)
    for i in range(len(x)):
        assert_example(d[i], (x[i] * 2, t[i] + 1))
    assert seen == [int(v) for v in t]


def test_transform_dataset_over_python_list():
    base = [(numpy.float32(i), i) for i in range(5)]
    d = D.TransformDataset(base, lambda e: (numpy.array([e[0], -e[0]]), e[1]))
    numpy.testing.assert_array_equal(d[3][0], [3.0, -3.0])
    assert d._dataset is base


_FASHION = os.environ.get('RENSA_DATASET_ROOT', '') and os.path.isdir(
    os.path.join(os.environ['RENSA_DATASET_ROOT'], 'fashion-mnist')) or os.path.isdir(
    '/usr/share/datasets/fashion-mnist')


@pytest.mark.skipif(not _FASHION, reason='Fashion-MNIST is not installed')
class TestFashionMnist:
    def test_default_shapes_and_scale(self):
        train, test = D.get_fashion_mnist()
        assert (len(train), len(test)) == (60000, 10000)
        x, t = train[0]
        assert x.shape == (784,) and x.dtype == numpy.float32
        assert isinstance(t, numpy.int32) and 0 <= t < 10
        batch = numpy.stack([train[i][0] for i in range(0, 60000, 997)])
        assert batch.min() >= 0.0 and batch.max() <= 1.0 and batch.max() > 0.9
        # pixels are k/255 exactly as Chainer's x.astype(float32) * (1/255.)
        k = numpy.rint(batch * 255.0)
        numpy.testing.assert_array_equal(batch, k.astype(numpy.float32) * numpy.float32(1 / 255.))

    @pytest.mark.parametrize('ndim,shape', [(1, (784,)), (2, (28, 28)), (3, (1, 28, 28))])
    def test_ndim_scale_dtype(self, ndim, shape):
        train, _ = D.get_fashion_mnist(ndim=ndim, scale=2.0, dtype=numpy.float64,
                                       label_dtype=numpy.int64)
        ref, _ = D.get_fashion_mnist()
        x, t = train[5]
        assert x.shape == shape and x.dtype == numpy.float64 and isinstance(t, numpy.int64)
        numpy.testing.assert_allclose(x.reshape(-1), ref[5][0] * 2.0, rtol=1e-6)

    def test_without_label_and_rgb(self):
        train, _ = D.get_fashion_mnist(withlabel=False, ndim=3)
        assert isinstance(train[0], numpy.ndarray) and train[0].shape == (1, 28, 28)
        rgb, _ = D.get_fashion_mnist(ndim=3, rgb_format=True)
        x, _ = rgb[0]
        assert x.shape == (3, 28, 28)
        for c in range(3):
            numpy.testing.assert_array_equal(x[c], train[0][0])
        assert len(D.get_fashion_mnist_labels()) == 10


def test_rensa_namespace():
    assert rensa.datasets.TupleDataset is D.TupleDataset
