"""chainer.datasets.PickleDataset: examples pickled one after another in one file.

``PickleDatasetWriter.write(x)`` appends one pickled example; ``PickleDataset(reader)`` finds
where each starts once and unpickles the i-th on access. ``open_pickle_dataset`` reopens its
file in a forked process (MultiprocessIterator's workers), so processes never share a file
position.
"""
import io
import multiprocessing.util
import pickle
import threading

from rensa.dataset.dataset_mixin import DatasetMixin

__all__ = ['PickleDataset', 'PickleDatasetWriter', 'open_pickle_dataset', 'open_pickle_dataset_writer']


class PickleDatasetWriter(object):
    """Writes examples to ``writer`` (a binary file) for PickleDataset."""

    def __init__(self, writer, protocol=pickle.HIGHEST_PROTOCOL):
        self._positions = []
        self._writer = writer
        self._protocol = protocol

    def close(self):
        """Closes the underlying writer."""
        self._writer.close()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.close()

    def write(self, x):
        """Appends the example ``x``, pickled with the writer's protocol."""
        position = self._writer.tell()
        pickle.dump(x, self._writer, protocol=self._protocol)
        self._positions.append(position)

    def flush(self):
        """Flushes the underlying writer (if it can)."""
        if hasattr(self._writer, 'flush'):
            self._writer.flush()


class PickleDataset(DatasetMixin):
    """The examples pickled in ``reader`` (a seekable binary file)."""

    def __init__(self, reader):
        if not reader.seekable():
            raise ValueError('PickleDataset: Expect: a seekable reader (random access), Actual: %r' % (reader,))
        self._reader = reader
        self._positions = []
        reader.seek(0)
        while True:
            position = reader.tell()
            try:
                pickle.load(reader)
            except EOFError:
                break
            self._positions.append(position)
        self._lock = threading.RLock()
        self._register_hook()

    def _register_hook(self):
        multiprocessing.util.register_after_fork(self, PickleDataset._after_fork)

    def _after_fork(self):
        if callable(getattr(self._reader, 'after_fork', None)):
            self._reader.after_fork()

    def __getstate__(self):
        state = self.__dict__.copy()
        del state['_lock']
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.RLock()
        self._register_hook()

    def close(self):
        """Closes the underlying reader."""
        with self._lock:
            self._reader.close()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.close()

    def __len__(self):
        return len(self._positions)

    def get_example(self, index):
        """Unpickles and returns the ``index``-th example (seeking to it in the reader)."""
        with self._lock:
            self._reader.seek(self._positions[index])
            return pickle.load(self._reader)


class _FileReader(io.RawIOBase):
    """A file opened by path, reopened after a fork and after unpickling."""

    def __init__(self, path):
        super().__init__()
        self._path = path
        self._open()

    def _open(self):
        self._fp = open(self._path, 'rb')

    def after_fork(self):
        self._fp.close()
        self._open()

    def __getstate__(self):
        state = self.__dict__.copy()
        del state['_fp']
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._open()

    def close(self):
        self._fp.close()
        super().close()

    def fileno(self):
        return self._fp.fileno()

    def readable(self):
        return True

    def seekable(self):
        return self._fp.seekable()

    def seek(self, offset, whence=io.SEEK_SET):
        return self._fp.seek(offset, whence)

    def tell(self):
        return self._fp.tell()

    def readinto(self, b):
        return self._fp.readinto(b)


def open_pickle_dataset(path):
    """A PickleDataset reading the file at ``path``."""
    return PickleDataset(_FileReader(path))


def open_pickle_dataset_writer(path, protocol=pickle.HIGHEST_PROTOCOL):
    """A PickleDatasetWriter writing a new file at ``path``."""
    return PickleDatasetWriter(open(path, 'wb'), protocol=protocol)
