"""Built-in links from Python: Chainer's constructor keywords, attributes, forward against
the F functions or numpy."""
import numpy
import pytest

import rensa
import rensa.functions as F
import rensa.initializers as I
import rensa.links as L


def _x(*shape, seed=0):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(numpy.float32)


def test_linear_forms():
    lin = L.Linear(4)  # Chainer's one-argument form: out_size, lazy in_size
    x = _x(2, 3)
    y = lin(x)
    assert lin.W.shape == (4, 3) and lin.in_size == 3 and lin.out_size == 4
    numpy.testing.assert_allclose(y.array, F.linear(x, lin.W, lin.b).array, rtol=1e-6)
    nb = L.Linear(3, 2, nobias=True)
    assert [n for n, _ in nb.namedparams()] == ['/W']
    x3 = _x(2, 5, 3)
    numpy.testing.assert_allclose(nb(x3, n_batch_axes=2).array, x3 @ nb.W.array.T, rtol=1e-5, atol=1e-6)


def test_convolution_2d_keywords_and_lazy_form():
    conv = L.Convolution2D(3, 4, ksize=3, stride=2, pad=1, initialW=I.HeNormal(), initial_bias=0.1)
    x = _x(2, 3, 8, 8)
    y = conv(x)
    ref = F.convolution_2d(x, conv.W, conv.b, stride=2, pad=1)
    numpy.testing.assert_allclose(y.array, ref.array, rtol=1e-5, atol=1e-6)
    assert (conv.b.array == numpy.float32(0.1)).all()
    lazy = L.Convolution2D(4, 3)  # (out_channels, ksize)
    assert lazy(x).shape == (2, 4, 6, 6) and lazy.W.shape == (4, 3, 3, 3)
    grouped = L.Convolution2D(4, 6, 1, groups=2, nobias=True)
    assert grouped.W.shape == (6, 2, 1, 1)


def test_batch_normalization_statistics_are_numpy_views():
    bn = L.BatchNormalization(3, decay=0.5, eps=1e-5)
    x = _x(8, 3) * 3 + 1
    y = bn(x)
    ref = (x - x.mean(0)) / numpy.sqrt(x.var(0) + 1e-5)
    numpy.testing.assert_allclose(y.array, ref, rtol=1e-4, atol=1e-4)
    numpy.testing.assert_allclose(bn.avg_mean, 0.5 * x.mean(0), rtol=1e-5)
    numpy.testing.assert_allclose(bn.avg_var, 0.5 + 0.5 * x.var(0, ddof=1), rtol=1e-5)
    view = bn.avg_mean
    view[...] = 0  # writes through to the link
    assert (bn.avg_mean == 0).all()
    assert bn.N == 0 and bn.gamma.shape == (3,) and bn.beta.shape == (3,)
    with rensa.using_config('train', False):
        numpy.testing.assert_allclose(bn(x).array, x / numpy.sqrt(bn.avg_var + 1e-5), rtol=1e-4, atol=1e-5)
    no_gamma = L.BatchNormalization(3, use_gamma=False)
    assert [n for n, _ in no_gamma.namedparams()] == ['/beta']


def test_lstm_state():
    lstm = L.LSTM(3, 4)
    assert lstm.h is None and lstm.c is None
    x = _x(2, 3)
    h1 = lstm(x)
    assert h1.shape == (2, 4)
    numpy.testing.assert_allclose(lstm.h.array, h1.array)
    h2 = lstm(x)
    assert not numpy.allclose(h1.array, h2.array)
    lstm.reset_state()
    assert lstm.h is None
    numpy.testing.assert_allclose(lstm(x).array, h1.array, rtol=1e-6)
    assert sorted(n for n, _ in lstm.namedparams()) == ['/lateral/W', '/upward/W', '/upward/b']


