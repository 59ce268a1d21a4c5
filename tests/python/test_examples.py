"""The Python examples in examples/, each for one short run (subprocesses)."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
FASHION = [os.path.join(os.environ.get('RENSA_DATASET_ROOT', ''), 'fashion-mnist'),
           '/usr/share/fashion-mnist', '/usr/share/dataset-fashion-mnist']


def have_fashion_mnist():
    try:
        import rensa
        rensa.datasets.get_fashion_mnist()
        return True
    except Exception:  # the dataset is absent: the examples that need it skip
        return False


def run_example(path, *args, timeout=600):
    env = dict(os.environ)
    env.setdefault('OMP_NUM_THREADS', '1')
    proc = subprocess.run([sys.executable, os.path.join(ROOT, path)] + [str(a) for a in args],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                          timeout=timeout)
    assert proc.returncode == 0, '{} failed ({}):\n{}'.format(path, proc.returncode, proc.stdout[-4000:])
    return proc.stdout


@pytest.mark.skipif(not have_fashion_mnist(), reason='Fashion-MNIST (dataset-fashion-mnist) is absent')
def test_train_mnist(tmp_path):
    out = tmp_path / 'result'
    text = run_example('examples/mnist/train_mnist.py', '--epoch', 1, '--unit', 100, '--subset', 3000,
                       '--out', out, '--min-accuracy', 0.6)
    assert 'test accuracy:' in text
    assert 'validation/main/accuracy' in text  # PrintReport's header
    log = json.loads((out / 'log').read_text())
    assert len(log) == 1 and log[0]['epoch'] == 1 and log[0]['iteration'] == 30
    for name in ('loss.png', 'accuracy.png', 'snapshot_iter_30', 'cg.dot'):
        assert (out / name).exists(), name
    assert (out / 'loss.png').read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'

    # --resume continues from the snapshot: one more epoch, iterations counted on.
    text = run_example('examples/mnist/train_mnist.py', '--epoch', 2, '--unit', 100, '--subset', 3000,
                       '--out', out, '--resume', out / 'snapshot_iter_30', '--noplot')
    log = json.loads((out / 'log').read_text())
    assert [entry['iteration'] for entry in log] == [30, 60]


def test_custom_function():
    text = run_example('examples/custom_function/custom_function.py', '--steps', 300)
    assert 'gradient checks: MulAdd and SmoothAbs pass' in text
    assert 'final loss:' in text


@pytest.mark.skipif(not os.path.exists('/usr/share/common-licenses/GPL-3'), reason='no GPL-3 text')
def test_char_rnn(tmp_path):
    out = tmp_path / 'result'
    text = run_example('examples/char_rnn/train.py', '--epoch', 1, '--max-chars', 6000, '--unit', 32,
                       '--batchsize', 10, '--bproplen', 10, '--interval', 10, '--out', out)
    assert 'test perplexity:' in text
    perplexity = float(text.rsplit('test perplexity:', 1)[1].split()[0])
    assert 1.0 < perplexity < 200.0
    assert (out / 'log').exists() and (out / 'model_epoch_1').exists()
