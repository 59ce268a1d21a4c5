"""tests/python/chainer_style/ptb_nstep_lstm.py: a PTB-style language model with NStepLSTM and
truncated BPTT, run on rensa with only its imports changed, and against real Chainer's first
losses and perplexity where Chainer is installed."""
from chainer_style_harness import assert_same_first_losses, run_on_chainer, run_ported


def perplexities(output):
    return [float(line.split(':', 1)[1]) for line in output.splitlines() if 'perplexity:' in line]


def test_ptb_nstep_lstm(tmp_path):
    ours = run_ported('ptb_nstep_lstm.py', tmp_path, tmp_path, timeout=120)
    assert 'parameters: /embed/W /out/W /out/b /rnn/0/b0' in ours
    assert (tmp_path / 'rnnlm.npz').exists()
    out = tmp_path / 'chainer'
    out.mkdir()
    theirs = run_on_chainer('ptb_nstep_lstm.py', out, timeout=120)
    assert_same_first_losses(ours, theirs)
    ppl_ours, ppl_theirs = perplexities(ours), perplexities(theirs)
    assert len(ppl_ours) == len(ppl_theirs) == 2
    for a, b in zip(ppl_ours, ppl_theirs):
        assert abs(a - b) <= 1e-4 * b, (ppl_ours, ppl_theirs)
