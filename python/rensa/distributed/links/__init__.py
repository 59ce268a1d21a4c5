"""rensa.distributed.links (chainermn.links): MultiNodeChainList, MultiNodeBatchNormalization."""
from rensa._distributed.links import MultiNodeBatchNormalization  # noqa: F401
from rensa._distributed.links import MultiNodeChainList  # noqa: F401

__all__ = ['MultiNodeChainList', 'MultiNodeBatchNormalization']
