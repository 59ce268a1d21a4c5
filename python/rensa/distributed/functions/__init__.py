"""rensa.distributed.functions (chainermn.functions): differentiable communication.

Point to point (C++): ``send`` returns a delegate variable; ``recv`` takes it so one
``backward()`` runs the whole exchange in reverse; ``pseudo_connect`` ties a delegate to an
output. Collectives: ``bcast``, ``gather``, ``scatter``, ``allgather``, ``alltoall``.
"""
from rensa.distributed.functions.pseudo_connect import pseudo_connect  # noqa: F401
from rensa._distributed.functions import recv  # noqa: F401
from rensa._distributed.functions import send  # noqa: F401
from rensa.distributed.functions.collective_communication import allgather  # noqa: F401
from rensa.distributed.functions.collective_communication import alltoall  # noqa: F401
from rensa.distributed.functions.collective_communication import bcast  # noqa: F401
from rensa.distributed.functions.collective_communication import gather  # noqa: F401
from rensa.distributed.functions.collective_communication import scatter  # noqa: F401

__all__ = ['allgather', 'alltoall', 'bcast', 'gather', 'scatter', 'send', 'recv', 'pseudo_connect']
