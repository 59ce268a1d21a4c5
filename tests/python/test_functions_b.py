"""rensa.functions group b, forward against numpy: connection, pooling, normalization."""
import numpy as np
import pytest

import rensa
import rensa.functions as F

RNG = np.random.default_rng(0)


def rand(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def close(y, ref, tol=1e-5):
    assert isinstance(y, rensa.Variable)
    np.testing.assert_allclose(np.asarray(y.array, np.float64), ref, rtol=tol, atol=tol)


def outsize(size, k, s, p, cover_all=False, d=1):
    dk = k + (k - 1) * (d - 1)
    if cover_all:
        return (size + 2 * p - dk + s - 1) // s + 1
    return (size + 2 * p - dk) // s + 1


def conv2d_ref(x, W, b=None, stride=(1, 1), pad=(0, 0), dilate=(1, 1), groups=1, cover_all=False):
    n, c, h, w = x.shape
    co, cig, kh, kw = W.shape
    (sy, sx), (py_, px), (dy, dx) = stride, pad, dilate
    oh = outsize(h, kh, sy, py_, cover_all, dy)
    ow = outsize(w, kw, sx, px, cover_all, dx)
    xp = np.zeros((n, c, h + 2 * py_ + sy, w + 2 * px + sx))
    xp[:, :, py_:py_ + h, px:px + w] = x
    y = np.zeros((n, co, oh, ow))
    cog = co // groups
    for g in range(groups):
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, g * cig:(g + 1) * cig, i * sy:i * sy + (kh - 1) * dy + 1:dy,
                           j * sx:j * sx + (kw - 1) * dx + 1:dx]
                y[:, g * cog:(g + 1) * cog, i, j] = np.einsum('nchw,ochw->no', patch,
                                                             W[g * cog:(g + 1) * cog])
    if b is not None:
        y += b[None, :, None, None]
    return y


def deconv2d_ref(x, W, b=None, stride=(1, 1), pad=(0, 0)):
    n, ci, h, w = x.shape
    _, co, kh, kw = W.shape
    (sy, sx), (py_, px) = stride, pad
    full = np.zeros((n, co, (h - 1) * sy + kh, (w - 1) * sx + kw))
    for i in range(h):
        for j in range(w):
            full[:, :, i * sy:i * sy + kh, j * sx:j * sx + kw] += np.einsum('nc,cokl->nokl', x[:, :, i, j], W)
    y = full[:, :, py_:full.shape[2] - py_, px:full.shape[3] - px]
    if b is not None:
        y = y + b[None, :, None, None]
    return y


# --- connection -------------------------------------------------------------------------

def test_linear():
    x, W, b = rand(2, 3), rand(4, 3), rand(4)
    close(F.linear(x, W, b), x @ W.T + b)
    close(F.linear(x, W), x @ W.T)
    close(F.linear(x, W, None), x @ W.T)
    x3, W3 = rand(2, 3, 5), rand(4, 5)
    y = F.linear(x3, W3, n_batch_axes=2)
    assert y.shape == (2, 3, 4)
    close(y, x3 @ W3.T)


def test_linear_accepts_variables_and_reports_shapes():
    x = rensa.Variable(rand(2, 3))
    W = rensa.Variable(rand(4, 3))
    close(F.linear(x=x, W=W), x.array @ W.array.T)
    with pytest.raises(ValueError, match='linear'):
        F.linear(rand(2, 3), rand(4, 5))


@pytest.mark.parametrize('stride,pad,dilate,groups,cover_all', [
    (1, 0, 1, 1, False), ((2, 1), 1, 1, 1, False), (2, (1, 0), 1, 1, True), (1, 1, 2, 1, False),
    (1, 0, 1, 2, False)])
