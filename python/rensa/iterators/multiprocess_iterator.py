"""chainer.iterators.MultiprocessIterator: SerialIterator's batches, fetched by worker processes.

The order comes from the same state machine and order sampler as SerialIterator's
(rensa.iterators._statemachine), so a seed gives SerialIterator's batches. Up to
``n_prefetch`` batches are fetched ahead by a pool of ``n_processes`` forked workers, each
calling ``dataset[i]`` and returning the arrays through shared memory (See Note [Examples
through shared memory]). Serialization saves and loads SerialIterator's entries.
"""
import collections
import multiprocessing
import signal
import warnings

import numpy

from rensa import _forked
from rensa.dataset.iterator import Iterator
from rensa.iterators import _shared_memory
from rensa.iterators import _statemachine

__all__ = ['MultiprocessIterator']

_worker = {}


def _setup_worker(dataset, memory):
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process handles Ctrl-C
    _forked.single_threaded_after_fork()  # See Note [OpenMP after fork]
    _worker['dataset'] = dataset
    _worker['memory'] = memory


def _fetch(task):
    offset, size, index = task
    return _shared_memory.pack(_worker['dataset'][index], _worker['memory'], offset, size)


_Pending = collections.namedtuple('_Pending', 'state sampler_state indices result slot')


class MultiprocessIterator(Iterator):
    """Chainer's signature. ``shared_mem``: bytes of shared memory per example (None: measured
    on the first batch, which the main process fetches itself); ``dataset_timeout``: seconds
    after which a slow batch warns with TimeoutWarning (it is still waited for)."""

    class TimeoutWarning(RuntimeWarning):
        """Warned when a batch takes longer than ``dataset_timeout`` seconds to arrive."""

    _finalized = False
    _pool = None
    _name = 'MultiprocessIterator'  # in error messages

    def __init__(self, dataset, batch_size, repeat=True, shuffle=None, n_processes=None, n_prefetch=1,
                 shared_mem=None, order_sampler=None, dataset_timeout=30.0, maxtasksperchild=None):
        from rensa.iterators import ShuffleOrderSampler
        if batch_size < 1:
            raise ValueError(self._name + ': Expect: batch_size >= 1, Actual: %r' % (batch_size,))
        if repeat and len(dataset) == 0:
            raise ValueError(self._name + ': the dataset is empty; an iterator that repeats needs at least '
                             'one example')
        if shuffle is not None and order_sampler is not None:
            raise ValueError(self._name + ': shuffle is not None and a custom order_sampler is set; give '
                             'only one of them')
        if n_processes is not None and n_processes < 1:
            raise ValueError(self._name + ': Expect: n_processes >= 1, Actual: %r' % (n_processes,))
        if shared_mem is not None and shared_mem < 0:
            raise ValueError(self._name + ': Expect: shared_mem >= 0, Actual: %r' % (shared_mem,))
        if order_sampler is None and (shuffle is None or shuffle):
            order_sampler = ShuffleOrderSampler()  # as SerialIterator: a seed from the global generator
        self.dataset = dataset
        self.batch_size = batch_size
        self.repeat = repeat
        self.shuffle = shuffle
        self.n_processes = n_processes or multiprocessing.cpu_count()
        self.n_prefetch = max(n_prefetch, 1)
        self.shared_mem = shared_mem
        self.dataset_timeout = dataset_timeout
        self.order_sampler = order_sampler
        self._maxtasksperchild = maxtasksperchild
        self._memory = None
        self._mem_size = shared_mem
        self._pending = collections.deque()
        self._next_slot = 0
        self.reset()

    # --- the state the user sees (that of the last batch returned) ---
    @property
    def current_position(self):
        """The position after the last batch returned, in the current epoch's order."""
        return self._state.current_position

    @property
    def epoch(self):
        """The number of epochs completed by the batches returned."""
        return self._state.epoch

    @property
    def is_new_epoch(self):
        """Whether the last batch returned finished an epoch."""
        return self._state.is_new_epoch

    @property
    def epoch_detail(self):
        """The epoch as a float: ``epoch + current_position / len(dataset)``."""
        n = _statemachine.epoch_size(self._state, len(self.dataset))
        return float(self.epoch) if n == 0 else self.epoch + self.current_position / n

    @property
    def previous_epoch_detail(self):
        """``epoch_detail`` before the last batch, or None before the first."""
        return None if self._previous_epoch_detail < 0 else self._previous_epoch_detail

    # --- iteration ---
    def __next__(self):
        """The next batch, a list of examples fetched by the worker processes (the first batch is
        fetched by this process when ``shared_mem`` is None, to measure the example size).
        StopIteration when an iterator that does not repeat is exhausted; RuntimeError after
        ``finalize``."""
        if self._finalized:
            raise RuntimeError(self._name + ': the iterator is finalized')
        if self._pool is None:
            measured = self._start()
            if measured is not None:
                return self._commit(measured, None)
        if not self._pending:
            self._submit()
        pending = self._pending.popleft()
        while len(self._pending) < self.n_prefetch:
            self._submit()
        return self._commit(pending, self._wait(pending))

    next = __next__

    def _commit(self, pending, examples):
        self._previous_epoch_detail = self.epoch_detail
        self._state = pending.state
        self._sampler_state = pending.sampler_state
        if not pending.indices:
            raise StopIteration
        if examples is None:
            return pending.result  # fetched by the main process
        return [_shared_memory.unpack(e, self._memory) for e in examples]

    def _step(self):
        state, indices = _statemachine.advance(self._ahead, self.batch_size, self.repeat, self.order_sampler,
                                               len(self.dataset), self._name)
        sampler_state = self._ahead_sampler_state
        if state.is_new_epoch and state.order is not None and indices is not None:
            sampler_state = self._sampler_snapshot()  # the sampler drew a new order
        self._ahead, self._ahead_sampler_state = state, sampler_state
        return state, sampler_state, indices

    def _start(self):
        """Starts the workers; with shared_mem None, first fetches one batch here to measure
        the memory an example needs, and returns it (a _Pending holding the examples)."""
        measured = None
        if self._mem_size is None:
            state, sampler_state, indices = self._step()
            examples = [self.dataset[i] for i in indices] if indices else []
            self._mem_size = max([_shared_memory.example_bytes(e) for e in examples] + [0])
            measured = _Pending(state, sampler_state, indices, examples, None)
        n_slots = self.n_prefetch + 1
        if self._mem_size > 0:
            self._memory = multiprocessing.RawArray('b', n_slots * self.batch_size * self._mem_size)
        context = multiprocessing.get_context('fork')  # the dataset and memory are inherited, not pickled
        self._pool = context.Pool(self.n_processes, initializer=_setup_worker, initargs=(self.dataset, self._memory),
                                  maxtasksperchild=self._maxtasksperchild)
        return measured

    def _submit(self):
        state, sampler_state, indices = self._step()
        if not indices:
            self._pending.append(_Pending(state, sampler_state, indices, None, None))
            return
        slot = self._next_slot
        self._next_slot = (slot + 1) % (self.n_prefetch + 1)
        size = self._mem_size
        base = slot * self.batch_size * size
        tasks = [(base + k * size, size, index) for k, index in enumerate(indices)]
        self._pending.append(_Pending(state, sampler_state, indices, self._pool.map_async(_fetch, tasks), slot))

    def _wait(self, pending):
        if pending.result is None:
            return None
        while True:
            try:
                return pending.result.get(timeout=self.dataset_timeout)
            except multiprocessing.TimeoutError:
                warnings.warn('MultiprocessIterator: a batch took longer than dataset_timeout = %s s; still '
                              'waiting (a slow dataset, or a worker that died)' % self.dataset_timeout,
                              MultiprocessIterator.TimeoutWarning)

    def _drain(self):
        # Workers may still write into the slots of batches fetched ahead: wait them out.
        while self._pending:
            pending = self._pending.popleft()
            if pending.result is not None:
                try:
                    pending.result.wait()
                except Exception:  # noqa: BLE001 (a batch dropped unread; its error is moot)
                    pass

    def _sampler_snapshot(self):
        if not hasattr(self.order_sampler, 'serialize'):
            return None
        from rensa import serializers
        saver = serializers.DictionarySerializer()
        self.order_sampler.serialize(saver)
        return dict(saver.target)

    def _set_state(self, state, previous_epoch_detail):
        self._drain()
        self._state = self._ahead = state
        self._sampler_state = self._ahead_sampler_state = self._sampler_snapshot()
        self._previous_epoch_detail = previous_epoch_detail

    def reset(self):
        """Epoch 0, position 0; with a sampler, a new order drawn from it."""
        if self._finalized:
            raise RuntimeError(self._name + ': the iterator is finalized')
        order = None
        if self.order_sampler is not None:
            order = numpy.asarray(self.order_sampler(numpy.arange(len(self.dataset)), 0), dtype=numpy.int64)
        self._set_state(_statemachine.IteratorState(0, 0, False, order), -1.)

    def finalize(self):
        """Stops the workers; the iterator cannot be used afterwards."""
        if self._finalized:
            return
        self._finalized = True
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None
        self._pending.clear()

    def __del__(self):
        try:
            self.finalize()
        except Exception:  # noqa: BLE001 (interpreter shutdown)
            pass

    def __copy__(self):
        other = MultiprocessIterator(self.dataset, self.batch_size, self.repeat, shuffle=None,
                                     n_processes=self.n_processes, n_prefetch=self.n_prefetch,
                                     shared_mem=self.shared_mem, order_sampler=self.order_sampler,
                                     dataset_timeout=self.dataset_timeout)
        other._set_state(self._state, self._previous_epoch_detail)
        return other

    # --- serialization: SerialIterator's entries ---
    def serialize(self, serializer):
        """Saves or loads the iterator's state through ``serializer`` with SerialIterator's entries
        (``current_position``, ``epoch``, ``is_new_epoch``, ``order``, ``previous_epoch_detail`` and
        the order sampler's state). A loaded position or epoch out of range raises ValueError."""
        if not serializer.is_loading:
            return self._save(serializer)
        position = int(serializer('current_position', self.current_position))
        epoch = int(serializer('epoch', self.epoch))
        is_new_epoch = bool(serializer('is_new_epoch', self.is_new_epoch))
        order = self._state.order
        if order is not None:
            order = self._load_order(serializer, order)
        previous = float(serializer('previous_epoch_detail', self._previous_epoch_detail))
        state = _statemachine.IteratorState(position, epoch, is_new_epoch, order)
        n = _statemachine.epoch_size(state, len(self.dataset))
        if epoch < 0 or not 0 <= position <= n:
            raise ValueError(self._name + ': loaded epoch %d, current_position %d; expected epoch >= 0 and '
                             'a position in [0, %d] (the epoch size)' % (epoch, position, n))
        if hasattr(self.order_sampler, 'serialize'):
            self.order_sampler.serialize(serializer['order_sampler'])
        self._set_state(state, previous)

    def _load_order(self, serializer, current):
        try:
            loaded = serializer('order', None)
        except KeyError:
            loaded = serializer('_order', None)  # Chainer's older key
        if loaded is None:
            return current
        loaded = numpy.asarray(loaded).astype(numpy.int64)
        if loaded.shape != current.shape or not numpy.array_equal(numpy.sort(loaded), numpy.arange(len(current))):
            raise ValueError(self._name + ': the loaded order (shape %s) is not a permutation of the %d '
                             'examples' % (loaded.shape, len(current)))
        return loaded

    def _save(self, serializer):
        serializer('current_position', int(self.current_position))
        serializer('epoch', int(self.epoch))
        serializer('is_new_epoch', bool(self.is_new_epoch))
        if self._state.order is not None:
            serializer('order', numpy.array(self._state.order, dtype=numpy.int64))
        serializer('previous_epoch_detail', float(self._previous_epoch_detail))
        if self._sampler_state is not None:  # the sampler as it was at this batch, not ahead
            sub = serializer['order_sampler']
            for key, value in self._sampler_state.items():
                sub(key, value)
