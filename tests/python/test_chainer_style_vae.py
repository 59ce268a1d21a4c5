"""The plain Chainer VAE of tests/python/chainer_style/vae.py (chainer.distributions,
chainer.kl_divergence, reparameterised sampling) on rensa with only its imports changed,
and its first losses against real Chainer's where that is installed."""
from chainer_style_harness import assert_same_first_losses, changed_lines, first_losses, run_on_chainer, run_ported


def test_vae_port_changes_only_imports():
    changed = changed_lines('vae.py')
    assert changed and all(a.startswith(('import chainer', 'from chainer')) for a, _ in changed)


def test_vae_trains_and_matches_chainer(tmp_path):
    ours = run_ported('vae.py', tmp_path, timeout=120)
    losses = first_losses(ours)
    assert len(losses) == 6 and losses[-1] < losses[0]
    theirs = run_on_chainer('vae.py', timeout=120)
    assert_same_first_losses(ours, theirs)
    mean_ours = [line for line in ours.splitlines() if line.startswith('mean losses:')]
    mean_theirs = [line for line in theirs.splitlines() if line.startswith('mean losses:')]
    assert_same_first_losses(mean_ours[0].replace('mean', 'first'), mean_theirs[0].replace('mean', 'first'))
