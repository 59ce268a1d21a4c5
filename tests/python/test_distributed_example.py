"""examples/distributed/train_mnist.py for one short epoch under ``mpiexec -n 2``.

Skipped when MPI, the distributed module or Fashion-MNIST is absent.
"""
import os
import shutil
import subprocess
import sys

import pytest

import rensa

ROOT = os.environ.get('RENSA_SOURCE_DIR', os.path.join(os.path.dirname(__file__), '..', '..'))
EXAMPLE = os.path.join(ROOT, 'examples', 'distributed', 'train_mnist.py')


def _fashion_mnist_present():
    try:
        rensa.datasets.get_fashion_mnist()
    except (OSError, IOError):
        return False
    return True


def test_train_mnist_two_processes(tmp_path):
    mpiexec = shutil.which('mpiexec')
    if mpiexec is None:
        pytest.skip('mpiexec not found')
    pytest.importorskip('rensa.distributed')
    if not _fashion_mnist_present():
        pytest.skip('Fashion-MNIST is absent')
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join(p for p in sys.path if p)
    env.setdefault('OMP_NUM_THREADS', '1')
    env.setdefault('RENSA_WATCHDOG_TIMEOUT', '60')
    out = tmp_path / 'result'
    command = [mpiexec, '-n', '2', sys.executable, EXAMPLE, '--epoch', '1', '--subset', '6000',
               '--unit', '100', '--batchsize', '50', '--out', str(out), '--min-accuracy', '0.6']
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert 'test accuracy' in result.stdout
    assert (out / 'log').exists()  # LogReport on rank 0
