"""chainer.datasets.TextDataset: the lines of text files, read on each access.

One file gives lines (str, newline kept); several files of the same length give tuples of
their i-th lines. ``filter_func(*lines)`` keeps only the lines it accepts. Line starts are
found once; each access seeks to them.
"""
import io
import threading

from rensa.dataset.dataset_mixin import DatasetMixin

__all__ = ['TextDataset']


def _per_file(value, n):
    return [value] * n if value is None or isinstance(value, str) else list(value)


class TextDataset(DatasetMixin):
    """The lines of one or more text files (chainer.datasets.TextDataset).

    One file gives its lines (str, newline kept); several files of the same number of lines give
    tuples of their i-th lines (ValueError when the lengths differ).

    Args:
        paths: a path, or a list of paths.
        encoding: the encoding of the files, or a list with one per file (as ``io.open``).
        errors: ``io.open``'s ``errors``, one value or one per file.
        newline: ``io.open``'s ``newline``, one value or one per file.
        filter_func: ``filter_func(*lines)`` returning True for the lines to keep (None keeps all).
    """

    def __init__(self, paths, encoding=None, errors=None, newline=None, filter_func=None):
        if isinstance(paths, str):
            paths = [paths]
        elif not paths:
            raise ValueError('TextDataset: Expect: at least one text file, Actual: none')
        n = len(paths)
        self._paths = list(paths)
        self._encoding = _per_file(encoding, n)
        self._errors = _per_file(errors, n)
        self._newline = _per_file(newline, n)
        if not len(self._encoding) == len(self._errors) == len(self._newline) == n:
            raise ValueError('TextDataset: Expect: encoding, errors and newline to give one value per file (%d), '
                             'Actual: %d, %d, %d' % (n, len(self._encoding), len(self._errors), len(self._newline)))
        self._open()
        self._bounds, self._lines = self._index(filter_func)
        self._lock = threading.Lock()

    def _index(self, filter_func):
        bounds = tuple([0] for _ in self._fps)
        lines = []
        count = 0
        while True:
            data = [fp.readline() for fp in self._fps]
            if not all(data):
                if any(data):
                    raise ValueError('TextDataset: Expect: files with the same number of lines, Actual: %s ends '
                                     'at line %d while the others go on'
                                     % (', '.join(p for p, d in zip(self._paths, data) if not d), count))
                break
            for k, fp in enumerate(self._fps):
                bounds[k].append(fp.tell())
            if filter_func is None or filter_func(*data):
                lines.append(count)
            count += 1
        return bounds, lines

    def _open(self):
        self._fps = [io.open(p, mode='rt', encoding=e, errors=r, newline=nl)
                     for p, e, r, nl in zip(self._paths, self._encoding, self._errors, self._newline)]

    def __getstate__(self):
        state = self.__dict__.copy()
        del state['_fps']
        del state['_lock']
        return state

    def __setstate__(self, state):
        self.__dict__ = state
        self._open()
        self._lock = threading.Lock()

    def __len__(self):
        return len(self._lines)

    def close(self):
        """Closes the files (the first error, if any, is raised after all were tried)."""
        error = None
        for fp in self._fps:
            try:
                fp.close()
            except Exception as e:  # noqa: BLE001 (closes the others first)
                error = error or e
        if error is not None:
            raise error

    def get_example(self, idx):
        """The ``idx``-th line kept (a str), or a tuple of the files' lines; IndexError out of range."""
        if idx < 0 or len(self._lines) <= idx:
            raise IndexError('TextDataset: index %d is out of range for a dataset of size %d'
                             % (idx, len(self._lines)))
        line = self._lines[idx]
        with self._lock:
            for k, fp in enumerate(self._fps):
                fp.seek(self._bounds[k][line])
            data = [fp.readline() for fp in self._fps]
        return data[0] if len(data) == 1 else tuple(data)
