"""chainer.datasets.get_kuzushiji_mnist: Kuzushiji-MNIST from its distributed .npz files.

Read from ``$RENSA_DATASET_ROOT/kuzushiji-mnist/`` (``kmnist-train-imgs.npz``,
``kmnist-train-labels.npz``, ``kmnist-test-imgs.npz``, ``kmnist-test-labels.npz``, each
holding ``arr_0``: uint8 images (N, 28, 28), uint8 labels (N,)), then shaped and scaled as
Chainer's MNIST loaders do.
"""
import numpy

from rensa.datasets import _files

__all__ = ['get_kuzushiji_mnist', 'get_kuzushiji_mnist_labels']

_NAME = 'kuzushiji-mnist'
_FILES = ('kmnist-train-imgs.npz', 'kmnist-train-labels.npz', 'kmnist-test-imgs.npz', 'kmnist-test-labels.npz')
_LABELS = [('o', '\u304A'), ('ki', '\u304D'), ('su', '\u3059'), ('tsu', '\u3064'), ('na', '\u306A'),
           ('ha', '\u306F'), ('ma', '\u307E'), ('ya', '\u3084'), ('re', '\u308C'), ('wo', '\u3092')]


def get_kuzushiji_mnist_labels():
    """(romaji, hiragana) of each class, in label order."""
    return _LABELS


def _array(op, path):
    with numpy.load(path) as npz:
        if 'arr_0' not in npz.files:
            raise OSError("%s: '%s' holds %s; expected the array 'arr_0'" % (op, path, npz.files))
        return npz['arr_0']


def _preprocess(op, images_path, labels_path, withlabel, ndim, scale, dtype, label_dtype, rgb_format):
    images = _array(op, images_path)
    if images.ndim != 3 or images.shape[1:] != (28, 28):
        raise OSError("%s: '%s' holds images of shape %s; expected (N, 28, 28)" % (op, images_path, images.shape))
    shapes = {1: (-1, 784), 2: (-1, 28, 28), 3: (-1, 1, 28, 28)}
    images = images.reshape(shapes[ndim])
    if ndim == 3 and rgb_format:
        images = numpy.broadcast_to(images, (len(images), 3, 28, 28))
    images = images.astype(dtype)
    images *= scale / 255.
    if not withlabel:
        return images
    labels = _array(op, labels_path)
    if labels.shape != (len(images),):
        raise OSError("%s: '%s' holds labels of shape %s; expected (%d,) for the images of '%s'"
                      % (op, labels_path, labels.shape, len(images), images_path))
    from rensa.datasets import TupleDataset
    return TupleDataset(images, labels.astype(label_dtype))


def get_kuzushiji_mnist(withlabel=True, ndim=1, scale=1., dtype=None, label_dtype=numpy.int32, rgb_format=False):
    """(train, test) as get_mnist's: TupleDatasets of (image, label), or image arrays."""
    op = 'get_kuzushiji_mnist'
    if ndim not in (1, 2, 3):
        raise ValueError('%s: Expect: ndim in (1, 2, 3), Actual: %r' % (op, ndim))
    dtype = _files.get_dtype(dtype)
    paths = _files.locate(op, _NAME, _FILES)
    args = (withlabel, ndim, scale, dtype, label_dtype, rgb_format)
    return (_preprocess(op, paths[0], paths[1], *args), _preprocess(op, paths[2], paths[3], *args))
