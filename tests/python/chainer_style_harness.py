"""Runs the plain Chainer scripts of tests/python/chainer_style on rensa, and on real Chainer.

A script there is written for Chainer 7.8.1 (it imports ``chainer`` and ``chainermn``). The
harness ports it by rewriting its import lines only (``port``), runs it under this
interpreter on rensa, and, where real Chainer is installed, runs the original under that
interpreter too. Real Chainer is the Python named by ``RENSA_CHAINER_PYTHON``, else
``.venv-chainermn/bin/python`` at the repository root (made by
``scripts/install-chainermn-bench.sh``); without one the comparison is skipped, never
faked.

A script that is compared prints its first losses as one line
``first losses: <v0> <v1> ...`` (``report_losses``'s format); both runs must make the same
parameters and the same data from numpy's RandomState, so the losses agree to rounding.
"""
import os
import re
import subprocess
import sys
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..'))
SCRIPTS = os.path.join(HERE, 'chainer_style')

# The only edits: the import lines, `chainer` -> `rensa` (and chainermn -> rensa.distributed).
IMPORTS = [
    (r'^import chainer$', 'import rensa as chainer'),
    (r'^import chainer\.([\w.]+) as (\w+)$', r'import rensa.\1 as \2'),
    (r'^import chainer\.([\w.]+)$', r'import rensa.\1'),
    (r'^from chainer import (.+)$', r'from rensa import \1'),
    (r'^from chainer\.([\w.]+) import (.+)$', r'from rensa.\1 import \2'),
    (r'^import chainermn$', 'import rensa.distributed as chainermn'),
    (r'^import chainermn\.([\w.]+) as (\w+)$', r'import rensa.distributed.\1 as \2'),
    (r'^import chainermn\.([\w.]+)$', r'import rensa.distributed.\1'),
    (r'^from chainermn import (.+)$', r'from rensa.distributed import \1'),
    (r'^from chainermn\.([\w.]+) import (.+)$', r'from rensa.distributed.\1 import \2'),
]


def port(source):
    """``source`` with its import lines rewritten to rensa's; nothing else changes."""
    lines = []
    for line in source.splitlines():
        for pattern, replacement in IMPORTS:
            line = re.sub(pattern, replacement, line)
        lines.append(line)
    return '\n'.join(lines) + '\n'


def changed_lines(name):
    """The (original, ported) pairs of lines the port changed in chainer_style/<name>."""
    source = open(os.path.join(SCRIPTS, name)).read()
    return [(a, b) for a, b in zip(source.splitlines(), port(source).splitlines()) if a != b]


def chainer_python():
    """The interpreter with real Chainer 7.8.1, or None."""
    path = os.environ.get('RENSA_CHAINER_PYTHON') or os.path.join(ROOT, '.venv-chainermn', 'bin', 'python')
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


def _run(argv, timeout, env=None, mpiexec_n=None):
    """Runs argv (under ``mpiexec -n mpiexec_n`` when given) and returns its output. Under
    mpiexec each rank writes to a file of its own, and the output is the ranks' outputs in rank
    order: MPICH forwards the ranks' pipes in chunks that may split a line of one rank with
    another's."""
    run_env = dict(os.environ)
    run_env.setdefault('OMP_NUM_THREADS', '1')
    run_env.update(env or {})
    with tempfile.TemporaryDirectory() as outdir:
        if mpiexec_n:
            pattern = os.path.join(outdir, 'rank.%r')
            argv = ['mpiexec', '-outfile-pattern', pattern, '-errfile-pattern', pattern, '-n', str(mpiexec_n)] + argv
        proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=run_env,
                              timeout=timeout)
        output = proc.stdout
        if mpiexec_n:
            for rank in range(mpiexec_n):
                path = os.path.join(outdir, 'rank.%d' % rank)
                if os.path.exists(path):
                    output += open(path).read()
    assert proc.returncode == 0, ' '.join(argv) + '\n' + output[-4000:]
    return output


def run_ported(name, tmp_path, *args, mpiexec_n=None, timeout=600):
    """Writes chainer_style/<name> with its imports ported into tmp_path and runs it on rensa
    (under ``mpiexec -n mpiexec_n`` when given); returns its output."""
    source = open(os.path.join(SCRIPTS, name)).read()
    script = tmp_path / ('rensa_' + name)
    script.write_text(port(source))
    argv = [sys.executable, str(script)] + [str(a) for a in args]
    return _run(argv, timeout, mpiexec_n=mpiexec_n)


def run_on_chainer(name, *args, mpiexec_n=None, timeout=600):
    """Runs chainer_style/<name> unchanged on real Chainer; skips the test without it."""
    python = chainer_python()
    if python is None:
        pytest.skip('real Chainer not installed (RENSA_CHAINER_PYTHON or .venv-chainermn: '
                    'scripts/install-chainermn-bench.sh)')
    argv = [python, os.path.join(SCRIPTS, name)] + [str(a) for a in args]
    # Chainer 7.8.1 warns about the numpy and Python it was not tested with; not ours to show.
    return _run(argv, timeout, env={'PYTHONWARNINGS': 'ignore', 'CHAINER_WARN_VERSION_MISMATCH': '0'},
                mpiexec_n=mpiexec_n)


def first_losses(output):
    """The floats of the script's ``first losses:`` line (the first such line)."""
    for line in output.splitlines():
        if line.startswith('first losses:'):
            return [float(v) for v in line.split(':', 1)[1].split()]
    raise AssertionError('no "first losses:" line in the output:\n' + output[-2000:])


def assert_same_first_losses(rensa_output, chainer_output, rtol=1e-4, atol=1e-5):
    ours, theirs = first_losses(rensa_output), first_losses(chainer_output)
    assert len(ours) == len(theirs) and ours, (ours, theirs)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert abs(a - b) <= atol + rtol * abs(b), f'loss {i}: rensa {a} against Chainer {b}\n{ours}\n{theirs}'
