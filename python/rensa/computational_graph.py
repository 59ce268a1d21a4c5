"""rensa.computational_graph (chainer.computational_graph): the graph as Graphviz DOT."""
from rensa import _core

__all__ = ['build_computational_graph', 'ComputationalGraph']

ComputationalGraph = _core.ComputationalGraph


def build_computational_graph(outputs, remove_split=True, variable_style='default',
                              function_style='default', rankdir='TB', remove_variable=False,
                              show_name=True):
    """The graph reachable backward from ``outputs``; ``.dump()`` gives DOT text.

    ``remove_split``, ``variable_style`` and ``function_style`` are accepted for
    Chainer compatibility; the DOT styles are rensa's own.
    """
    if rankdir not in ('TB', 'BT', 'LR', 'RL'):
        raise ValueError("rankdir must be one of 'TB', 'BT', 'LR', 'RL', got {!r}".format(rankdir))
    return _core.build_computational_graph(outputs, rankdir=rankdir, remove_variable=remove_variable,
                                           show_name=show_name)