def test_convolution_2d(stride, pad, dilate, groups, cover_all):
    pair = lambda v: v if isinstance(v, tuple) else (v, v)  # noqa: E731
    x, W, b = rand(2, 4, 6, 5), rand(6, 4 // groups, 3, 2), rand(6)
    y = F.convolution_2d(x, W, b, stride, pad, cover_all, dilate=dilate, groups=groups)
    close(y, conv2d_ref(x, W, b, pair(stride), pair(pad), pair(dilate), groups, cover_all), 1e-4)


def test_convolution_keywords_are_keyword_only():
    with pytest.raises(TypeError):
        F.convolution_2d(rand(1, 1, 3, 3), rand(1, 1, 2, 2), None, 1, 0, False, 1)


def test_convolution_nd_and_1d():
    x, W, b = rand(2, 3, 7), rand(4, 3, 3), rand(4)
    ref = conv2d_ref(x[:, :, None], W[:, :, None], b, (1, 2), (0, 1))[:, :, 0]
    close(F.convolution_nd(x, W, b, stride=2, pad=1), ref, 1e-4)
    close(F.convolution_1d(x, W, b, stride=2, pad=1), ref, 1e-4)
    with pytest.raises(ValueError, match='convolution_3d'):
        F.convolution_3d(x, W, b)


@pytest.mark.parametrize('stride,pad', [(1, 0), (2, 1), ((2, 1), (0, 1))])
def test_deconvolution_2d(stride, pad):
    pair = lambda v: v if isinstance(v, tuple) else (v, v)  # noqa: E731
    x, W, b = rand(2, 3, 4, 3), rand(3, 5, 3, 2), rand(5)
    close(F.deconvolution_2d(x, W, b, stride, pad), deconv2d_ref(x, W, b, pair(stride), pair(pad)), 1e-4)


def test_deconvolution_2d_outsize():
    x, W = rand(1, 2, 3, 3), rand(2, 1, 3, 3)
    ref = deconv2d_ref(x, W, None, (2, 2), (1, 1))  # 5x5, the smallest size
    y = F.deconvolution_2d(x, W, stride=2, pad=1, outsize=(6, 6))
    assert y.shape == (1, 1, 6, 6)
    np.testing.assert_allclose(y.array[:, :, :5, :5], ref, rtol=1e-4, atol=1e-4)


def test_deconvolution_nd_1d():
    x, W = rand(2, 3, 4), rand(3, 2, 3)
    ref = deconv2d_ref(x[:, :, None], W[:, :, None], None, (1, 2), (0, 1))[:, :, 0]
    close(F.deconvolution_nd(x, W, stride=2, pad=1), ref, 1e-4)
    close(F.deconvolution_1d(x, W, None, 2, 1), ref, 1e-4)


def test_depthwise_convolution_2d():
    x, W, b = rand(2, 3, 5, 5), rand(2, 3, 3, 3), rand(6)
    ref = np.zeros((2, 6, 3, 3))
    for c in range(3):
        for m in range(2):
            ref[:, c * 2 + m] = conv2d_ref(x[:, c:c + 1], W[m:m + 1, c:c + 1])[:, 0]
    ref += b[None, :, None, None]
    close(F.depthwise_convolution_2d(x, W, b), ref, 1e-4)
    sub = conv2d_ref(x[:, :1], W[:1, :1], None, (2, 2), (1, 1))[:, 0]
    y = F.depthwise_convolution_2d(x, W, stride=2, pad=1)
    np.testing.assert_allclose(y.array[:, 0], sub, rtol=1e-4, atol=1e-4)


def test_embed_id():
    W = rand(5, 3)
    ids = np.array([[0, 4], [2, -1]], np.int32)
    ref = W[np.where(ids < 0, 0, ids)] * (ids >= 0)[..., None]
    close(F.embed_id(ids, W, ignore_label=-1), ref)
    close(F.embed_id(ids[0], W), W[ids[0]])
    with pytest.raises(ValueError, match='embed_id'):
        F.embed_id(np.array([5], np.int32), W)


def test_bilinear():
    e1, e2, W = rand(3, 2), rand(3, 4), rand(2, 4, 5)
    V1, V2, b = rand(2, 5), rand(4, 5), rand(5)
    ref = np.einsum('nj,nk,jkl->nl', e1, e2, W)
    close(F.bilinear(e1, e2, W), ref, 1e-4)
    close(F.bilinear(e1, e2, W, V1, V2, b), ref + e1 @ V1 + e2 @ V2 + b, 1e-4)
    with pytest.raises(ValueError):
        F.bilinear(e1, e2, W, V1)


def sigmoid(v):
    return 1 / (1 + np.exp(-v))


def lstm_ref(hx, cx, ws, bs, xs):
    ys, hy, cy = [], hx.astype(np.float64).copy(), cx.astype(np.float64).copy()
    n_max = len(xs[0])
    outs = [np.zeros((len(x), hx.shape[2])) for x in xs]
    for step in range(n_max):
        rows = [i for i, x in enumerate(xs) if len(x) > step]
        x = np.stack([xs[i][step] for i in rows])
        h, c = hy[0, rows], cy[0, rows]
        gate = [x @ ws[k].T + bs[k] + h @ ws[k + 4].T + bs[k + 4] for k in range(4)]
        i, f, g, o = sigmoid(gate[0]), sigmoid(gate[1]), np.tanh(gate[2]), sigmoid(gate[3])
        c = f * c + i * g
        h = o * np.tanh(c)
        hy[0, rows], cy[0, rows] = h, c
        for r, row in enumerate(rows):
            outs[row][step] = h[r]
    ys = outs
    return hy, cy, ys


def test_n_step_lstm():
    units, n_in = 3, 2
    xs = [rand(4, n_in), rand(2, n_in)]
    hx, cx = rand(1, 2, units), rand(1, 2, units)
    ws = [[rand(units, n_in) for _ in range(4)] + [rand(units, units) for _ in range(4)]]
    bs = [[rand(units) for _ in range(8)]]
    # Chainer's contract: time steps in, time steps out.
    hy, cy, ys = F.n_step_lstm(1, 0.0, hx, cx, ws, bs, F.transpose_sequence(xs))
    ys = F.transpose_sequence(ys)
    rhy, rcy, rys = lstm_ref(hx, cx, ws[0], bs[0], xs)
    close(hy, rhy, 1e-4)
    close(cy, rcy, 1e-4)
    assert len(ys) == 2
    for y, r in zip(ys, rys):
        close(y, r, 1e-4)


def test_n_step_rnn_and_gru():
    units, n_in = 3, 2
    xs = [rand(3, n_in), rand(3, n_in)]
    hx = rand(1, 2, units)
    ws = [[rand(units, n_in), rand(units, units)]]
    bs = [[rand(units), rand(units)]]
    hy, ys = F.n_step_rnn(1, 0.0, hx, ws, bs, F.transpose_sequence(xs), activation='relu')
    ys = F.transpose_sequence(ys)
    h = hx[0].astype(np.float64)
    for t in range(3):
        x = np.stack([xs[0][t], xs[1][t]])
        h = np.maximum(x @ ws[0][0].T + bs[0][0] + h @ ws[0][1].T + bs[0][1], 0)
        close(ys[0][t], h[0], 1e-4)
    close(hy, h[None], 1e-4)
    with pytest.raises(ValueError, match='activation'):
        F.n_step_rnn(1, 0.0, hx, ws, bs, F.transpose_sequence(xs), activation='sigmoid')
    wg = [[rand(units, n_in) for _ in range(3)] + [rand(units, units) for _ in range(3)]]
    bg = [[rand(units) for _ in range(6)]]
    hy, ys = F.n_step_gru(1, 0.0, hx, wg, bg, F.transpose_sequence(xs))
    w, b, h = wg[0], bg[0], hx[0].astype(np.float64)
    for t in range(3):
        x = np.stack([xs[0][t], xs[1][t]])
        r = sigmoid(x @ w[0].T + b[0] + h @ w[3].T + b[3])
        z = sigmoid(x @ w[1].T + b[1] + h @ w[4].T + b[4])
        hbar = np.tanh(x @ w[2].T + b[2] + r * (h @ w[5].T + b[5]))
        h = (1 - z) * hbar + z * h
    close(hy, h[None], 1e-4)


def test_n_step_bilstm_shapes():
    units, n_in = 2, 3
    xs = [rand(3, n_in), rand(1, n_in)]
    hx, cx = rand(4, 2, units), rand(4, 2, units)
    ws, bs = [], []
    for layer in range(2):
        width = n_in if layer == 0 else 2 * units
        for _ in range(2):
            ws.append([rand(units, width) for _ in range(4)] + [rand(units, units) for _ in range(4)])
            bs.append([rand(units) for _ in range(8)])
    hy, cy, ys = F.n_step_bilstm(2, 0.0, hx, cx, ws, bs, F.transpose_sequence(xs))
    assert hy.shape == (4, 2, units) and cy.shape == (4, 2, units)
    assert [y.shape for y in ys] == [(2, 2 * units), (1, 2 * units), (1, 2 * units)]


# --- pooling ----------------------------------------------------------------------------

def pool_ref(x, k, s, p, cover_all, op):
    n, c, h, w = x.shape
    oh, ow = outsize(h, k, s, p, cover_all), outsize(w, k, s, p, cover_all)
    fill = -np.inf if op == 'max' else 0.0
    xp = np.full((n, c, h + 2 * p + s, w + 2 * p + s), fill)
    xp[:, :, p:p + h, p:p + w] = x
    y = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * s:i * s + k, j * s:j * s + k]
            y[:, :, i, j] = win.max(axis=(2, 3)) if op == 'max' else win.sum(axis=(2, 3)) / (k * k)
    return y


