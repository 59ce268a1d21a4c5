"""config, global_config, using_config (chainer.configuration).

``train``, ``enable_backprop``, ``debug`` and ``dtype`` live in rensa's native thread-local
Config (C++ functions and links read them); every other entry (``type_check``,
``use_cudnn``, ...) is kept here in Python, as Chainer keeps all of them.
"""
import contextlib
import os
import sys
import threading

import numpy

from rensa import _core

__all__ = ['config', 'global_config', 'using_config', 'GlobalConfig', 'LocalConfig', 'get_dtype', 'mixed16',
           'mixed_bf16']

_NATIVE = frozenset(_core._config_names) | {'dtype'}


def _native_get(key, is_global):
    if key == 'dtype':
        name, is_mixed16 = _core._config_get_dtype(is_global)
        if is_mixed16:
            return mixed_bf16 if name == 'bfloat16' else mixed16
        return mixed_bf16.dtype if name == 'bfloat16' else numpy.dtype(name)
    return _core._config_get(key, is_global)


def _mixed_kind(value):
    """'float16' for mixed16, 'bfloat16' for mixed_bf16 (objects or names), else None."""
    if value is mixed16 or (isinstance(value, str) and value == 'mixed16'):
        return 'float16'
    if value is mixed_bf16 or (isinstance(value, str) and value == 'mixed_bf16'):
        return 'bfloat16'
    return None


def _native_set(key, value, is_global):
    if key == 'dtype':
        half = _mixed_kind(value)
        if half is not None:
            name = half
        elif (isinstance(value, str) and value == 'bfloat16') or value is mixed_bf16.dtype:
            name = 'bfloat16'
        else:
            name = numpy.dtype(value).name
        _core._config_set_dtype(name, half is not None, is_global)
    else:
        _core._config_set(key, bool(value), is_global)


def _show(entries, file):
    width = max(len(k) for k in entries)
    for key in sorted(entries):
        file.write('{:<{}} {}\n'.format(key, width, entries[key]))


class GlobalConfig(object):
    """The defaults every thread's config starts from (chainer.global_config)."""

    def __init__(self, name='global'):
        object.__setattr__(self, 'name', name)

    def __getattr__(self, key):
        if key in _NATIVE:
            return _native_get(key, True)
        raise AttributeError('config has no entry "{}"'.format(key))

    def __setattr__(self, key, value):
        if key in _NATIVE:
            _native_set(key, value, True)
        else:
            object.__setattr__(self, key, value)

    def __delattr__(self, key):
        if key in _NATIVE:
            raise AttributeError('cannot delete the native entry "{}"'.format(key))
        object.__delattr__(self, key)

    def _entries(self):
        out = {key: getattr(self, key) for key in _NATIVE}
        out.update((k, v) for k, v in self.__dict__.items() if k != 'name')
        return out

    def show(self, file=sys.stdout):
        """Prints the entries, one per line, sorted by name."""
        _show(self._entries(), file)


class LocalConfig(object):
    """The calling thread's config; reads fall back to the global config (chainer.config)."""

    def __init__(self, common):
        object.__setattr__(self, '_common', common)
        object.__setattr__(self, '_local', threading.local())

    def __getattr__(self, key):
        if key in _NATIVE:
            return _native_get(key, False)
        local = self._local.__dict__
        if key in local:
            return local[key]
        return getattr(self._common, key)

    def __setattr__(self, key, value):
        if key in _NATIVE:
            _native_set(key, value, False)
        else:
            setattr(self._local, key, value)

    def __delattr__(self, key):
        if key in _NATIVE:
            raise AttributeError('cannot delete the native entry "{}"'.format(key))
        delattr(self._local, key)

    def _entries(self):
        out = self._common._entries()
        out.update((key, getattr(self, key)) for key in _NATIVE)
        out.update(self._local.__dict__)
        return out

    def show(self, file=sys.stdout):
        """Prints the entries, one per line, sorted by name."""
        _show(self._entries(), file)


