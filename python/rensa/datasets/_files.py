"""Where the data sets that Chainer downloads are read from (nothing is downloaded).

As get_mnist and get_cifar10 (training/datasets/mnist.cc), a data set ``<name>`` is read from
``$RENSA_DATASET_ROOT/<name>/`` in the files of its original distribution; a missing file
raises OSError naming the files and the folder searched.
"""
import os

from rensa.dataset import download


def get_dtype(dtype):
    """Chainer's ``chainer.get_dtype``: ``dtype``, or ``rensa.config.dtype`` for None."""
    import numpy
    if dtype is None:
        from rensa import configuration
        dtype = configuration.config.dtype
    return numpy.dtype(dtype)


def locate(op, name, files):
    """The paths of ``files`` in ``$RENSA_DATASET_ROOT/<name>``; OSError when one is missing."""
    root = download.get_dataset_root()
    folder = os.path.join(root, name) if root else None
    if folder is not None and all(os.path.isfile(os.path.join(folder, f)) for f in files):
        return [os.path.join(folder, f) for f in files]
    where = "'%s'" % folder if folder is not None else '$RENSA_DATASET_ROOT/%s/ (unset)' % name
    missing = ''
    if folder is not None:
        missing = ' (missing: %s)' % ', '.join(f for f in files if not os.path.isfile(os.path.join(folder, f)))
    raise OSError('%s: the data set is missing. Expected the files %s in %s%s. Nothing is downloaded: set '
                  'RENSA_DATASET_ROOT to a folder whose %s/ subfolder holds them'
                  % (op, ', '.join(files), where, missing, name))
