"""rensa.distributed.datasets (chainermn.datasets): scatter_dataset, scatter_index,
create_empty_dataset, DataSizeError."""
from rensa.distributed.datasets.empty_dataset import create_empty_dataset  # noqa: F401
from rensa.distributed.datasets.scatter import DataSizeError  # noqa: F401
from rensa.distributed.datasets.scatter import scatter_dataset  # noqa: F401
from rensa.distributed.datasets.scatter import scatter_index  # noqa: F401

__all__ = ['DataSizeError', 'create_empty_dataset', 'scatter_dataset', 'scatter_index']