@pytest.mark.parametrize('k,s,p,cover_all', [(2, None, 0, True), (3, 2, 1, True), (3, 2, 1, False)])
def test_max_pooling_2d(k, s, p, cover_all):
    x = rand(2, 3, 7, 6)
    y = F.max_pooling_2d(x, k, stride=s, pad=p, cover_all=cover_all)
    close(y, pool_ref(x, k, s or k, p, cover_all, 'max'))
    y2 = F.max_pooling_2d(x, (k, k), s, p, cover_all)
    close(y2, y.array)


def test_max_pooling_indices_and_upsampling():
    x = rand(1, 2, 4, 4)
    y, indexes = F.max_pooling_2d(x, 2, return_indices=True)
    assert isinstance(indexes, np.ndarray) and indexes.shape == y.shape
    win = x.reshape(1, 2, 2, 2, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(1, 2, 2, 2, 4)
    np.testing.assert_array_equal(indexes, win.argmax(axis=-1))
    up = F.upsampling_2d(y, indexes, 2, outsize=(4, 4))
    mask = x == np.repeat(np.repeat(y.array, 2, axis=2), 2, axis=3)
    close(up, np.where(mask, x, 0))


def test_max_pooling_nd_1d_3d():
    x = rand(2, 3, 7)
    ref = np.stack([x[:, :, i:i + 3].max(axis=2) for i in range(0, 5, 2)], axis=2)
    close(F.max_pooling_nd(x, 3, 2, cover_all=False), ref)
    close(F.max_pooling_1d(x, 3, 2, cover_all=False), ref)
    x3 = rand(1, 1, 2, 2, 2)
    close(F.max_pooling_3d(x3, 2), x3.max().reshape(1, 1, 1, 1, 1))
    with pytest.raises(NotImplementedError):
        F.max_pooling_nd(x, 3, return_indices=True)


@pytest.mark.parametrize('k,s,p', [(2, None, 0), (3, 2, 1)])
def test_average_pooling_2d(k, s, p):
    x = rand(2, 3, 6, 5)
    close(F.average_pooling_2d(x, k, s, p), pool_ref(x, k, s or k, p, False, 'avg'))


def test_average_pooling_nd():
    x = rand(2, 3, 4)
    counts = np.array([2.0, 3.0, 2.0])
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1)))
    sums = np.stack([xp[:, :, i * 2:i * 2 + 3].sum(axis=2) for i in range(2)], axis=2)
    close(F.average_pooling_nd(x, 3, 2, 1), sums / 3)
    close(F.average_pooling_1d(x, 3, 2, 1, pad_value=None), sums / counts[:2])
    x3 = rand(1, 2, 2, 2, 2)
    close(F.average_pooling_3d(x3, 2), x3.mean(axis=(2, 3, 4)).reshape(1, 2, 1, 1, 1))


