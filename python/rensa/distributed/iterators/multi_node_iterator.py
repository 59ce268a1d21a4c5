"""chainermn.iterators.create_multi_node_iterator: the master rank's batches on every rank.

Each ``next`` is one ``bcast_obj`` from the master: its batch (pickled, so any example type
travels unchanged, where chainermn sends float32 arrays) with its counters (epoch,
current_position, is_new_epoch, epoch_detail, previous_epoch_detail), or the end of the
iteration. Every rank calls ``next`` the same number of times.
"""
from rensa.dataset.iterator import Iterator


class _MultiNodeIteratorMaster(Iterator):
    """The master rank: the actual iterator's batches, each broadcast to the others."""

    def __init__(self, actual_iterator, communicator, rank_master):
        Iterator.__init__(self)
        self.__dict__.update(actual_iterator=actual_iterator, communicator=communicator,
                             rank_master=rank_master)
        communicator.bcast_obj(len(actual_iterator.dataset), root=rank_master)

    def __next__(self):
        try:
            batch = next(self.actual_iterator)
        except StopIteration:
            self.communicator.bcast_obj(None, root=self.rank_master)
            raise
        it = self.actual_iterator
        state = (it.epoch, it.current_position, it.is_new_epoch, it.epoch_detail,
                 getattr(it, 'previous_epoch_detail', None))
        self.communicator.bcast_obj((batch, state), root=self.rank_master)
        return batch

    next = __next__

    def __getattr__(self, name):
        actual = self.__dict__.get('actual_iterator')
        if actual is None:
            raise AttributeError(name)
        return getattr(actual, name)

    def __setattr__(self, name, value):
        setattr(self.actual_iterator, name, value)

    @property
    def epoch(self):
        return self.actual_iterator.epoch

    @property
    def epoch_detail(self):
        return self.actual_iterator.epoch_detail

    @property
    def previous_epoch_detail(self):
        return getattr(self.actual_iterator, 'previous_epoch_detail', None)

    @property
    def is_new_epoch(self):
        return self.actual_iterator.is_new_epoch

    @property
    def current_position(self):
        return self.actual_iterator.current_position

    @property
    def batch_size(self):
        return self.actual_iterator.batch_size

    def reset(self):
        self.actual_iterator.reset()

    def serialize(self, serializer):
        self.actual_iterator.serialize(serializer)


class _MultiNodeIteratorSlave(Iterator):
    """Another rank: receives the master's batches and counters."""

    def __init__(self, communicator, rank_master):
        Iterator.__init__(self)
        self.communicator = communicator
        self.rank_master = rank_master
        self.dataset_size = communicator.bcast_obj(None, root=rank_master)
        self.epoch = 0
        self.current_position = 0
        self.is_new_epoch = False
        self.epoch_detail = 0.
        self.previous_epoch_detail = None

    def __next__(self):
        message = self.communicator.bcast_obj(None, root=self.rank_master)
        if message is None:
            raise StopIteration
        batch, state = message
        (self.epoch, self.current_position, self.is_new_epoch, self.epoch_detail,
         self.previous_epoch_detail) = state
        return batch

    next = __next__

    def reset(self):
        raise NotImplementedError('multi-node iterator: reset the master rank\'s iterator (rank %d); the other '
                                  'ranks follow its batches' % self.rank_master)

    def serialize(self, serializer):
        # Only the counters: the next batch brings the master's anyway.
        self.epoch = int(serializer('epoch', self.epoch))
        self.current_position = int(serializer('current_position', self.current_position))
        self.is_new_epoch = bool(serializer('is_new_epoch', self.is_new_epoch))


def create_multi_node_iterator(actual_iterator, communicator, rank_master=0):
    """chainermn.iterators.create_multi_node_iterator: on ``rank_master`` a wrapper of
    ``actual_iterator`` broadcasting each batch, elsewhere an iterator receiving them (the
    other ranks' ``actual_iterator`` is not used). Collective: every rank calls it, and then
    ``next``, together."""
    if not 0 <= rank_master < communicator.size:
        raise ValueError('create_multi_node_iterator: rank_master=%d is not a rank of a communicator of size %d'
                         % (rank_master, communicator.size))
    if communicator.rank == rank_master:
        if actual_iterator is None:
            raise ValueError('create_multi_node_iterator: the master rank %d passed no iterator' % rank_master)
        return _MultiNodeIteratorMaster(actual_iterator, communicator, rank_master)
    return _MultiNodeIteratorSlave(communicator, rank_master)
