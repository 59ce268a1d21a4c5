"""rensa.link_hooks (chainer.link_hooks): TimerHook, SpectralNormalization,
WeightStandardization."""
import collections
import sys
import time

from rensa.link_hook import LinkHook
from rensa.link_hooks._weight_hooks import SpectralNormalization  # noqa: F401
from rensa.link_hooks._weight_hooks import WeightStandardization  # noqa: F401

__all__ = ['TimerHook', 'SpectralNormalization', 'WeightStandardization']


class TimerHook(LinkHook):
    """Measures the time of each link's forward (Chainer's link_hooks.TimerHook).

    ``call_history`` holds (link class name, seconds) pairs; nested calls overlap, so
    ``total_time()`` sums the outermost calls only.
    """

    name = 'TimerHook'
    table = {'sec': 1, 'ms': 10 ** 3, 'us': 10 ** 6, 'ns': 10 ** 9}

    def __init__(self):
        self.call_history = []
        self._running_stack = []
        self._depth = 0
        self._total_time = 0

    def forward_preprocess(self, args):
        self._running_stack.append(time.perf_counter())
        self._depth += 1

    def forward_postprocess(self, args):
        elapsed = time.perf_counter() - self._running_stack.pop()
        self.call_history.append((type(args.link).__name__, elapsed))
        self._depth -= 1
        if self._depth == 0:
            self._total_time += elapsed

    def total_time(self):
        """Seconds spent in the outermost hooked calls."""
        return self._total_time

    def summary(self):
        """{link class name: {'elapsed_time': seconds, 'occurrence': calls}}, in first-call order."""
        summary = collections.OrderedDict()
        for name, elapsed in self.call_history:
            record = summary.setdefault(name, {'elapsed_time': 0, 'occurrence': 0})
            record['elapsed_time'] += elapsed
            record['occurrence'] += 1
        return summary

    def _choose_unit(self, second):
        factor = 1
        for unit in ['sec', 'ms', 'us']:
            if second * factor >= 1:
                return factor, unit
            factor *= 1000.0
        return factor, 'ns'

    def print_report(self, unit='auto', file=sys.stdout):
        """Prints the summary as Chainer does: LinkName, ElapsedTime, Occurrence."""
        entries = [['LinkName', 'ElapsedTime', 'Occurrence']]
        summary = self.summary()
        auto_foreach = unit == 'auto_foreach'
        if unit == 'auto':
            factor, unit = self._choose_unit(max([r['elapsed_time'] for r in summary.values()] or [0]))
        elif not auto_foreach:
            if unit not in self.table:
                raise ValueError("TimerHook.print_report: unit must be one of {} or 'auto', 'auto_foreach', "
                                 "got {!r}".format(sorted(self.table), unit))
            factor = self.table[unit]
        for name, record in summary.items():
            second = record['elapsed_time']
            if auto_foreach:
                factor, unit = self._choose_unit(second)
            entries.append([name, '%3.2f%s' % (second * factor, unit), str(record['occurrence'])])
        widths = [max(len(row[i]) for row in entries) for i in range(3)]
        template = '  '.join('{:>%d}' % w for w in widths)
        for row in entries:
            file.write(template.format(*row))
            file.write('\n')
        file.flush()
