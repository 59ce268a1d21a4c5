"""chainer.datasets.get_svhn: the Street View House Numbers (cropped digits, 32x32).

Read from ``$RENSA_DATASET_ROOT/svhn/`` (``train_32x32.mat``, ``test_32x32.mat`` and, with
``add_extra``, ``extra_32x32.mat``: the MATLAB 5 files of the original distribution, read by
rensa.datasets._matlab). As Chainer: images (N, 3, 32, 32) scaled by ``scale / 255``,
label 10 (the digit 0) becomes 0.
"""
import numpy

from rensa.datasets import _files
from rensa.datasets import _matlab

__all__ = ['get_svhn']

_NAME = 'svhn'


def _preprocess(op, path, withlabel, scale, dtype, label_dtype):
    raw = _matlab.loadmat(path)
    for key in ('X', 'y'):
        if key not in raw:
            raise OSError("%s: '%s' has no numeric variable '%s' (it has %s)" % (op, path, key, sorted(raw)))
    x, y = raw['X'], raw['y']
    if x.ndim != 4 or x.shape[2] != 3 or y.size != x.shape[3]:
        raise OSError("%s: '%s' holds X of shape %s and y of shape %s; expected (H, W, 3, N) and N labels"
                      % (op, path, x.shape, y.shape))
    images = x.astype(numpy.uint8).transpose(3, 2, 0, 1).astype(dtype)
    images *= scale / 255.
    labels = y.astype(numpy.uint8).astype(label_dtype).flatten()
    labels[labels == 10] = 0
    if not withlabel:
        return images
    from rensa.datasets import TupleDataset
    return TupleDataset(images, labels)


def get_svhn(withlabel=True, scale=1., dtype=None, label_dtype=numpy.int32, add_extra=False):
    """(train, test), or (train, test, extra) with ``add_extra``: TupleDatasets of
    (image, label), or image arrays without labels."""
    op = 'get_svhn'
    files = ('train_32x32.mat', 'test_32x32.mat') + (('extra_32x32.mat',) if add_extra else ())
    paths = _files.locate(op, _NAME, files)
    dtype = _files.get_dtype(dtype)
    return tuple(_preprocess(op, p, withlabel, scale, dtype, label_dtype) for p in paths)
