"""tests/python/chainer_style/cifar_vgg.py: a VGG trained on PNG files read by
LabeledImageDataset, on rensa with only its imports changed, and against real Chainer."""
import subprocess

import pytest

from chainer_style_harness import (assert_same_first_losses, chainer_python, first_losses, run_on_chainer,
                                   run_ported)


def test_cifar_vgg_against_chainer(tmp_path):
    ours = run_ported('cifar_vgg.py', tmp_path, '--out', tmp_path / 'rensa', timeout=120)
    assert len(first_losses(ours)) == 8
    assert (tmp_path / 'rensa' / 'log').exists()
    assert (tmp_path / 'rensa' / 'images' / 'train_047.png').exists()
    python = chainer_python()
    if python is not None and subprocess.run([python, '-c', 'import PIL'], capture_output=True).returncode != 0:
        pytest.skip('the real Chainer environment lacks Pillow (scripts/install-chainermn-bench.sh installs it)')
    theirs = run_on_chainer('cifar_vgg.py', '--out', tmp_path / 'chainer', timeout=120)
    assert_same_first_losses(ours, theirs)
