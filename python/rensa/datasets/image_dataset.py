"""chainer.datasets.ImageDataset and its relatives: images read with Pillow on each access.

An image becomes a (channels, height, width) array of ``dtype`` (``rensa.config.dtype`` by
default, float32): a grayscale image is (1, H, W), an RGB one (3, H, W), the pixel values
unscaled (0..255), as Chainer's.
"""
import bisect
import io
import os
import threading
import zipfile

import numpy

from rensa.dataset.dataset_mixin import DatasetMixin
from rensa.datasets._files import get_dtype

__all__ = ['ImageDataset', 'LabeledImageDataset', 'LabeledZippedImageDataset', 'MultiZippedImageDataset',
           'ZippedImageDataset']


def _pillow(op):
    try:
        from PIL import Image
    except ImportError as e:
        raise ImportError('%s: reading images needs Pillow (pip install pillow); the import failed: %s' % (op, e))
    return Image


def _read_image(op, source, dtype, name):
    image_module = _pillow(op)
    try:
        with image_module.open(source) as f:
            image = numpy.asarray(f, dtype=dtype)
    except (OSError, SyntaxError) as e:  # Pillow's UnidentifiedImageError is an OSError
        raise OSError("%s: cannot read the image '%s': %s" % (op, name, e)) from e
    if image.ndim == 2:
        image = image[..., None]
    return image.transpose(2, 0, 1)


def _read_pairs(op, path):
    pairs = []
    with open(path) as f:
        for i, line in enumerate(f):
            pair = line.strip().split()
            if len(pair) != 2:
                raise ValueError("%s: Expect: '<path> <integer label>' on each line, Actual: %r at line %d of '%s'"
                                 % (op, line.rstrip('\n'), i, path))
            try:
                pairs.append((pair[0], int(pair[1])))
            except ValueError:
                raise ValueError("%s: Expect: an integer label, Actual: %r at line %d of '%s'"
                                 % (op, pair[1], i, path)) from None
    return pairs


class ImageDataset(DatasetMixin):
    """Images from a list of paths (or a text file of paths, one a line) relative to ``root``."""

    def __init__(self, paths, root='.', dtype=None):
        _pillow('ImageDataset')
        if isinstance(paths, str):
            with open(paths) as f:
                paths = [path.strip() for path in f]
        self._paths = paths
        self._root = root
        self._dtype = get_dtype(dtype)

    def __len__(self):
        return len(self._paths)

    def get_example(self, i):
        """The ``i``-th image as a ``(channels, height, width)`` array of the dataset's dtype (a
        grayscale image has one channel); OSError naming the file when Pillow cannot read it."""
        path = os.path.join(self._root, self._paths[i])
        return _read_image('ImageDataset', path, self._dtype, path)


class LabeledImageDataset(DatasetMixin):
    """(image, label) pairs from a list of (path, int) pairs, or a text file of
    ``<path> <label>`` lines (Caffe's format); the label is a 0-d ``label_dtype`` array."""

    def __init__(self, pairs, root='.', dtype=None, label_dtype=numpy.int32):
        _pillow('LabeledImageDataset')
        if isinstance(pairs, str):
            pairs = _read_pairs('LabeledImageDataset', pairs)
        self._pairs = pairs
        self._root = root
        self._dtype = get_dtype(dtype)
        self._label_dtype = label_dtype

    def __len__(self):
        return len(self._pairs)

    def get_example(self, i):
        """The ``i``-th ``(image, label)`` pair: a ``(channels, height, width)`` array and a 0-d
        ``label_dtype`` array."""
        path, label = self._pairs[i]
        full_path = os.path.join(self._root, path)
        image = _read_image('LabeledImageDataset', full_path, self._dtype, full_path)
        return image, numpy.array(label, dtype=self._label_dtype)


class ZippedImageDataset(DatasetMixin):
    """The images of a zip file (every member that is not a folder), in the archive's order;
    ``get_example`` also takes a member name."""

    def __init__(self, zipfilename, dtype=None):
        _pillow('ZippedImageDataset')
        self._zipfilename = zipfilename
        self._zf = zipfile.ZipFile(zipfilename)
        self._zf_pid = os.getpid()
        self._dtype = get_dtype(dtype)
        self._paths = [x for x in self._zf.namelist() if not x.endswith('/')]
        self._lock = threading.Lock()

    def __len__(self):
        return len(self._paths)

    # Note [Zip files after fork]: a ZipFile's file position is shared with a forked worker
    # (MultiprocessIterator), so each process reopens the archive (as Chainer does) and
    # pickling drops the handle.
    def __getstate__(self):
        state = self.__dict__.copy()
        state['_zf'] = None
        state['_lock'] = None
        return state

    def __setstate__(self, state):
        self.__dict__ = state
        self._lock = threading.Lock()

    def get_example(self, i_or_filename):
        """The image of a member, by index or by member name, as a ``(channels, height, width)``
        array; KeyError for a name that is not in the archive."""
        if isinstance(i_or_filename, (int, numpy.integer)):
            name = self._paths[i_or_filename]
        else:
            name = i_or_filename
        with self._lock:
            if self._zf is None or self._zf_pid != os.getpid():
                self._zf_pid = os.getpid()
                self._zf = zipfile.ZipFile(self._zipfilename)
            try:
                data = self._zf.read(name)
            except KeyError:
                raise KeyError("ZippedImageDataset: no member '%s' in '%s'" % (name, self._zipfilename)) from None
        label = '%s:%s' % (self._zipfilename, name)
        return _read_image('ZippedImageDataset', io.BytesIO(data), self._dtype, label)


class LabeledZippedImageDataset(DatasetMixin):
    """(image, label) pairs: a label file of ``<member> <label>`` lines over a zip file."""

    def __init__(self, zipfilename, labelfilename, dtype=None, label_dtype=numpy.int32):
        self._pairs = _read_pairs('LabeledZippedImageDataset', labelfilename)
        self._label_dtype = label_dtype
        self._zipfile = ZippedImageDataset(zipfilename, dtype=dtype)

    def __len__(self):
        return len(self._pairs)

    def get_example(self, i):
        """The ``i``-th ``(image, label)`` pair: the member's image and a 0-d ``label_dtype`` array."""
        path, label = self._pairs[i]
        return self._zipfile.get_example(path), numpy.array(label, dtype=self._label_dtype)


class MultiZippedImageDataset(DatasetMixin):
    """The images of several zip files, one after the other."""

    def __init__(self, zipfilenames, dtype=None):
        self._zfs = [ZippedImageDataset(fn, dtype) for fn in zipfilenames]
        self._ends = [0]
        for zf in self._zfs:
            self._ends.append(self._ends[-1] + len(zf))

    def __len__(self):
        return self._ends[-1]

    def get_example(self, i):
        """The ``i``-th image over all the archives in order (negative indices count from the end);
        IndexError out of range."""
        n = len(self)
        if not -n <= i < n:
            raise IndexError('MultiZippedImageDataset: index %d is out of range for a dataset of size %d' % (i, n))
        i = i % n if n else i
        k = bisect.bisect(self._ends, i) - 1
        return self._zfs[k].get_example(i - self._ends[k])
