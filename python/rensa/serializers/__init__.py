"""rensa.serializers: chainer.serializers' save_npz / load_npz and their serializers.

Any object with ``serialize(serializer)`` can be saved and loaded: rensa's Links,
Optimizers and Trainers (walked in C++) and Python objects using Chainer's protocol
(``x = serializer('key', x)``, ``child.serialize(serializer['child'])``). Files are numpy
``.npz`` archives with Chainer's keys (``predictor/l1/W``).
"""
_NAMES = ['save_npz', 'load_npz', 'DictionarySerializer', 'NpzDeserializer']
try:
    from rensa._core import serializers as _impl
    from rensa._core.serializers import Serializer  # noqa: F401
    globals().update({name: getattr(_impl, name) for name in _NAMES})
    __all__ = list(_NAMES)
except ImportError:  # a development build without the serializers bind files
    __all__ = []
