"""What a process forked from a rensa program does first.

See Note [OpenMP after fork].
"""
import ctypes
import ctypes.util

# Note [OpenMP after fork]: the native backend's loops (and OpenBLAS, oneDNN) run on GNU
# OpenMP, whose thread pool does not survive fork(): a forked child that enters a parallel
# region may wait forever for threads that exist only in its parent. The workers of
# MultiprocessIterator and MultiprocessParallelUpdater are forked (so the dataset and the
# model are inherited, not pickled), and each first sets its OpenMP thread count to one: its
# parallel helpers then never start a team (core/native/parallel.h), and the parallelism is
# the processes'.

__all__ = ['single_threaded_after_fork']


def single_threaded_after_fork():
    """Makes OpenMP run on one thread in this (forked) process; a no-op without libgomp."""
    for name in ('libgomp.so.1', ctypes.util.find_library('gomp')):
        if not name:
            continue
        try:
            ctypes.CDLL(name).omp_set_num_threads(1)
            return
        except (OSError, AttributeError):
            continue
