"""rensa.onnx.export: models exported, checked and run in ONNX Runtime against rensa's outputs."""
import io
import subprocess
import sys

import numpy as np
import pytest

import rensa
import rensa.functions as F
import rensa.links as L
import rensa.onnx

onnx = pytest.importorskip('onnx')
ort = pytest.importorskip('onnxruntime')


def run_ort(model_proto, feeds):
    session = ort.InferenceSession(model_proto.SerializeToString(), providers=['CPUExecutionProvider'])
    return session.run(None, feeds)


def expected(model, *args):
    with rensa.using_config('train', False), rensa.no_backprop_mode():
        out = model(*args)
    if isinstance(out, dict):
        out = list(out.values())
    outs = out if isinstance(out, (tuple, list)) else [out]
    return [np.asarray(o.array if isinstance(o, rensa.Variable) else o) for o in outs]


def assert_close(actual, want):
    # float32: max abs error <= 1e-5 relative to the output scale (max |rensa output|, or 1).
    assert actual.shape == want.shape and actual.dtype == want.dtype
    scale = max(float(np.max(np.abs(want))) if want.size else 0.0, 1.0)
    err = float(np.max(np.abs(actual.astype(np.float64) - want))) if want.size else 0.0
    assert err <= 1e-5 * scale, 'max abs error {} > 1e-5 * {}'.format(err, scale)


def check_export(model, args, **kwargs):
    model_proto = rensa.onnx.export(model, args, **kwargs)
    args = args if isinstance(args, tuple) else (args,)
    names = [i.name for i in model_proto.graph.input]
    outs = run_ort(model_proto, dict(zip(names, args)))
    want = expected(model, *args)
    assert len(outs) == len(want)
    for a, w in zip(outs, want):
        assert_close(a, w)
    return model_proto


