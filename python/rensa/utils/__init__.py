"""chainer.utils: helpers for code written against Chainer's API (argument parsing,
type checks)."""
from rensa.utils import argument  # noqa: F401
from rensa.utils import type_check  # noqa: F401
