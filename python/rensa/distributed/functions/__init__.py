"""rensa.distributed.functions (chainermn.functions): differentiable point to point.

``send`` returns a delegate variable; ``recv`` takes it so one ``backward()`` runs the
whole exchange in reverse; ``pseudo_connect`` ties a delegate to an output.
"""
from rensa._distributed.functions import pseudo_connect  # noqa: F401
from rensa._distributed.functions import recv  # noqa: F401
from rensa._distributed.functions import send  # noqa: F401

__all__ = ['send', 'recv', 'pseudo_connect']