global_config = GlobalConfig()
config = LocalConfig(global_config)

# Chainer's defaults for the entries rensa keeps in Python.
global_config.autotune = False
global_config.cudnn_deterministic = False
global_config.cudnn_fast_batch_normalization = False
global_config.in_recomputing = False
global_config.keep_graph_on_report = False
global_config.lazy_grad_sum = False
global_config.schedule_func = None
global_config.type_check = True
global_config.use_cudnn = 'auto'
global_config.use_cudnn_tensor_core = 'auto'
global_config.use_ideep = 'never'
global_config.use_static_graph = True
global_config.warn_nondeterministic = False



class _Mixed16(object):
    """chainer.mixed16: the dtype-like value of ``config.dtype`` for 16/32-bit mixed
    precision (parameters and activations in float16, some statistics in float32)."""

    dtype = numpy.dtype(numpy.float16)

    def __repr__(self):
        return "dtype('mixed16')"


mixed16 = _Mixed16()


def _bfloat16_dtype():
    """The 16-bit dtype of mixed_bf16 for numpy-facing code: ml_dtypes' bfloat16 when that
    package is installed, else the name 'bfloat16' (what rensa arrays report as their dtype)."""
    try:
        import ml_dtypes
    except ImportError:
        return 'bfloat16'
    return numpy.dtype(ml_dtypes.bfloat16)


class _MixedBF16(object):
    """rensa.mixed_bf16: the dtype-like value of ``config.dtype`` for bfloat16/float32 mixed
    precision (parameters and activations in bfloat16; normalisation parameters and
    statistics, and the optimizers' master weights, in float32). rensa's addition beside
    Chainer's mixed16; see Note [Mixed precision inputs] in links/mixed_precision.cc."""

    dtype = _bfloat16_dtype()

    def __repr__(self):
        return "dtype('mixed_bf16')"


mixed_bf16 = _MixedBF16()


def _dtype_from_environment():
    name = os.environ.get('CHAINER_DTYPE', 'float32')
    if name in ('float16', 'float32', 'float64'):
        return numpy.dtype(name)
    if name == 'mixed16':
        return mixed16
    if name == 'mixed_bf16':
        return mixed_bf16
    raise TypeError('incorrect dtype name in CHAINER_DTYPE: "{}". Only float16/32/64, mixed16 and mixed_bf16 '
                    'are allowed.'.format(name))


global_config.dtype = _dtype_from_environment()
# This thread's native config may predate the line above (it copies the global one once).
_native_set('dtype', global_config.dtype, False)


def get_dtype(dtype=None, map_mixed16=None):
    """Chainer's default dtype resolution (chainer.get_dtype): ``numpy.dtype(dtype)`` when
    ``dtype`` is given, else ``config.dtype``; when that is mixed16 or mixed_bf16,
    ``map_mixed16`` if given, else its 16-bit dtype (float16; for mixed_bf16 bfloat16: see
    _bfloat16_dtype)."""
    if dtype is None:
        dtype = config.dtype
    if (dtype is mixed16 or dtype is mixed_bf16) and map_mixed16 is not None:
        dtype = map_mixed16
    if dtype is mixed_bf16 or (isinstance(dtype, str) and dtype == 'bfloat16'):
        return mixed_bf16.dtype
    return numpy.dtype(dtype)


_MISSING = object()


@contextlib.contextmanager
def using_config(name, value, config=config):
    """Sets ``config.<name>`` to ``value`` inside the ``with`` block (chainer.using_config)."""
    if name in _NATIVE:
        old = _native_get(name, False)
        _native_set(name, value, False)
        try:
            yield
        finally:
            _native_set(name, old, False)
        return
    old = config._local.__dict__.get(name, _MISSING)
    setattr(config, name, value)
    try:
        yield
    finally:
        if old is _MISSING:
            delattr(config, name)
        else:
            setattr(config, name, old)
