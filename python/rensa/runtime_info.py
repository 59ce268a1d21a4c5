"""print_runtime_info (chainer.print_runtime_info): versions and what this build found."""
import platform
import sys

import numpy

from rensa import _core

__all__ = ['print_runtime_info', 'get_runtime_info']


def get_runtime_info():
    """A list of (name, value) rows describing rensa, Python and the libraries it uses."""
    info = _core.runtime_info()
    cuda = ('not built' if not info['cuda_built'] else
            '{} device(s)'.format(info['cuda_devices']))
    return [
        ('Platform', platform.platform()),
        ('rensa', info['rensa']),
        ('Python', sys.version.split()[0]),
        ('NumPy', numpy.__version__),
        ('pybind11', info['pybind11']),
        ('OpenBLAS', info['openblas'] or 'not found'),
        ('oneDNN', 'yes' if info['onednn'] else 'not found'),
        ('bfloat16 matmul', info['bf16_matmul']),
        ('OpenMP threads', str(info['openmp_threads'])),
        ('CUDA', cuda),
        ('cuDNN', 'yes' if info['cudnn'] else 'not built'),
        ('NCCL', 'yes' if info['nccl'] else 'not built'),
        ('MPI', ' '.join(info['mpi_version'].split()) or 'not built'),
    ]


def print_runtime_info(out=None):
    """Prints the runtime information table to ``out`` (sys.stdout by default)."""
    if out is None:
        out = sys.stdout
    rows = get_runtime_info()
    width = max(len(name) for name, _ in rows) + 1
    for name, value in rows:
        out.write('{:<{}} {}\n'.format(name + ':', width, value))
    if hasattr(out, 'flush'):
        out.flush()
