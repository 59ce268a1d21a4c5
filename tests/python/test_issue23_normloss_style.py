"""Issue 23, normalizations and losses: the Chainer-style tagger script
(tests/python/chainer_style/crf_tagger.py) on rensa and, where installed, on real Chainer."""
from chainer_style_harness import assert_same_first_losses, run_on_chainer, run_ported


def paths(output):
    return [line for line in output.splitlines() if line.startswith('paths:')]


def test_crf_tagger(tmp_path):
    ours = run_ported('crf_tagger.py', tmp_path, timeout=120)
    assert len(paths(ours)) == 1
    theirs = run_on_chainer('crf_tagger.py', timeout=120)
    assert_same_first_losses(ours, theirs)
    assert paths(ours) == paths(theirs)
