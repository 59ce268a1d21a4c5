"""rensa.function_hooks (chainer.function_hooks): TimerHook, PrintHook."""
import sys

from rensa import _core
from rensa._core import FunctionHook, TimerHook

__all__ = ['FunctionHook', 'TimerHook', 'PrintHook']


class PrintHook(FunctionHook):
    """Prints each call's function label and its arrays' shapes and dtypes."""

    name = 'PrintHook'

    def __init__(self, sep=None, end='\n', file=sys.stdout, flush=True):
        super().__init__()
        self.end = end
        self.file = file
        self.flush = flush

    def _print(self, phase, function, arrays):
        desc = ', '.join('None' if a is None else '{}, {}'.format(tuple(a.shape), a.dtype)
                         for a in arrays)
        self.file.write('function\t{} ({})\ninput data\t{}{}'.format(function.label, phase, desc, self.end))
        if self.flush and hasattr(self.file, 'flush'):
            self.file.flush()

    def forward_preprocess(self, function, in_data):
        """Prints the function's label and the input arrays' shapes and dtypes before its forward."""
        self._print('forward', function, in_data)

    def backward_preprocess(self, function, in_data, out_grad):
        """Prints the function's label and the output grads' shapes and dtypes before its backward."""
        self._print('backward', function, out_grad)


del _core
