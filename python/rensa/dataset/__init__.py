"""rensa.dataset: Chainer's chainer.dataset (Iterator, DatasetMixin, converters).

Examples and batches are Chainer's: an example is a tuple of arrays (or a dict), a batch
a list of examples; ``concat_examples`` stacks a batch into arrays. The functions and the
Iterator base are C++ (rensa._core.dataset), so C++ updaters and evaluators take them
without a Python call per batch.
"""
from rensa.dataset import convert  # noqa: F401
from rensa.dataset import download  # noqa: F401
from rensa.dataset import iterator  # noqa: F401
from rensa.dataset.convert import concat_examples  # noqa: F401
from rensa.dataset.convert import converter  # noqa: F401
from rensa.dataset.convert import Converter  # noqa: F401
from rensa.dataset.convert import to_device  # noqa: F401
from rensa.dataset.dataset_mixin import DatasetMixin  # noqa: F401
from rensa.dataset.download import get_dataset_directory  # noqa: F401
from rensa.dataset.download import get_dataset_root  # noqa: F401
from rensa.dataset.download import set_dataset_root  # noqa: F401
from rensa.dataset.iterator import Iterator  # noqa: F401

__all__ = ['concat_examples', 'converter', 'Converter', 'to_device', 'DatasetMixin',
           'Iterator', 'get_dataset_directory', 'get_dataset_root', 'set_dataset_root']
