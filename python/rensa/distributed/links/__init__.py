"""rensa.distributed.links (chainermn.links): MultiNodeChainList, MultiNodeBatchNormalization,
create_mnbn_model, create_multi_node_n_step_rnn."""
from rensa._distributed.links import MultiNodeBatchNormalization  # noqa: F401
from rensa._distributed.links import MultiNodeChainList  # noqa: F401
from rensa.distributed.links.create_mnbn_model import create_mnbn_model  # noqa: F401
from rensa.distributed.links.n_step_rnn import create_multi_node_n_step_rnn  # noqa: F401

__all__ = ['MultiNodeBatchNormalization', 'MultiNodeChainList', 'create_mnbn_model', 'create_multi_node_n_step_rnn']