class MLP(rensa.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(12, 20)
            self.l2 = L.Linear(20, 20)
            self.l3 = L.Linear(20, 5)

    def forward(self, x):
        return self.l3(F.relu(self.l2(F.relu(self.l1(x)))))


class CNN(rensa.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(3, 8, 3, pad=1)
            self.conv2 = L.Convolution2D(8, 6, 3, stride=2, pad=2)
            self.fc = L.Linear(None, 4)

    def forward(self, x):
        h = F.max_pooling_2d(F.relu(self.conv1(x)), 2)  # cover_all=True by default
        h = F.relu(self.conv2(h))
        h = F.reshape(h, (h.shape[0], -1))
        return self.fc(h)


class BNNet(rensa.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(3, 5, 3)
            self.bn = L.BatchNormalization(5)
            self.fc = L.Linear(5 * 6 * 6, 3)
            self.bn2 = L.BatchNormalization(3)

    def forward(self, x):
        h = F.relu(self.bn(self.conv(x)))
        return F.softmax(self.bn2(self.fc(h)) * 2.0 - 1.0)


class LanguageModel(rensa.Chain):
    def __init__(self, n_vocab=30, units=16):
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(n_vocab, units)
            self.lstm = L.LSTM(units, units)
            self.out = L.Linear(units, n_vocab)

    def forward(self, x0, x1):
        self.lstm.reset_state()
        y0 = self.out(self.lstm(self.embed(x0)))
        y1 = self.out(self.lstm(self.embed(x1)))
        return y0, y1


def rand(*shape, seed=0):
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32)


def test_mlp():
    m = check_export(MLP(), rand(4, 12))
    ops = [n.op_type for n in m.graph.node]
    assert ops.count('Gemm') == 3 and ops.count('Relu') == 2
    assert {'/l1/W', '/l1/b', '/l3/W'} <= {i.name for i in m.graph.initializer}
    assert [i.name for i in m.graph.input] == ['input_0'] and [o.name for o in m.graph.output] == ['output_0']


def test_cnn():
    model = CNN()
    x = rand(2, 3, 9, 9)
    expected(model, x)  # initializes fc's W
    m = check_export(model, x, input_names=['image'], output_names=['logits'])
    assert [i.name for i in m.graph.input] == ['image'] and [o.name for o in m.graph.output] == ['logits']
    assert [n.op_type for n in m.graph.node].count('Conv') == 2


def test_batch_normalization_in_test_mode():
    model = BNNet()
    for seed in range(3):  # training-mode calls move avg_mean / avg_var away from 0 / 1
        with rensa.using_config('train', True):
            model(rand(6, 3, 8, 8, seed=seed) * 3 + 1)
    assert float(np.abs(model.bn.avg_mean).max()) > 0.01
    m = check_export(model, rand(2, 3, 8, 8, seed=7))
    names = {i.name for i in m.graph.initializer}
    assert {'/bn/avg_mean', '/bn/avg_var', '/bn/gamma', '/bn2/avg_var'} <= names
    assert [n.op_type for n in m.graph.node].count('BatchNormalization') == 2


def test_lstm_language_model():
    model = LanguageModel()
    x0 = np.array([1, 5, 7], dtype=np.int32)
    x1 = np.array([2, 0, 29], dtype=np.int32)
    m = check_export(model, (x0, x1))
    assert len(m.graph.output) == 2


def test_dict_output_and_file_object(tmp_path):
    class Two(rensa.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l = L.Linear(3, 2)

        def forward(self, x):
            h = self.l(x)
            return {'y': F.tanh(h), 'p': F.log_softmax(h, axis=1)}

    model, x = Two(), rand(2, 3)
    buf = io.BytesIO()
    m = rensa.onnx.export(model, rensa.Variable(x), buf)
    assert [o.name for o in m.graph.output] == ['y', 'p']
    loaded = onnx.load_from_string(buf.getvalue())
    want = expected(model, x)
    for a, w in zip(run_ort(loaded, {'input_0': x}), want):
        assert_close(a, w)
    path = tmp_path / 'two.onnx'
    rensa.onnx.export(model, x, str(path))
    assert onnx.load(str(path)).graph.output[0].name == 'y'


def test_scalar_ops_and_shapes():
    def f(x):
        y = 2.0 - x * 3.0 + 1.5
        y = F.transpose(F.reshape(y ** 2, (2, 3, 4)), (0, 2, 1))
        a, b = F.split_axis(y, [1], axis=1)
        z = F.concat((b, a), axis=1) / 4.0 + F.sum(y, axis=2, keepdims=True)
        return F.leaky_relu(F.elu(z - 0.5), slope=0.1), F.sum(F.sigmoid(z), axis=(0, 1))

    check_export(f, rand(2, 12))


@pytest.mark.parametrize('opset', [13, 17, 20])
def test_opsets(opset):
    def f(x):
        return F.max(F.layer_normalization(x, rensa.Variable(rand(6, seed=1)), rensa.Variable(rand(6, seed=2))),
                     axis=1)

    m = check_export(f, rand(3, 6), opset_version=opset)
    assert m.opset_import[0].version == opset


def test_dynamic_batch():
    model = CNN()
    x2, x5 = rand(2, 3, 9, 9), rand(5, 3, 9, 9, seed=1)
    m = rensa.onnx.export(model, x2, dynamic_axes={'input_0': {0: 'batch'}, 'output_0': [0]})
    assert m.graph.input[0].type.tensor_type.shape.dim[0].dim_param == 'batch'
    (out,) = run_ort(m, {'input_0': x5})
    assert_close(out, expected(model, x5)[0])


def test_unmappable_function_is_named():
    def f(x):
        return F.relu(F.cumsum(x, axis=1))

    with pytest.raises(rensa.onnx.UnsupportedFunctionError, match=r'Cumsum.*float32\(2, 3\).*supported_functions'):
        rensa.onnx.export(f, rand(2, 3))
    assert 'LinearFunction' in rensa.onnx.supported_functions()


def test_unmappable_attribute_is_named():
    W = rensa.Variable(rand(2, 3, 2, 2))
    with pytest.raises(rensa.onnx.UnsupportedFunctionError, match=r'ConvolutionND .*float32\(1, 3, 5, 5\).*cover_all'):
        rensa.onnx.export(lambda x: F.convolution_2d(x, W, cover_all=True), rand(1, 3, 5, 5))


def test_bad_arguments():
    with pytest.raises(ValueError, match='opset_version 12'):
        rensa.onnx.export(MLP(), rand(1, 12), opset_version=12)
    with pytest.raises(ValueError, match='opset_version 21'):
        rensa.onnx.export(MLP(), rand(1, 12), opset_version=21)
    with pytest.raises(ValueError, match='dynamic_axes'):
        rensa.onnx.export(MLP(), rand(1, 12), dynamic_axes={'x': [0]})
    with pytest.raises(ValueError, match='input_names'):
        rensa.onnx.export(MLP(), rand(1, 12), input_names=['a', 'b'])


def test_onnx_missing_gives_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, 'onnx', None)  # `import onnx` raises ImportError
    with pytest.raises(ImportError, match=r'pip install rensa\[onnx\]'):
        rensa.onnx.export(MLP(), rand(1, 12))


def test_importing_rensa_does_not_import_onnx():
    code = 'import sys, rensa, rensa.onnx; sys.exit(1 if "onnx" in sys.modules else 0)'
    subprocess.run([sys.executable, '-c', code], check=True)
