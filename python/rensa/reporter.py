"""report, report_scope, Reporter, Summary, DictSummary (chainer.reporter).

Reporter and the report functions are rensa's native ones (the trainer's C++ loop
reads the same observations). Observation values are Variables, as in Chainer.
"""
from rensa import _core
from rensa._core import Reporter, get_current_reporter, report, report_scope

__all__ = ['Reporter', 'report', 'report_scope', 'get_current_reporter', 'Summary', 'DictSummary']

# Summary and DictSummary belong to the training bindings; None until they are built.
_training = getattr(_core, 'training', None)
Summary = getattr(_training, 'Summary', None)
DictSummary = getattr(_training, 'DictSummary', None)
del _training
