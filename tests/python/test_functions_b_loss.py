"""rensa.functions group b, forward against numpy: loss and evaluation functions."""
import itertools

import numpy as np
import pytest

import rensa
import rensa.functions as F

RNG = np.random.default_rng(1)


def rand(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def close(y, ref, tol=1e-5):
    assert isinstance(y, rensa.Variable)
    np.testing.assert_allclose(np.asarray(y.array, np.float64), ref, rtol=tol, atol=tol)


def log_softmax(x, axis=1):
    x = x.astype(np.float64)
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def softplus(v):
    return np.logaddexp(0, v.astype(np.float64))


# --- loss -------------------------------------------------------------------------------

def test_softmax_cross_entropy():
    x = rand(5, 4)
    t = np.array([0, 3, -1, 2, 1], np.int32)
    valid = t != -1
    per = -log_softmax(x)[np.arange(5), np.where(valid, t, 0)] * valid
    close(F.softmax_cross_entropy(x, t), per.sum() / valid.sum())
    close(F.softmax_cross_entropy(x, t, normalize=False), per.sum() / 5)
    close(F.softmax_cross_entropy(x, t, reduce='no'), per)
    close(F.softmax_cross_entropy(x, t, enable_double_backprop=True), per.sum() / valid.sum())
    w = np.abs(rand(4)) + 0.5
    weighted = per * w[np.where(valid, t, 0)]
    close(F.softmax_cross_entropy(x, t, class_weight=w, reduce='no'), weighted)
    t2 = np.where(valid, t, 1).astype(np.int64)
    t2[0] = 7
    per = -log_softmax(x)[np.arange(5), np.where(t2 == 7, 0, t2)] * (t2 != 7)
    close(F.softmax_cross_entropy(x, t2, ignore_label=7), per.sum() / 4)


def test_softmax_cross_entropy_errors():
    with pytest.raises(ValueError, match='softmax_cross_entropy'):
        F.softmax_cross_entropy(rand(2, 3), np.array([0, 3], np.int32))
    with pytest.raises(ValueError, match='reduce'):
        F.softmax_cross_entropy(rand(2, 3), np.array([0, 1], np.int32), reduce='sum')
    with pytest.raises(ValueError):  # a float t is a soft target, which needs x's shape
        F.softmax_cross_entropy(rand(2, 3), rand(2))


def test_sigmoid_cross_entropy():
    x = rand(3, 4)
    t = RNG.integers(-1, 2, size=(3, 4)).astype(np.int32)
    valid = t != -1
    per = (softplus(x) - x * t) * valid
    close(F.sigmoid_cross_entropy(x, t), per.sum() / valid.sum())
    close(F.sigmoid_cross_entropy(x, t, normalize=False), per.sum() / 3)
    close(F.sigmoid_cross_entropy(x, t, reduce='no'), per)


def test_regression_losses():
    x0, x1 = rand(3, 4), rand(3, 4)
    d = x0.astype(np.float64) - x1
    close(F.mean_squared_error(x0, x1), (d ** 2).mean())
    close(F.mean_absolute_error(x0, x1), np.abs(d).mean())
    hub = np.where(np.abs(d) <= 0.5, 0.5 * d ** 2, 0.5 * (np.abs(d) - 0.25))
    close(F.huber_loss(x0, x1, 0.5), hub.sum(axis=1))
    close(F.huber_loss(x0, x1, delta=0.5, reduce='no'), hub)


@pytest.mark.parametrize('norm', ['L1', 'L2'])
def test_hinge(norm):
    x = rand(4, 3)
    t = np.array([0, 2, 1, 1], np.int32)
    sign = np.ones((4, 3))
    sign[np.arange(4), t] = -1
    loss = np.maximum(0, 1 + sign * x)
    if norm == 'L2':
        loss = loss ** 2
    close(F.hinge(x, t, norm=norm, reduce='no'), loss)
    close(F.hinge(x, t, norm), loss.sum() / 4)
    with pytest.raises(NotImplementedError):
        F.hinge(x, t, 'L3')


def test_vae_losses():
    mean, ln_var, x = rand(2, 3), rand(2, 3), rand(2, 3)
    kl = (mean.astype(np.float64) ** 2 + np.exp(ln_var) - ln_var - 1) / 2
    close(F.gaussian_kl_divergence(mean, ln_var), kl.sum(), 1e-4)
    close(F.gaussian_kl_divergence(mean, ln_var, reduce='mean'), kl.mean(), 1e-4)
    close(F.gaussian_kl_divergence(mean, ln_var, reduce='no'), kl, 1e-4)
    xb = (rand(2, 3) > 0).astype(np.float32)
    close(F.bernoulli_nll(xb, x), (softplus(x) - xb * x).sum(), 1e-4)
    close(F.bernoulli_nll(xb, x, reduce='no'), softplus(x) - xb * x, 1e-4)
    nll = (ln_var + np.log(2 * np.pi)) / 2 + (x.astype(np.float64) - mean) ** 2 * np.exp(-ln_var) / 2
    close(F.gaussian_nll(x, mean, ln_var), nll.sum(), 1e-4)
    close(F.gaussian_nll(x, mean, ln_var, reduce='no'), nll, 1e-4)


def test_contrastive_and_triplet():
    x0, x1, x2 = rand(4, 3), rand(4, 3), rand(4, 3)
    y = np.array([1, 0, 1, 0], np.int32)
    d = np.sqrt(((x0.astype(np.float64) - x1) ** 2).sum(axis=1))
    per = (y * d ** 2 + (1 - y) * np.maximum(2.0 - d, 0) ** 2) / 2
    close(F.contrastive(x0, x1, y, margin=2.0, reduce='no'), per, 1e-4)
    close(F.contrastive(x0, x1, y, 2.0), per.sum() / 4, 1e-4)
    with pytest.raises(ValueError):
        F.contrastive(x0, x1, y, margin=-1.0)
    dp = ((x0.astype(np.float64) - x1) ** 2).sum(axis=1)
    dn = ((x0.astype(np.float64) - x2) ** 2).sum(axis=1)
    per = np.maximum(dp - dn + 0.5, 0)
    close(F.triplet(x0, x1, x2, margin=0.5, reduce='no'), per, 1e-4)
    close(F.triplet(x0, x1, x2, 0.5), per.mean(), 1e-4)


def test_negative_sampling():
    x, W = rand(3, 4), rand(6, 4)
    t = np.array([1, -1, 5], np.int32)
    drawn = np.array([[0, 2, 3], [0, 4, 4], [0, 0, 1]], np.int32)
    shapes = []

    def sampler(shape):
        shapes.append(shape)
        return drawn.copy()

    xd, Wd = x.astype(np.float64), W.astype(np.float64)
    per = np.zeros(3)
    for n in range(3):
        if t[n] == -1:
            continue
        per[n] = softplus(-(Wd[t[n]] @ xd[n])) + sum(softplus(Wd[k] @ xd[n]) for k in drawn[n, 1:])
    close(F.negative_sampling(x, t, W, sampler, 2, reduce='no'), per, 1e-4)
    assert shapes == [(3, 3)]
    loss, samples = F.negative_sampling(x, t, W, sampler, 2, return_samples=True)
    close(loss, per.sum(), 1e-4)
    np.testing.assert_array_equal(samples[:, 1:], drawn[:, 1:])
    np.testing.assert_array_equal(samples[:, 0], t)


def test_negative_sampling_sampler_errors():
    x, t, W = rand(2, 3), np.array([0, 1], np.int32), rand(4, 3)

    def failing(shape):
        raise KeyError('sampler failed')

    with pytest.raises(KeyError, match='sampler failed'):  # the Python exception crosses the C++ call
        F.negative_sampling(x, t, W, failing, 2)
    with pytest.raises(ValueError, match='sampler'):
        F.negative_sampling(x, t, W, lambda shape: np.zeros((1, 1), np.int32), 2)


def ctc_ref(x, label, blank):
    """-log p(label | x) by enumerating every path (tiny T and V only)."""
    logp = log_softmax(np.stack(x), axis=1)  # (T, V)
    total = -np.inf
    for path in itertools.product(range(logp.shape[1]), repeat=logp.shape[0]):
        collapsed = [k for i, k in enumerate(path) if k != blank and (i == 0 or path[i - 1] != k)]
        if collapsed == list(label):
            total = np.logaddexp(total, sum(logp[i, k] for i, k in enumerate(path)))
    return -total


def test_connectionist_temporal_classification():
    x = [rand(2, 3) for _ in range(4)]
    t = np.array([[1, 2], [2, 2]], np.int32)
    ref = [ctc_ref([xs[b] for xs in x], t[b], 0) for b in range(2)]
    close(F.connectionist_temporal_classification(x, t, 0, reduce='no'), np.array(ref), 1e-4)
    close(F.connectionist_temporal_classification(x, t, 0), np.mean(ref), 1e-4)
    lengths = np.array([3, 4], np.int32)
    label_lengths = np.array([1, 2], np.int32)
    ref0 = ctc_ref([xs[0] for xs in x[:3]], t[0, :1], 0)
    y = F.connectionist_temporal_classification(x, t, 0, input_length=lengths, label_length=label_lengths,
                                                reduce='no')
    close(y, np.array([ref0, ref[1]]), 1e-4)


# --- evaluation -------------------------------------------------------------------------

def test_accuracy():
    y = rand(6, 4)
    t = np.array([0, 1, 2, 3, 0, 1], np.int32)
    t[:3] = y[:3].argmax(axis=1)
    pred = y.argmax(axis=1)
    close(F.accuracy(y, t), (pred == t).mean())
    t[0] = -1
    keep = t != -1
    close(F.accuracy(y, t, ignore_label=-1), (pred == t)[keep].mean())
    close(F.accuracy(y, np.full(6, -1, np.int32), ignore_label=-1), 0.0)
    y3, t3 = rand(2, 3, 4), RNG.integers(0, 3, size=(2, 4)).astype(np.int32)
    close(F.accuracy(y3, t3), (y3.argmax(axis=1) == t3).mean())


def test_binary_accuracy():
    y = rand(3, 4)
    t = RNG.integers(-1, 2, size=(3, 4)).astype(np.int32)
    keep = t != -1
    close(F.binary_accuracy(y, t), ((y >= 0) == t)[keep].mean())


def summary_ref(y, t, label_num, beta, ignore_label=-1):
    pred = y.argmax(axis=1).ravel()
    t = t.ravel()
    keep = t != ignore_label
    pred, t = pred[keep], t[keep]
    with np.errstate(invalid='ignore', divide='ignore'):
        tp = np.array([((pred == k) & (t == k)).sum() for k in range(label_num)], np.float64)
        precision = tp / np.array([(pred == k).sum() for k in range(label_num)])
        support = np.array([(t == k).sum() for k in range(label_num)])
        recall = tp / support
        fbeta = (1 + beta ** 2) * precision * recall / (beta ** 2 * precision + recall)
    return precision, recall, fbeta, support


def test_classification_summary_and_scores():
    y = rand(20, 3)
    t = RNG.integers(0, 3, size=20).astype(np.int32)
    t[:6] = y[:6].argmax(axis=1)
    t[6] = -1
    p, r, f, s = summary_ref(y, t, 3, 2.0)
    out = F.classification_summary(y, t, beta=2.0)
    assert isinstance(out, tuple) and len(out) == 4
    for v, ref in zip(out, (p, r, f, s)):
        close(v, ref)
    assert out[3].array.dtype == np.int64
    p, r, f, s = summary_ref(y, t, 4, 1.0)
    for fn, ref in ((F.precision, p), (F.recall, r), (F.f1_score, f)):
        score, support = fn(y, t, label_num=4)
        close(score, ref)
        close(support, s)
    score, support = F.fbeta_score(y, t, 4, 1.0)
    close(score, f)
    t[6] = 0
    p, r, f, s = summary_ref(y, t, 3, 1.0, ignore_label=2)
    close(F.precision(y, t, label_num=3, ignore_label=2)[0], p)
    with pytest.raises(ValueError):
        F.recall(y, np.full(20, 5, np.int32), label_num=3)


def test_labels_as_variables():
    y = rand(4, 3)
    t = np.array([0, 1, 2, 1], np.int32)
    yv, tv = rensa.Variable(y), rensa.Variable(t, requires_grad=False)
    close(F.accuracy(yv, tv), (y.argmax(axis=1) == t).mean())
    loss = F.softmax_cross_entropy(yv, tv)
    close(loss, -log_softmax(y)[np.arange(4), t].mean())
    loss.backward()
    assert yv.grad.shape == (4, 3)


# --- Functions that were Python until issue 21 (now C++) -------------------------------------

def test_elementwise_errors():
    x0, x1 = rand(2, 3), rand(2, 3)
    close(F.squared_error(x0, x1), (x0.astype(np.float64) - x1) ** 2)
    close(F.absolute_error(x0, x1), np.abs(x0.astype(np.float64) - x1))
    close(F.absolute_error(rensa.Variable(x0), x1), np.abs(x0.astype(np.float64) - x1))


def test_r2_score():
    pred, true = rand(6, 2), rand(6, 2)
    per = 1 - ((true - pred) ** 2).sum(axis=0) / ((true - true.mean(axis=0)) ** 2).sum(axis=0)
    close(F.r2_score(pred, true, multioutput='raw_values'), per, 1e-5)
    y = F.r2_score(rensa.Variable(pred), true)
    close(y, per.mean(), 1e-5)
    assert not y.requires_grad
    with pytest.raises(ValueError):
        F.r2_score(pred, true[:3])
    with pytest.raises(NotImplementedError):
        F.r2_score(pred, true, sample_weight=np.ones(6))
