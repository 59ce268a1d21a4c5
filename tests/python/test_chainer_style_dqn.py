"""chainer_style/dqn.py (copy.deepcopy of the Q network, pickled agent) on rensa, and against
real Chainer's first losses where it is installed (issue 22)."""
from chainer_style_harness import assert_same_first_losses, first_losses, run_on_chainer, run_ported


def test_dqn_runs_on_rensa_and_matches_chainer(tmp_path):
    ours = run_ported('dqn.py', tmp_path)
    assert len(first_losses(ours)) == 6 and 'greedy actions:' in ours
    theirs = run_on_chainer('dqn.py')
    assert_same_first_losses(ours, theirs)
