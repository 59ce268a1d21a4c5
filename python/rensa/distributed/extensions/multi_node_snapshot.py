"""chainermn.extensions.multi_node_snapshot: one snapshot per replica set.

The ranks are split into replica sets (ranks that hold the same state, as every rank does in
data-parallel training); the smallest rank of each set, its master, writes the snapshots,
named as the wrapped snapshot's with ``.<rank>`` appended. With ``autoload``, each master
loads its newest snapshot and sends that state to the other ranks of its set, which load it.
"""
import glob
import os
import re
import tempfile

from rensa import serializers
from rensa.training import extension
from rensa.training import extensions

__all__ = ['multi_node_snapshot']


def _replica_sets(replica_sets, size):
    """chainermn's parsing: ints and iterables of ranks; the ranks not named form one more set.
    ValueError for a rank outside the communicator or one named twice."""
    sets = []
    for replica_set in replica_sets:
        ranks = {replica_set} if isinstance(replica_set, int) else set(replica_set)
        for rank in ranks:
            if not isinstance(rank, int) or not 0 <= rank < size:
                raise ValueError('multi_node_snapshot: replica set {!r} names rank {!r}; the communicator has ranks '
                                 '0 to {}'.format(replica_set, rank, size - 1))
        sets.append(ranks)
    named = set().union(*sets) if sets else set()
    if sum(len(s) for s in sets) != len(named):
        raise ValueError('multi_node_snapshot: a rank is in more than one replica set: {!r}'.format(replica_sets))
    rest = set(range(size)) - named
    if rest:
        sets.append(rest)
    return sets


def _latest_file(template, out):
    """The newest file in ``out`` the filename template makes (its fields match anything)."""
    pattern = re.sub(r'\{[^}]*\}', '*', template)
    files = [f for f in glob.glob(os.path.join(out, pattern)) if os.path.isfile(f)]
    return max(files, key=os.path.getmtime) if files else None


class _MultiNodeSnapshot(extension.Extension):
    trigger = 1, 'epoch'  # snapshot's default
    priority = -100  # snapshot's: after every other extension of the iteration

    def __init__(self, comm, snapshot, replica_sets):
        super(_MultiNodeSnapshot, self).__init__()
        entry = extensions._snapshot_calls.get(id(snapshot))
        if entry is None or entry[0] is not snapshot:
            raise TypeError('multi_node_snapshot: expected a snapshot made by rensa.training.extensions.snapshot or '
                            'snapshot_object, got {}'.format(type(snapshot).__name__))
        call = dict(entry[1])
        if not isinstance(call['filename'], str):
            raise TypeError('multi_node_snapshot: the snapshot\'s filename must be a template string, got {}'.format(
                type(call['filename']).__name__))
        self.comm = comm
        self._autoload = bool(call.get('autoload', False))
        self._target = call.get('target')
        call['filename'] = '{}.{}'.format(call['filename'], comm.rank)
        self._filename = call['filename']
        target = call.pop('target', None)
        if target is None:
            self.snapshot = extensions.snapshot(**call)
        else:
            self.snapshot = extensions.snapshot_object(target, **call)
        for replica_set in _replica_sets(replica_sets, comm.size):
            if comm.rank in replica_set:
                self.replica_set = replica_set
                self.master = min(replica_set)

    @property
    def is_master(self):
        return self.master == self.comm.rank

    @property
    def default_name(self):
        return 'multi_node_snapshot'

    def initialize(self, trainer):
        if self.is_master:
            self.snapshot.initialize(trainer)
        if not self._autoload:
            return
        target = trainer if self._target is None else self._target
        if self.is_master:
            data = None
            if _latest_file(self._filename, trainer.out) is not None:
                with tempfile.TemporaryDirectory() as tmp:
                    path = os.path.join(tmp, 'state.npz')
                    serializers.save_npz(path, target)
                    with open(path, 'rb') as f:
                        data = f.read()
            for rank in sorted(self.replica_set - {self.comm.rank}):
                self.comm.send_obj(data, rank)
        else:
            data = self.comm.recv_obj(self.master)
            if data is None:
                return
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, 'state.npz')
                with open(path, 'wb') as f:
                    f.write(data)
                serializers.load_npz(path, target)

    def __call__(self, trainer):
        if self.is_master:
            self.snapshot(trainer)

    def on_error(self, trainer, exc, tb):
        if self.is_master:
            self.snapshot.on_error(trainer, exc, tb)

    def finalize(self):
        if self.is_master:
            self.snapshot.finalize()


def multi_node_snapshot(comm, snapshot, replica_sets):
    """chainermn.extensions.multi_node_snapshot(comm, snapshot, replica_sets)."""
    return _MultiNodeSnapshot(comm, snapshot, replica_sets)