def test_unpooling_2d():
    x = rand(2, 3, 3, 2)
    close(F.unpooling_2d(x, 2, cover_all=False), np.repeat(np.repeat(x, 2, axis=2), 2, axis=3))
    y = F.unpooling_2d(x, 2, outsize=(5, 3))  # cover_all: partial last windows pool back to 3 x 2
    close(y, np.repeat(np.repeat(x, 2, axis=2), 2, axis=3)[:, :, :5, :3])


# --- normalization ----------------------------------------------------------------------

def bn_ref(x, gamma, beta, eps, axis):
    mean = x.mean(axis=axis, keepdims=True)
    var = x.var(axis=axis, keepdims=True)
    shape = [1] * x.ndim
    kept = [i for i in range(x.ndim) if i not in axis]
    for i, d in zip(kept, gamma.shape):
        shape[i] = d
    return (x - mean) / np.sqrt(var + eps) * gamma.reshape(shape) + beta.reshape(shape)


def test_batch_normalization():
    x, gamma, beta = rand(4, 3, 2, 2), rand(3), rand(3)
    close(F.batch_normalization(x, gamma, beta), bn_ref(x, gamma, beta, 2e-5, (0, 2, 3)), 1e-4)
    close(F.batch_normalization(x, gamma, beta, eps=1e-3), bn_ref(x, gamma, beta, 1e-3, (0, 2, 3)), 1e-4)
    g2, b2 = rand(3, 2, 2), rand(3, 2, 2)
    close(F.batch_normalization(x, g2, b2, axis=0), bn_ref(x, g2, b2, 2e-5, (0,)), 1e-4)
    g3, b3 = rand(3, 2), rand(3, 2)
    close(F.batch_normalization(x, g3, b3, axis=(0, 3)), bn_ref(x, g3, b3, 2e-5, (0, 3)), 1e-4)


