"""rensa.training.extensions (chainer.training.extensions)."""
from rensa._core.training import extensions as _extensions
from rensa._core.training.extensions import (  # noqa: F401
    DumpGraph, ExponentialShift, FailOnNonNumber, InverseShift, LinearShift,
    LogReport, MicroAverage, MultistepShift, ParameterStatistics, PolynomialShift,
    PrintReport, ProgressBar, StepShift, WarmupShift, dump_graph, observe_lr,
    observe_value)
from rensa.training.extensions._evaluator import Evaluator  # noqa: F401
from rensa.training.extensions._plot_report import PlotReport  # noqa: F401

# The calls that made the snapshot extensions, by id (the extension is kept with it): what
# chainermn's multi_node_snapshot rebuilds a snapshot from, with the rank in its file name.
# Snapshots are made a few times per process, so the table stays small.
_snapshot_calls = {}


def snapshot(savefun=None, filename='snapshot_iter_{.updater.iteration}', **kwargs):
    """chainer.training.extensions.snapshot (a C++ extension: see rensa._core)."""
    ext = _extensions.snapshot(savefun, filename, **kwargs)
    _snapshot_calls[id(ext)] = (ext, dict(kwargs, savefun=savefun, filename=filename))
    return ext


def snapshot_object(target, filename, savefun=None, **kwargs):
    """chainer.training.extensions.snapshot_object (a C++ extension: see rensa._core)."""
    ext = _extensions.snapshot_object(target, filename, savefun, **kwargs)
    _snapshot_calls[id(ext)] = (ext, dict(kwargs, savefun=savefun, filename=filename, target=target))
    return ext

__all__ = ['DumpGraph', 'Evaluator', 'ExponentialShift', 'FailOnNonNumber',
           'InverseShift', 'LinearShift', 'LogReport', 'MicroAverage', 'MultistepShift',
           'ParameterStatistics', 'PlotReport', 'PolynomialShift', 'PrintReport',
           'ProgressBar', 'StepShift', 'WarmupShift', 'dump_graph', 'observe_lr',
           'observe_value', 'snapshot', 'snapshot_object']
