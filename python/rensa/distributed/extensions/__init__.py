"""rensa.distributed.extensions (chainermn.extensions)."""
from rensa._distributed import AllreducePersistent  # noqa: F401
from rensa._distributed import MultiNodeEarlyStoppingTrigger  # noqa: F401
from rensa._distributed import allreduce_persistent  # noqa: F401
from rensa._distributed import create_multi_node_checkpointer  # noqa: F401
from rensa._distributed import create_multi_node_evaluator  # noqa: F401
from rensa.distributed.extensions.generic_multi_node_evaluator import GenericMultiNodeEvaluator  # noqa: F401
from rensa.distributed.extensions.multi_node_snapshot import multi_node_snapshot  # noqa: F401
from rensa.distributed.extensions.observation_aggregator import ObservationAggregator  # noqa: F401

__all__ = ['AllreducePersistent', 'GenericMultiNodeEvaluator', 'MultiNodeEarlyStoppingTrigger', 'ObservationAggregator',
           'allreduce_persistent', 'create_multi_node_checkpointer', 'create_multi_node_evaluator',
           'multi_node_snapshot']