@pytest.mark.parametrize('layout', ['contiguous', 'strided', 'float64'])
def test_batch_normalization_updates_running_statistics_in_place(layout):
    x, gamma, beta = rand(5, 3), rand(3), rand(3)
    mean0, var0 = rand(3), np.abs(rand(3)) + 1
    running_mean, running_var = mean0.copy(), var0.copy()
    if layout == 'strided':  # views of larger arrays: the update must land in the parents
        parent = np.zeros(6, np.float32)
        parent[::2] = mean0
        running_mean = parent[::2]
    elif layout == 'float64':
        running_mean, running_var = mean0.astype(np.float64), var0.astype(np.float64)
    F.batch_normalization(x, gamma, beta, running_mean=running_mean, running_var=running_var, decay=0.8)
    m = x.shape[0]
    np.testing.assert_allclose(running_mean, 0.8 * mean0 + 0.2 * x.mean(axis=0), rtol=1e-5)
    np.testing.assert_allclose(running_var, 0.8 * var0 + 0.2 * x.var(axis=0) * m / (m - 1), rtol=1e-5)
    if layout == 'strided':
        np.testing.assert_array_equal(parent[1::2], 0)


def test_fixed_batch_normalization():
    x, gamma, beta, mean, var = rand(4, 3, 2), rand(3), rand(3), rand(3), np.abs(rand(3)) + 0.5
    ref = (x - mean[:, None]) / np.sqrt(var[:, None] + 2e-5) * gamma[:, None] + beta[:, None]
    close(F.fixed_batch_normalization(x, gamma, beta, mean, var), ref, 1e-4)
    ref = (x - mean[:, None]) / np.sqrt(var[:, None] + 0.1) * gamma[:, None] + beta[:, None]
    close(F.fixed_batch_normalization(x, gamma, beta, mean, var, eps=0.1, axis=(0, 2)), ref, 1e-4)


def test_layer_and_group_normalization():
    x, gamma, beta = rand(3, 4), rand(4), rand(4)
    xn = (x - x.mean(axis=1, keepdims=True)) / np.sqrt(x.var(axis=1, keepdims=True) + 1e-5)
    close(F.layer_normalization(x, gamma, beta), xn * gamma + beta, 1e-4)
    x = rand(2, 4, 3)
    g = x.reshape(2, 2, 6)
    gn = ((g - g.mean(axis=2, keepdims=True)) / np.sqrt(g.var(axis=2, keepdims=True) + 1e-3)).reshape(x.shape)
    close(F.group_normalization(x, 2, gamma, beta, eps=1e-3), gn * gamma[:, None] + beta[:, None], 1e-4)
    with pytest.raises(ValueError):
        F.group_normalization(rand(2, 4, 3), 3, gamma, beta)