def test_embed_id():
    emb = L.EmbedID(5, 3, ignore_label=-1)
    ids = numpy.array([0, 4, -1], numpy.int32)
    y = emb(ids)
    numpy.testing.assert_allclose(y.array[:2], emb.W.array[[0, 4]])
    assert (y.array[2] == 0).all()
    with pytest.raises(ValueError):
        emb(numpy.array([5], numpy.int32))


def test_classifier_keywords():
    pred = L.Linear(4, 3)
    model = L.Classifier(pred, lossfun=F.softmax_cross_entropy, accfun=F.accuracy, label_key=-1)
    x, t = _x(5, 4), numpy.array([0, 1, 2, 1, 0], numpy.int32)
    loss = model(x, t)
    numpy.testing.assert_allclose(loss.array, F.softmax_cross_entropy(pred(x), t).array, rtol=1e-6)
    assert model.y.shape == (5, 3) and model.predictor is pred
    # a Python loss function
    model2 = L.Classifier(pred, lossfun=lambda y, t: F.sum(y * 0.0), accfun=F.accuracy)
    assert float(model2(x, t).array) == 0.0


@pytest.mark.parametrize('make, shape', [
    (lambda: L.LayerNormalization(4), (3, 4)),
    (lambda: L.GroupNormalization(2, 4), (3, 4, 5)),
    (lambda: L.PReLU(), (3, 4)),
    (lambda: L.Maxout(4, 3, 2), (3, 4)),
    (lambda: L.GRU(4, 3), (3, 4)),
    (lambda: L.Highway(4), (3, 4)),
    (lambda: L.Deconvolution2D(2, 3, 3, stride=2), (1, 2, 4, 4)),
    (lambda: L.DepthwiseConvolution2D(2, 2, 3, pad=1), (1, 2, 4, 4)),
    (lambda: L.ConvolutionND(1, 2, 3, 3), (1, 2, 6)),
    (lambda: L.Bias(shape=(4,)), (3, 4)),
    (lambda: L.Scale(W_shape=(4,), bias_term=True), (3, 4)),
    (lambda: L.MLPConvolution2D(2, (3, 4), 3, pad=1), (1, 2, 4, 4)),
    (lambda: L.Inception(2, 2, 2, 2, 2, 2, 2), (1, 2, 5, 5)),
])
def test_other_links_run_and_backprop(make, shape):
    link = make()
    y = link(_x(*shape))
    if isinstance(link, L.GRU):
        y = link(_x(*shape, seed=1))  # the first step of a stateful GRU has no h: W_r, U_* unused
    F.sum(y * y).backward()
    for name, p in link.namedparams():
        assert p.grad is not None and p.grad.shape == p.shape, name


def test_layer_normalization_matches_numpy():
    ln = L.LayerNormalization(4, eps=1e-6)
    x = _x(3, 4)
    ref = (x - x.mean(1, keepdims=True)) / numpy.sqrt(x.var(1, keepdims=True) + 1e-6)
    numpy.testing.assert_allclose(ln(x).array, ref, rtol=1e-4, atol=1e-5)


def test_prelu_matches_numpy():
    pr = L.PReLU(init=0.1)
    x = _x(3, 4)
    numpy.testing.assert_allclose(pr(x).array, numpy.where(x > 0, x, 0.1 * x), rtol=1e-6)


def test_bilinear_matches_numpy():
    bl = L.Bilinear(2, 3, 4)
    e1, e2 = _x(5, 2), _x(5, 3, seed=1)
    ref = numpy.einsum('bi,bj,ijk->bk', e1, e2, bl.W.array)
    ref += e1 @ bl.V1.array + e2 @ bl.V2.array + bl.b.array
    numpy.testing.assert_allclose(bl(e1, e2).array, ref, rtol=1e-5, atol=1e-5)


def test_stateless_lstm_none_state():
    lstm = L.StatelessLSTM(3, 4)
    c, h = lstm(None, None, _x(2, 3))
    assert c.shape == (2, 4) and h.shape == (2, 4)
    c2, h2 = lstm(c, h, _x(2, 3))
    assert not numpy.allclose(h.array, h2.array)
