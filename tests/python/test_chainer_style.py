"""A Chainer script (tests/python/chainer_style) runs on rensa with only its imports changed."""
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

# The only edits: the import lines, `chainer` -> `rensa` (and chainermn -> rensa.distributed).
IMPORTS = [
    (r'^import chainer$', 'import rensa as chainer'),
    (r'^import chainer\.(\w+) as (\w+)$', r'import rensa.\1 as \2'),
    (r'^from chainer import (.+)$', r'from rensa import \1'),
    (r'^from chainer\.([\w.]+) import (.+)$', r'from rensa.\1 import \2'),
    (r'^import chainermn$', 'import rensa.distributed as chainermn'),
]


def port(source):
    lines = []
    for line in source.splitlines():
        for pattern, replacement in IMPORTS:
            line = re.sub(pattern, replacement, line)
        lines.append(line)
    return '\n'.join(lines) + '\n'


@pytest.mark.parametrize('name', ['cnn_bn.py', 'manual_loop.py'])
def test_port_changes_only_imports(name):
    source = open(os.path.join(HERE, 'chainer_style', name)).read()
    ported = port(source)
    changed = [(a, b) for a, b in zip(source.splitlines(), ported.splitlines()) if a != b]
    assert changed and all(a.startswith(('import chainer', 'from chainer')) for a, _ in changed)


def run_ported(name, tmp_path, *args):
    """Writes chainer_style/<name> with its imports ported and runs it; returns its output."""
    source = open(os.path.join(HERE, 'chainer_style', name)).read()
    script = tmp_path / name
    script.write_text(port(source))
    env = dict(os.environ)
    env.setdefault('OMP_NUM_THREADS', '1')
    proc = subprocess.run([sys.executable, str(script)] + [str(a) for a in args],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:]
    return proc.stdout


def test_cnn_with_batch_normalization(tmp_path):
    output = run_ported('cnn_bn.py', tmp_path, '--out', tmp_path / 'result')
    assert 'restored accuracy:' in output
    for name in ('log', 'model_epoch_1', 'model_epoch_3', 'snapshot_iter_60', 'cnn.npz'):
        assert (tmp_path / 'result' / name).exists(), name


def test_tutorial_manual_loop(tmp_path):
    """Chainer's beginner tutorial: a hand-written loop, iterators rewound by assignment."""
    output = run_ported('manual_loop.py', tmp_path, tmp_path)
    assert output.count('val_accuracy:') == 5
    assert (tmp_path / 'my_mnist.model').exists() and (tmp_path / 'my_mnist.state').exists()
