"""chainer.backends.cuda: the same module as rensa.cuda."""
import sys

from rensa import cuda as _cuda

sys.modules[__name__] = _cuda
