"""rensa.distributed.iterators (chainermn.iterators): create_multi_node_iterator,
create_synchronized_iterator."""
from rensa.distributed.iterators.multi_node_iterator import create_multi_node_iterator  # noqa: F401
from rensa.distributed.iterators.synchronized_iterator import create_synchronized_iterator  # noqa: F401

__all__ = ['create_multi_node_iterator', 'create_synchronized_iterator']
