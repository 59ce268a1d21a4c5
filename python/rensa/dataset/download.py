"""chainer.dataset.download: where the data sets are read from.

Nothing is downloaded (no network): the loaders read $RENSA_DATASET_ROOT (and, for
Fashion-MNIST, Debian's dataset-fashion-mnist package).
"""
import os

__all__ = ['get_dataset_root', 'set_dataset_root', 'get_dataset_directory']

_ENV = 'RENSA_DATASET_ROOT'


def get_dataset_root():
    """The folder the loaders read ($RENSA_DATASET_ROOT; '' when unset)."""
    return os.environ.get(_ENV, '')


def set_dataset_root(path):
    """Sets the folder the loaders read (the C++ loaders read $RENSA_DATASET_ROOT)."""
    os.environ[_ENV] = os.fspath(path)


def get_dataset_directory(dataset_name, create_directory=True):
    """``<root>/<dataset_name>``, created when asked (Chainer's signature)."""
    path = os.path.join(get_dataset_root() or os.path.expanduser('~/.rensa/dataset'),
                        dataset_name)
    if create_directory:
        os.makedirs(path, exist_ok=True)
    return path
