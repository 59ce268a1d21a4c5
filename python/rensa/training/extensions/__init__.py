"""rensa.training.extensions (chainer.training.extensions)."""
from rensa._core.training.extensions import (  # noqa: F401
    DumpGraph, ExponentialShift, FailOnNonNumber, InverseShift, LinearShift,
    LogReport, MicroAverage, MultistepShift, ParameterStatistics, PolynomialShift,
    PrintReport, ProgressBar, StepShift, WarmupShift, dump_graph, observe_lr,
    observe_value, snapshot, snapshot_object)
from rensa.training.extensions._evaluator import Evaluator  # noqa: F401
from rensa.training.extensions._plot_report import PlotReport  # noqa: F401

__all__ = ['DumpGraph', 'Evaluator', 'ExponentialShift', 'FailOnNonNumber',
           'InverseShift', 'LinearShift', 'LogReport', 'MicroAverage', 'MultistepShift',
           'ParameterStatistics', 'PlotReport', 'PolynomialShift', 'PrintReport',
           'ProgressBar', 'StepShift', 'WarmupShift', 'dump_graph', 'observe_lr',
           'observe_value', 'snapshot', 'snapshot_object']
