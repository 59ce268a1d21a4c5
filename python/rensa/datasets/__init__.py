"""rensa.datasets: Chainer's chainer.datasets.

The dataset classes are C++ (rensa._core.datasets): a C++ iterator reads them without
Python. Their constructors also take Python datasets (lists, DatasetMixin subclasses),
read through an adapter. Indexing follows Chainer: ``d[i]`` is an example (a tuple of
numpy arrays viewing the dataset's memory, a numpy scalar for a label), ``d[i:j]`` and
``d[[i, j]]`` a list of examples.
"""
import numpy

from rensa import _core
from rensa._core.datasets import ConcatenatedDataset  # noqa: F401
from rensa._core.datasets import DictDataset  # noqa: F401
from rensa._core.datasets import get_cifar10  # noqa: F401
from rensa._core.datasets import get_cifar100  # noqa: F401
from rensa._core.datasets import get_cross_validation_datasets  # noqa: F401
from rensa._core.datasets import get_cross_validation_datasets_random  # noqa: F401
from rensa._core.datasets import split_dataset  # noqa: F401
from rensa._core.datasets import split_dataset_random  # noqa: F401
from rensa._core.datasets import SubDataset  # noqa: F401
from rensa._core.datasets import TransformDataset  # noqa: F401
from rensa._core.datasets import TupleDataset  # noqa: F401
from rensa.datasets.image_dataset import ImageDataset  # noqa: F401
from rensa.datasets.image_dataset import LabeledImageDataset  # noqa: F401
from rensa.datasets.image_dataset import LabeledZippedImageDataset  # noqa: F401
from rensa.datasets.image_dataset import MultiZippedImageDataset  # noqa: F401
from rensa.datasets.image_dataset import ZippedImageDataset  # noqa: F401
from rensa.datasets.kuzushiji_mnist import get_kuzushiji_mnist  # noqa: F401
from rensa.datasets.kuzushiji_mnist import get_kuzushiji_mnist_labels  # noqa: F401
from rensa.datasets.pickle_dataset import open_pickle_dataset  # noqa: F401
from rensa.datasets.pickle_dataset import open_pickle_dataset_writer  # noqa: F401
from rensa.datasets.pickle_dataset import PickleDataset  # noqa: F401
from rensa.datasets.pickle_dataset import PickleDatasetWriter  # noqa: F401
from rensa.datasets.ptb import get_ptb_words  # noqa: F401
from rensa.datasets.ptb import get_ptb_words_vocabulary  # noqa: F401
from rensa.datasets.split import split_dataset_n  # noqa: F401
from rensa.datasets.split import split_dataset_n_random  # noqa: F401
from rensa.datasets.svhn import get_svhn  # noqa: F401
from rensa.datasets.text_dataset import TextDataset  # noqa: F401

__all__ = ['ConcatenatedDataset', 'DictDataset', 'SubDataset', 'TransformDataset',
           'TupleDataset', 'split_dataset', 'split_dataset_random',
           'get_cross_validation_datasets', 'get_cross_validation_datasets_random',
           'get_mnist', 'get_fashion_mnist', 'get_fashion_mnist_labels',
           'get_cifar10', 'get_cifar100', 'ImageDataset', 'LabeledImageDataset',
           'LabeledZippedImageDataset', 'MultiZippedImageDataset', 'ZippedImageDataset', 'TextDataset',
           'PickleDataset', 'PickleDatasetWriter', 'open_pickle_dataset', 'open_pickle_dataset_writer',
           'get_ptb_words', 'get_ptb_words_vocabulary', 'split_dataset_n', 'split_dataset_n_random',
           'get_svhn', 'get_kuzushiji_mnist', 'get_kuzushiji_mnist_labels']

_FASHION_MNIST_LABELS = ('T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat',
                         'Sandal', 'Shirt', 'Sneaker', 'Bag', 'Ankle boot')


def _rgb(datasets, withlabel):
    # Chainer's rgb_format: the gray channel broadcast to three (read-only views).
    def to_rgb(example):
        if withlabel:
            x, t = example
            return numpy.broadcast_to(x, (3,) + x.shape[1:]), t
        return numpy.broadcast_to(example, (3,) + example.shape[1:])
    return tuple(TransformDataset(d, to_rgb) for d in datasets)


def _load(loader, withlabel, ndim, scale, dtype, label_dtype, rgb_format):
    train, test = loader(withlabel=withlabel, ndim=ndim, scale=scale, dtype=dtype,
                         label_dtype=label_dtype)
    if rgb_format and ndim == 3:
        return _rgb((train, test), withlabel)
    return train, test


def get_mnist(withlabel=True, ndim=1, scale=1., dtype=None, label_dtype=numpy.int32,
              rgb_format=False):
    """MNIST (train, test) from $RENSA_DATASET_ROOT/mnist (nothing is downloaded)."""
    return _load(_core.datasets._get_mnist, withlabel, ndim, scale, dtype, label_dtype,
                 rgb_format)


def get_fashion_mnist(withlabel=True, ndim=1, scale=1., dtype=None,
                      label_dtype=numpy.int32, rgb_format=False):
    """Fashion-MNIST (train, test) from $RENSA_DATASET_ROOT/fashion-mnist or Debian's
    dataset-fashion-mnist package (nothing is downloaded)."""
    return _load(_core.datasets._get_fashion_mnist, withlabel, ndim, scale, dtype,
                 label_dtype, rgb_format)


def get_fashion_mnist_labels():
    """The class names of Fashion-MNIST, in label order."""
    return _FASHION_MNIST_LABELS
