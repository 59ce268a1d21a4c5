"""Chainer training scripts with ragged batches and custom updaters (issue 22), run on rensa
with only their imports changed and compared with real Chainer's first losses where it is
installed (tests/python/chainer_style_harness.py)."""
from chainer_style_harness import assert_same_first_losses, first_losses, run_on_chainer, run_ported


def _line(output, prefix):
    return next(line for line in output.splitlines() if line.startswith(prefix))


def test_seq2seq_on_ragged_batches(tmp_path):
    """A converter returning a dict of lists of variable-length arrays, an Evaluator with the
    same converter called before training: its epoch-0 entry is logged on its own."""
    ours = run_ported('seq2seq.py', tmp_path, '--out', tmp_path / 'result', timeout=120)
    assert len(first_losses(ours)) == 8
    assert _line(ours, 'epochs logged:') == 'epochs logged: 0 1 2'
    assert (tmp_path / 'result' / 'log').exists()
    theirs = run_on_chainer('seq2seq.py', '--out', tmp_path / 'chainer', timeout=120)
    assert_same_first_losses(ours, theirs)
    validation = [float(v) for v in _line(ours, 'validation losses:').split(':')[1].split()]
    expected = [float(v) for v in _line(theirs, 'validation losses:').split(':')[1].split()]
    assert len(validation) == len(expected) == 3
    for a, b in zip(validation, expected):
        assert abs(a - b) <= 1e-5 + 1e-4 * abs(b), (validation, expected)


def test_dcgan_with_a_custom_updater(tmp_path):
    """Two optimizers named 'gen' and 'dis' (no 'main'), update_core overridden in Python."""
    ours = run_ported('dcgan.py', tmp_path, '--out', tmp_path / 'result', timeout=120)
    assert len(first_losses(ours)) == 12
    theirs = run_on_chainer('dcgan.py', '--out', tmp_path / 'chainer', timeout=120)
    assert_same_first_losses(ours, theirs)