def test_local_response_normalization():
    x = rand(2, 7, 2, 2)
    sq = np.pad(x.astype(np.float64) ** 2, ((0, 0), (1, 1), (0, 0), (0, 0)))
    s = sum(sq[:, i:i + 7] for i in range(3))
    close(F.local_response_normalization(x, n=3, k=1.0, alpha=0.5, beta=0.6), x / (1.0 + 0.5 * s) ** 0.6, 1e-4)
    sq = np.pad(x.astype(np.float64) ** 2, ((0, 0), (2, 2), (0, 0), (0, 0)))
    s = sum(sq[:, i:i + 7] for i in range(5))
    close(F.local_response_normalization(x), x / (2 + 1e-4 * s) ** 0.75, 1e-4)


def test_normalize():
    x = rand(3, 4)
    close(F.normalize(x), x / (np.sqrt((x ** 2).sum(axis=1, keepdims=True)) + 1e-5), 1e-5)
    close(F.normalize(x, eps=0.5, axis=0), x / (np.sqrt((x ** 2).sum(axis=0, keepdims=True)) + 0.5), 1e-5)


# --- Functions that were Python until issue 21 (now C++) -------------------------------------

def test_dilated_convolution_2d():
    x, W, b = rand(1, 2, 7, 7), rand(3, 2, 3, 3), rand(3)
    close(F.dilated_convolution_2d(x, W, b, stride=2, pad=1, dilate=2),
          conv2d_ref(x, W, b, (2, 2), (1, 1), (2, 2)), 1e-4)


@pytest.mark.parametrize('pooling', ['max', 'average'])
def test_spatial_pyramid_pooling_2d(pooling):
    x = rand(2, 3, 5, 6)
    ys = []
    for level in range(3):
        bins = 2 ** level
        kh, kw = -(-5 // bins), -(-6 // bins)
        ph, pw = (kh * bins - 5) // 2, (kw * bins - 6) // 2
        fill = -np.inf if pooling == 'max' else 0.0
        xp = np.full((2, 3, 5 + 2 * ph + kh, 6 + 2 * pw + kw), fill)
        xp[:, :, ph:ph + 5, pw:pw + 6] = x
        oh, ow = outsize(5, kh, kh, ph, pooling == 'max'), outsize(6, kw, kw, pw, pooling == 'max')
        y = np.zeros((2, 3, oh, ow))
        for i in range(oh):
            for j in range(ow):
                win = xp[:, :, i * kh:(i + 1) * kh, j * kw:(j + 1) * kw]
                y[:, :, i, j] = win.max(axis=(2, 3)) if pooling == 'max' else win.sum(axis=(2, 3)) / (kh * kw)
        ys.append(y.reshape(2, -1))
    ref = np.concatenate(ys, axis=1)[:, :, None, None]
    close(F.spatial_pyramid_pooling_2d(x, 3, pooling=pooling), ref)
    with pytest.raises(ValueError):
        F.spatial_pyramid_pooling_2d(x, 2, pooling='min')


def test_convolution_releases_the_gil():
    import threading
    import time
    x, W = rand(8, 32, 64, 64), rand(32, 32, 3, 3)
    started, begin, took = threading.Event(), [], []

    def work():
        begin.append(time.perf_counter())
        started.set()
        F.convolution_2d(x, W)
        took.append(time.perf_counter() - begin[0])

    thread = threading.Thread(target=work)
    thread.start()
    started.wait()
    # A call holding the GIL would stall this loop (or its first step) for the whole call.
    last, gap = begin[0], 0.0
    while True:
        now = time.perf_counter()
        gap, last = max(gap, now - last), now
        if not thread.is_alive():
            break
    thread.join()
    assert gap < took[0] / 2, (gap, took[0])
