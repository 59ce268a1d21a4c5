"""rensa.onnx.export of ResNet-50 (random weights) checked by ONNX Runtime.

Batch 1 at 224x224, as in the ImageNet example (a few seconds on 2 cores).
"""
import numpy as np
import pytest

import rensa
import rensa.links as L
import rensa.onnx

onnx = pytest.importorskip('onnx')
ort = pytest.importorskip('onnxruntime')


def test_resnet50():
    model = L.ResNet50(n_class=100)
    for seed in range(2):  # batch statistics away from the initial 0 / 1
        with rensa.using_config('train', True):
            model(np.random.RandomState(seed).uniform(-1, 1, (2, 3, 32, 32)).astype(np.float32))
    x = np.random.RandomState(5).uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32)
    m = rensa.onnx.export(model, x)
    ops = [n.op_type for n in m.graph.node]
    assert ops.count('Conv') == 53 and ops.count('BatchNormalization') == 53 and ops.count('MaxPool') == 1
    session = ort.InferenceSession(m.SerializeToString(), providers=['CPUExecutionProvider'])
    (out,) = session.run(None, {'input_0': x})
    with rensa.using_config('train', False), rensa.no_backprop_mode():
        want = np.asarray(model(x).array)
    scale = max(float(np.abs(want).max()), 1.0)
    assert out.shape == want.shape == (1, 100)
    assert float(np.abs(out - want).max()) <= 1e-5 * scale
