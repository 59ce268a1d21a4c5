"""chainermn.datasets.scatter_dataset and scatter_index over rensa's communicators."""
import numpy

from rensa import _distributed as _d
from rensa._distributed import scatter_index  # noqa: F401


class DataSizeError(RuntimeError):
    """chainermn's error for a dataset too large for one message. rensa splits large
    messages into chunks (payloads over 2 GiB work), so scatter_dataset does not raise it;
    the class is here for scripts that name it in an ``except`` clause."""


class _SubList(object):
    """The examples of one rank's shard of a Python dataset (chainermn's SubDataset)."""

    def __init__(self, examples):
        self._examples = examples

    def __len__(self):
        return len(self._examples)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._examples[i] for i in range(*index.indices(len(self)))]
        return self._examples[index]

    def __iter__(self):
        return iter(self._examples)


def scatter_dataset(dataset, comm, root=0, shuffle=False, seed=None, max_buf_len=256 * 1024 * 1024, *,
                    force_equal_length=True):
    """chainermn.scatter_dataset: this rank's shard of root's dataset (collective).

    C++ datasets (TupleDataset, get_mnist's, DatasetMixin subclasses) take the C++ path: a
    view when every rank holds the data, otherwise stacked arrays sent from root. Other
    sequences (lists, ...) are pickled from root, one message per rank. The other ranks may
    pass None. With ``force_equal_length`` every shard has ceil(n / size) examples.
    ``max_buf_len`` is accepted for chainermn's signature; messages are chunked anyway.
    """
    del max_buf_len
    if not 0 <= root < comm.size:
        raise ValueError('scatter_dataset: root=%d is not a rank of a communicator of size %d' % (root, comm.size))
    native = comm.bcast_obj(_d._is_native_dataset(dataset) if comm.rank == root else None, root=root)
    if comm.rank == root and dataset is None:
        raise ValueError('scatter_dataset: the root rank %d passed no dataset' % root)
    if native:
        if seed is None:
            seed = int(numpy.random.randint(0, 2 ** 31)) if comm.rank == root else 0
        mine = dataset if dataset is not None and _d._is_native_dataset(dataset) else None
        return _d._scatter_dataset(mine, comm, root, shuffle, int(seed), force_equal_length)
    if comm.rank != root:
        return _SubList(comm.recv_obj(root))
    n = len(dataset)
    order = numpy.random.RandomState(seed).permutation(n) if shuffle else numpy.arange(n)
    own = None
    for rank in range(comm.size):
        begin, end = _d._shard_range(n, comm.size, rank, force_equal_length)
        examples = [dataset[int(i)] for i in order[begin:end]]
        if rank == root:
            own = examples
        else:
            comm.send_obj(examples, rank)
    return _SubList(own)
