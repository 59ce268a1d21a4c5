"""rensa.links (chainer.links, usually imported as L).

The links are C++ classes (rensa._core.links) with Chainer's constructor signatures,
keyword names and attributes; calling one goes straight to its C++ forward.
"""
from rensa._core import links as _links
from rensa._core.links import *  # noqa: F401,F403

__all__ = [name for name in dir(_links) if not name.startswith('_')]
