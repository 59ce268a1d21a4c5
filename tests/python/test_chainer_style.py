"""A Chainer script (tests/python/chainer_style) runs on rensa with only its imports changed."""
import os

import pytest

from chainer_style_harness import SCRIPTS, changed_lines, run_ported


@pytest.mark.parametrize('name', sorted(n for n in os.listdir(SCRIPTS) if n.endswith('.py')))
def test_port_changes_only_imports(name):
    changed = changed_lines(name)
    assert changed and all(a.startswith(('import chainer', 'from chainer')) for a, _ in changed)


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
