"""chainermn.extensions.GenericMultiNodeEvaluator: an evaluation whose results are not means.

Each rank runs ``calc_local`` on the batches of its own (non-repeating) iterator; root
gathers every result and hands the list to ``aggregate`` once. Ranks may hold different
numbers of batches: each round every rank sends its next result (None once it ran out), and
every ``gather_interval`` rounds root tells the ranks whether the last round was empty.
"""
import copy

from rensa import backend
from rensa import dataset
from rensa import function_node
from rensa.training import extension


class GenericMultiNodeEvaluator(extension.Extension):
    """Override ``calc_local(*in_arrays)`` (default: ``target(*in_arrays)``; must not return
    None) and ``aggregate(results)`` (default: the list itself; runs on root only, once per
    call; report from here). ``__call__`` returns aggregate's value on root, None elsewhere.
    Collective: every rank calls it together. ``progress_hook(batch)`` runs on root."""

    trigger = 1, 'epoch'
    default_name = 'validation'
    priority = extension.PRIORITY_WRITER
    name = None
    gather_interval = 8

    def __init__(self, comm, iterator, target, device=None, converter=dataset.concat_examples, root=0, *,
                 progress_hook=None):
        if not 0 <= root < comm.size:
            raise ValueError('GenericMultiNodeEvaluator: Expect: 0 <= root < comm.size = %d, Actual: root = %d'
                             % (comm.size, root))
        self.comm = comm
        self.iterator = iterator
        self._targets = {'main': target}
        self.converter = converter
        self.device = None if device is None else backend.get_device(device)
        self.root = root
        self._progress_hook = progress_hook

    def __call__(self, trainer=None):
        if hasattr(self.iterator, 'reset'):
            self.iterator.reset()
            it = self.iterator
        else:
            it = copy.copy(self.iterator)
        results = self._evaluate_local(it)
        if self.comm.rank == self.root:
            return self.aggregate(list(results))
        for _ in results:
            pass
        return None

    def calc_local(self, *args, **kwargs):
        """This rank's result for one converted batch (not None)."""
        return self._targets['main'](*args, **kwargs)

    def aggregate(self, results):
        """Root's summary of every rank's results (a list, in the order gathered)."""
        return results

    def _calc(self, batch):
        in_arrays = self.converter(batch, self.device)
        with function_node.no_backprop_mode():
            if isinstance(in_arrays, tuple):
                return self.calc_local(*in_arrays)
            if isinstance(in_arrays, dict):
                return self.calc_local(**in_arrays)
            return self.calc_local(in_arrays)

    def _evaluate_local(self, iterator):
        """Yields, on root, every rank's results; each round is one gather (collective)."""
        all_done = False
        while not all_done:
            for _ in range(self.gather_interval):
                try:
                    batch = next(iterator)
                except StopIteration:
                    result = None
                else:
                    result = self._calc(batch)
                    if self.comm.rank == self.root and self._progress_hook:
                        self._progress_hook(batch)
                gathered = self.comm.gather_obj(result, root=self.root)
                if self.comm.rank == self.root:
                    valid = [r for r in gathered if r is not None]
                    for r in valid:
                        yield r
                    all_done = not valid
            all_done = self.comm.bcast_obj(all_done, root=self.root)
