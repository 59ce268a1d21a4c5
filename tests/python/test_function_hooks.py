"""Function hooks (Python subclasses, TimerHook, PrintHook) and computational_graph."""
import gc
import io

import numpy

import rensa
from rensa import computational_graph
from rensa import function_hooks


class Recorder(rensa.FunctionHook):
    def __init__(self, calls):
        super().__init__()
        self.calls = calls

    def forward_preprocess(self, function, in_data):
        self.calls.append(('forward', function.label, tuple(a.shape for a in in_data)))

    def backward_postprocess(self, function, in_data, out_grad):
        self.calls.append(('backward', function.label, len(out_grad)))


def test_python_hook_sees_forward_and_backward():
    calls = []
    x = rensa.Variable(numpy.ones((2, 3)))
    with Recorder(calls):
        y = x * 2.0
        y.grad = numpy.ones((2, 3))
        y.backward()
    z = x * 3.0  # outside the scope: not recorded
    assert z.creator is not None
    # The backward of MulConstant applies a function too (recorded as a forward).
    assert calls[0] == ('forward', 'MulConstant', ((2, 3),))
    assert [c for c in calls if c[0] == 'backward'] == [('backward', 'MulConstant', 1)]


def test_hooks_exit_in_order():
    outer, inner = Recorder([]), Recorder([])
    with outer:
        with inner:
            pass
    calls = []
    with Recorder(calls):
        pass
    rensa.Variable(numpy.ones(2)) * 2.0
    assert calls == []  # removed on exit


def test_timer_hook():
    hook = function_hooks.TimerHook()
    x = rensa.Variable(numpy.ones(4))
    with hook:
        y = (x * 2.0) + 1.0
        y.grad = numpy.ones(4)
        y.backward()
    history = hook.call_history
    assert [label for label, backward, _ in history if backward] == ['AddConstant', 'MulConstant']
    assert [label for label, backward, _ in history if not backward][:2] == ['MulConstant', 'AddConstant']
    assert hook.total_time() >= 0
    assert sum(v['occurrence'] for v in hook.summary().values()) == len(history)
    out = io.StringIO()
    hook.print_report(out)
    assert 'FunctionName' in out.getvalue()


def test_print_hook():
    out = io.StringIO()
    with function_hooks.PrintHook(file=out):
        rensa.Variable(numpy.ones((2, 2), numpy.float32)) * 2.0
    assert '(2, 2), float32' in out.getvalue()


def test_computational_graph_dump():
    x = rensa.Variable(numpy.ones(3), name='x')
    y = x * 2.0 + x
    g = computational_graph.build_computational_graph([y])
    dot = g.dump()
    assert dot.startswith('digraph')
    assert 'x' in dot and len(g.functions) == 2
    g2 = computational_graph.build_computational_graph((y,), remove_variable=True, rankdir='LR')
    assert 'LR' in g2.dump()
