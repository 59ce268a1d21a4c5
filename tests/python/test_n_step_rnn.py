"""Chainer's n-step RNNs: F.n_step_* with Chainer's exact, time-major signature and the NStep links.

The functions take ``xs`` as a list over time steps (``xs[t]`` of shape ``(B_t, I)``, B_t
non-increasing) and return ``ys`` the same way; the links take a list of sequences in any
order. Values are checked against a per-sequence reference (numpy, and F.lstm for the LSTM
cell), gradients through rensa.gradient_check, and, where real Chainer is installed
(chainer_style_harness.chainer_python), against Chainer itself: the same calls, the same
NPZ keys, and Chainer's NPZ loaded into rensa's links.
"""
import json
import os
import subprocess

import numpy as np
import pytest

import rensa
import rensa.functions as F
import rensa.links as L
from rensa import gradient_check
from rensa import serializers

from chainer_style_harness import chainer_python

LENGTHS = [4, 3, 3, 1]  # sorted by decreasing length, as the functions want them
N_IN, UNITS, N_LAYERS = 3, 2, 2
# kind -> (function, matrices per layer and direction, bidirectional, activation)
KINDS = {
    'n_step_lstm': (F.n_step_lstm, 8, False, None),
    'n_step_bilstm': (F.n_step_bilstm, 8, True, None),
    'n_step_gru': (F.n_step_gru, 6, False, None),
    'n_step_bigru': (F.n_step_bigru, 6, True, None),
    'n_step_rnn': (F.n_step_rnn, 2, False, 'tanh'),
    'n_step_birnn': (F.n_step_birnn, 2, True, 'relu'),
}


def sigmoid(v):
    return 1 / (1 + np.exp(-v))


def make_args(kind, seed, lengths=LENGTHS, n_layers=N_LAYERS, dtype=np.float32):
    """hx, cx (None without a cell), ws, bs and the sequences of one call, from RandomState."""
    _, n_weights, bi, _ = KINDS[kind]
    rng = np.random.RandomState(seed)
    directions = 2 if bi else 1
    shape = (n_layers * directions, len(lengths), UNITS)
    hx = rng.uniform(-1, 1, shape).astype(dtype)
    cx = rng.uniform(-1, 1, shape).astype(dtype) if n_weights == 8 else None
    ws, bs = [], []
    for layer in range(n_layers):
        for _ in range(directions):
            width = N_IN if layer == 0 else UNITS * directions
            ws.append([rng.uniform(-1, 1, (UNITS, width if j < n_weights // 2 else UNITS)).astype(dtype)
                       for j in range(n_weights)])
            bs.append([rng.uniform(-1, 1, UNITS).astype(dtype) for _ in range(n_weights)])
    seqs = [rng.uniform(-1, 1, (n, N_IN)).astype(dtype) for n in lengths]
    return hx, cx, ws, bs, seqs


def to_steps(seqs):
    """Sorted sequences -> time steps (numpy's transpose_sequence)."""
    return [np.stack([s[t] for s in seqs if len(s) > t]) for t in range(len(seqs[0]))]


def cell_step(n_weights, activation, w, b, x, h, c):
    """One step of one sequence (x, h, c 1-d float64); the LSTM through F.lstm."""
    def gate(k, k_h):
        return w[k] @ x + b[k] + w[k_h] @ h + b[k_h]
    if n_weights == 8:
        i, f, a, o = (gate(k, k + 4) for k in range(4))
        packed = np.stack([a, i, f, o], axis=1).reshape(1, -1)  # F.lstm's interleaved a, i, f, o
        c_new, h_new = F.lstm(c[None], packed)
        return h_new.array[0], c_new.array[0]
    if n_weights == 6:
        r, z = sigmoid(gate(0, 3)), sigmoid(gate(1, 4))
        h_bar = np.tanh(w[2] @ x + b[2] + r * (w[5] @ h + b[5]))
        return (1 - z) * h_bar + z * h, c
    a = gate(0, 1)
    return (np.tanh(a) if activation == 'tanh' else np.maximum(a, 0)), c


def reference(kind, hx, cx, ws, bs, seqs, n_layers=N_LAYERS, activation=None):
    """hy, cy, ys (one per sequence) in float64, one sequence at a time."""
    _, n_weights, bi, default_activation = KINDS[kind]
    activation = activation or default_activation
    directions = 2 if bi else 1
    ws = [[np.asarray(w, np.float64) for w in layer] for layer in ws]
    bs = [[np.asarray(b, np.float64) for b in layer] for layer in bs]
    hy = np.array(hx, np.float64)
    cy = np.array(cx if cx is not None else hx, np.float64)
    ys = []
    for i, seq in enumerate(seqs):
        inputs = list(np.asarray(seq, np.float64))
        for layer in range(n_layers):
            outs = [[] for _ in inputs]
            for d in range(directions):
                s = layer * directions + d
                h, c = hy[s, i].copy(), cy[s, i].copy()
                order = range(len(inputs)) if d == 0 else reversed(range(len(inputs)))
                for t in order:
                    h, c = cell_step(n_weights, activation, ws[s], bs[s], inputs[t], h, c)
                    outs[t].append(h)
                hy[s, i], cy[s, i] = h, c
            inputs = [np.concatenate(o) for o in outs]
        ys.append(np.stack(inputs))
    return hy, (cy if cx is not None else None), ys


def call(kind, hx, cx, ws, bs, xs, **kwargs):
    """F.<kind> with Chainer's positional order; returns (hy, cy or None, ys)."""
    fn, n_weights, _, activation = KINDS[kind]
    if n_weights == 8:
        return fn(N_LAYERS, 0.0, hx, cx, ws, bs, xs, **kwargs)
    if activation is not None:
        kwargs.setdefault('activation', activation)
    hy, ys = fn(N_LAYERS, 0.0, hx, ws, bs, xs, **kwargs)
    return hy, None, ys


@pytest.mark.parametrize('kind', sorted(KINDS))
def test_functions_take_time_steps(kind):
    hx, cx, ws, bs, seqs = make_args(kind, seed=1)
    xs = to_steps(seqs)
    hy, cy, ys = call(kind, hx, cx, ws, bs, xs)
    directions = 2 if KINDS[kind][2] else 1
    assert isinstance(ys, tuple) and len(ys) == max(LENGTHS)
    assert [y.shape for y in ys] == [(len(x), directions * UNITS) for x in xs]
    assert hy.shape == hx.shape and hy.dtype == np.float32
    rhy, rcy, rys = reference(kind, hx, cx, ws, bs, seqs)
    np.testing.assert_allclose(hy.array, rhy, rtol=1e-5, atol=1e-5)
    if cx is not None:
        np.testing.assert_allclose(cy.array, rcy, rtol=1e-5, atol=1e-5)
    for y, r in zip(ys, to_steps(rys)):
        np.testing.assert_allclose(y.array, r, rtol=1e-5, atol=1e-5)


def test_keyword_call_variables_and_short_sequences_keep_their_state():
    hx, cx, ws, bs, seqs = make_args('n_step_lstm', seed=2, n_layers=1, lengths=[3, 1])
    xs = [rensa.Variable(x) for x in to_steps(seqs)]
    wv = [[rensa.Variable(w) for w in layer] for layer in ws]
    hy, cy, ys = F.n_step_lstm(n_layers=1, dropout_ratio=0.0, hx=rensa.Variable(hx), cx=cx, ws=wv, bs=bs, xs=xs)
    # The sequence of length 1 stops at t = 0: its final state is its state after the first step.
    _, _, ys_first = F.n_step_lstm(1, 0.0, hx, cx, ws, bs, xs[:1])
    np.testing.assert_allclose(hy.array[0, 1], ys_first[0].array[1], rtol=1e-6)
    np.testing.assert_allclose(hy.array[0, 0], ys[-1].array[0], rtol=1e-6)
    hy.grad = np.ones_like(hy.array)
    hy.backward()
    assert xs[0].grad is not None and wv[0][4].grad is not None


def test_errors():
    hx, cx, ws, bs, seqs = make_args('n_step_lstm', seed=3, n_layers=1)
    xs = to_steps(seqs)
    with pytest.raises(ValueError, match='n_step_lstm: Expect: hx to be defined'):
        F.n_step_lstm(1, 0.0, None, cx, ws, bs, xs)
    with pytest.raises(ValueError, match=r'xs\[1\].shape\[0\] <= xs\[0\].shape\[0\]'):
        F.n_step_lstm(1, 0.0, hx, cx, ws, bs, [xs[-1], xs[0]])  # batch grows: not time-major
    with pytest.raises(ValueError, match='Inconsistent input size'):
        F.n_step_lstm(1, 0.0, hx, cx, ws, bs, [np.zeros((4, N_IN + 1), np.float32)])
    with pytest.raises(ValueError, match=r'hx.shape\[1\] >= xs\[0\].shape\[0\]'):
        F.n_step_lstm(1, 0.0, hx[:, :2], cx[:, :2], ws, bs, xs)
    with pytest.raises(ValueError, match='activation'):
        F.n_step_rnn(1, 0.0, hx, [w[:2] for w in ws], [b[:2] for b in bs], xs, activation='sigmoid')


def test_dropout_only_in_training():
    hx, cx, ws, bs, seqs = make_args('n_step_gru', seed=4)
    xs = to_steps(seqs)
    with rensa.using_config('train', False):
        hy_test, _ = F.n_step_gru(N_LAYERS, 0.5, hx, ws, bs, xs)
    hy_ref, _ = F.n_step_gru(N_LAYERS, 0.0, hx, ws, bs, xs)
    np.testing.assert_array_equal(hy_test.array, hy_ref.array)
    hy_train, _ = F.n_step_gru(N_LAYERS, 0.5, hx, ws, bs, xs)
    assert not np.array_equal(hy_train.array, hy_ref.array)


@pytest.mark.parametrize('kind', ['n_step_bilstm', 'n_step_gru', 'n_step_rnn'])
def test_gradients(kind):
    hx, cx, ws, bs, seqs = make_args(kind, seed=5, n_layers=1, lengths=[2, 1], dtype=np.float64)
    xs = to_steps(seqs)
    n_weights = KINDS[kind][1]
    fn, _, _, activation = KINDS[kind]
    states = [hx] if cx is None else [hx, cx]
    n_states = len(states)

    def f(*args):
        h_c, steps, w0 = args[:n_states], list(args[n_states:n_states + len(xs)]), args[-1]
        w = [[w0] + ws[0][1:]] + ws[1:]
        if n_weights == 8:
            hy, cy, ys = fn(1, 0.0, h_c[0], h_c[1], w, bs, steps)
            return (hy, cy) + tuple(ys)
        extra = {} if activation is None else {'activation': activation}
        hy, ys = fn(1, 0.0, h_c[0], w, bs, steps, **extra)
        return (hy,) + tuple(ys)

    inputs = tuple(states) + tuple(xs) + (ws[0][0],)
    rng = np.random.RandomState(6)
    outputs = f(*[rensa.Variable(a) for a in inputs])
    y_grad = tuple(rng.uniform(-1, 1, y.shape) for y in outputs)
    gradient_check.check_backward(f, inputs, y_grad, eps=1e-4, atol=1e-5, rtol=1e-4)
    if kind == 'n_step_gru':
        x_grad_grad = tuple(rng.uniform(-1, 1, a.shape) for a in inputs)
        gradient_check.check_double_backward(f, inputs, y_grad, x_grad_grad, eps=1e-4, atol=1e-4, rtol=1e-3)


# --- links -------------------------------------------------------------------------------------

LINKS = {
    'NStepLSTM': ('n_step_lstm', L.NStepLSTM), 'NStepBiLSTM': ('n_step_bilstm', L.NStepBiLSTM),
    'NStepGRU': ('n_step_gru', L.NStepGRU), 'NStepBiGRU': ('n_step_bigru', L.NStepBiGRU),
    'NStepRNNTanh': ('n_step_rnn', L.NStepRNNTanh), 'NStepRNNReLU': ('n_step_rnn', L.NStepRNNReLU),
    'NStepBiRNNTanh': ('n_step_birnn', L.NStepBiRNNTanh), 'NStepBiRNNReLU': ('n_step_birnn', L.NStepBiRNNReLU),
}


def expected_keys(n_layers, directions, n_weights):
    return sorted('{}/{}{}'.format(s, p, j) for s in range(n_layers * directions) for j in range(n_weights)
                  for p in 'wb')


@pytest.mark.parametrize('name', sorted(LINKS))
def test_links_against_the_per_step_reference(name):
    kind, cls = LINKS[name]
    link = cls(N_LAYERS, N_IN, UNITS, 0.0)
    _, n_weights, bi, _ = KINDS[kind]
    activation = 'relu' if name.endswith('ReLU') else 'tanh'
    directions = 2 if bi else 1
    assert (link.n_layers, link.out_size, link.direction, link.n_weights) == (N_LAYERS, UNITS, directions, n_weights)
    assert len(link) == N_LAYERS * directions and len(link.ws) == N_LAYERS * directions
    rng = np.random.RandomState(7)
    for _, p in sorted(link.namedparams()):
        p.array[...] = rng.uniform(-1, 1, p.shape)
    lengths = [2, 4, 1, 3]  # any order: the link sorts and restores
    seqs = [rng.uniform(-1, 1, (n, N_IN)).astype(np.float32) for n in lengths]
    shape = (N_LAYERS * directions, len(seqs), UNITS)
    hx = rng.uniform(-1, 1, shape).astype(np.float32)
    cx = rng.uniform(-1, 1, shape).astype(np.float32)
    ws = [[w.array for w in layer] for layer in link.ws]
    bs = [[b.array for b in layer] for layer in link.bs]
    cell = n_weights == 8
    rhy, rcy, rys = reference(kind, hx, cx if cell else None, ws, bs, seqs, activation=activation)
    _, _, zys = reference(kind, 0 * hx, 0 * cx if cell else None, ws, bs, seqs, activation=activation)
    if cell:
        hy, cy, ys = link(hx, cx, seqs)
        np.testing.assert_allclose(cy.array, rcy, rtol=1e-5, atol=1e-5)
        _, _, ys_none = link(None, None, seqs)
    else:
        hy, ys = link(hx, seqs)
        _, ys_none = link.forward(None, seqs)
    np.testing.assert_allclose(hy.array, rhy, rtol=1e-5, atol=1e-5)
    assert isinstance(ys, list) and [y.shape for y in ys] == [(n, directions * UNITS) for n in lengths]
    for y, r, y0, r0 in zip(ys, rys, ys_none, zys):
        np.testing.assert_allclose(y.array, r, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(y0.array, r0, rtol=1e-5, atol=1e-5)
    assert sorted(k.lstrip('/') for k, _ in link.namedparams()) == expected_keys(N_LAYERS, directions, n_weights)


def test_link_gradients_and_errors():
    link = L.NStepGRU(1, 2, 2, 0.0)
    for p in link.params():
        p.array[...] = np.random.RandomState(8).uniform(-1, 1, p.shape)
    seqs = [np.random.RandomState(9).uniform(-1, 1, (n, 2)).astype(np.float32) for n in (1, 3)]
    xs = [rensa.Variable(s) for s in seqs]
    hy, ys = link(None, xs)
    loss = F.sum(hy * hy) + sum(F.sum(y) for y in ys)
    link.cleargrads()
    loss.backward()
    assert all(x.grad is not None and x.grad.shape == x.shape for x in xs)
    assert link[0].w3.grad is not None
    with pytest.raises(ValueError, match=r'every xs\[i\].shape\[0\] > 0'):
        link(None, [seqs[0], np.zeros((0, 2), np.float32)])
    with pytest.raises(ValueError, match='initial states must have shape'):
        link(np.zeros((1, 3, 2), np.float32), seqs)
    hx = link.init_hx(seqs)
    assert hx.shape == (1, 2, 2) and not hx.array.any()


def test_lazy_in_size_and_copy():
    link = L.NStepBiLSTM(1, None, 3, 0.0)
    seqs = [np.random.RandomState(10).uniform(-1, 1, (n, 4)).astype(np.float32) for n in (2, 3)]
    hy, cy, ys = link(None, None, seqs)
    assert link[0].w0.shape == (3, 4) and link[1].w3.shape == (3, 4) and link[1].w4.shape == (3, 3)
    assert (link.n_cells, link.use_bi_direction) == (2, True)
    copied = link.copy()
    assert type(copied) is L.NStepBiLSTM
    np.testing.assert_array_equal(copied(None, None, seqs)[0].array, hy.array)


# --- against real Chainer ----------------------------------------------------------------------

CHAINER_SCRIPT = r'''
import json, sys
import numpy as np
import chainer
import chainer.functions as F
import chainer.links as L

spec = json.load(open(sys.argv[1]))
data = np.load(sys.argv[2])
out = {}
for kind, n_weights in spec['kinds'].items():
    stacks = spec['stacks'][kind]
    ws = [[data['%s/w/%d/%d' % (kind, s, j)] for j in range(n_weights)] for s in range(stacks)]
    bs = [[data['%s/b/%d/%d' % (kind, s, j)] for j in range(n_weights)] for s in range(stacks)]
    xs = [data['%s/x/%d' % (kind, t)] for t in range(spec['steps'])]
    fn = getattr(F, kind)
    if n_weights == 8:
        hy, cy, ys = fn(spec['n_layers'], 0.0, data[kind + '/hx'], data[kind + '/cx'], ws, bs, xs)
        out[kind + '/cy'] = cy.array
    elif kind.startswith('n_step_bigru') or kind.startswith('n_step_gru'):
        hy, ys = fn(spec['n_layers'], 0.0, data[kind + '/hx'], ws, bs, xs)
    else:
        hy, ys = fn(spec['n_layers'], 0.0, data[kind + '/hx'], ws, bs, xs, activation=spec['activation'][kind])
    out[kind + '/hy'] = hy.array
    for t, y in enumerate(ys):
        out['%s/y/%d' % (kind, t)] = y.array
link = L.NStepBiLSTM(2, 3, 2, 0.0)
rng = np.random.RandomState(0)
for _, p in sorted(link.namedparams()):
    p.array[...] = rng.uniform(-1, 1, p.shape)
chainer.serializers.save_npz(sys.argv[4], link)
seqs = [data['link/x/%d' % i] for i in range(spec['n_link_seqs'])]
hy, cy, ys = link(None, None, seqs)
out['link/hy'], out['link/cy'] = hy.array, cy.array
for i, y in enumerate(ys):
    out['link/y/%d' % i] = y.array
np.savez(sys.argv[3], **out)
'''


@pytest.fixture(scope='module')
def chainer_run(tmp_path_factory):
    """Runs CHAINER_SCRIPT on real Chainer over the inputs make_args gives; skips without it."""
    python = chainer_python()
    if python is None:
        pytest.skip('real Chainer not installed (RENSA_CHAINER_PYTHON or .venv-chainermn)')
    tmp = tmp_path_factory.mktemp('chainer')
    data, spec = {}, {'kinds': {}, 'stacks': {}, 'activation': {}, 'steps': max(LENGTHS), 'n_layers': N_LAYERS}
    calls = {}
    for seed, kind in enumerate(sorted(KINDS)):
        hx, cx, ws, bs, seqs = make_args(kind, seed=20 + seed)
        calls[kind] = (hx, cx, ws, bs, to_steps(seqs))
        spec['kinds'][kind] = KINDS[kind][1]
        spec['stacks'][kind] = len(ws)
        spec['activation'][kind] = KINDS[kind][3]
        data[kind + '/hx'] = hx
        if cx is not None:
            data[kind + '/cx'] = cx
        for s, (w, b) in enumerate(zip(ws, bs)):
            for j in range(len(w)):
                data['%s/w/%d/%d' % (kind, s, j)], data['%s/b/%d/%d' % (kind, s, j)] = w[j], b[j]
        for t, x in enumerate(to_steps(seqs)):
            data['%s/x/%d' % (kind, t)] = x
    link_seqs = [np.random.RandomState(30).uniform(-1, 1, (n, 3)).astype(np.float32) for n in (2, 5, 3)]
    spec['n_link_seqs'] = len(link_seqs)
    for i, s in enumerate(link_seqs):
        data['link/x/%d' % i] = s
    paths = [tmp / name for name in ('spec.json', 'in.npz', 'out.npz', 'link.npz', 'run.py')]
    paths[0].write_text(json.dumps(spec))
    np.savez(paths[1], **data)
    paths[4].write_text(CHAINER_SCRIPT)
    env = dict(os.environ, PYTHONWARNINGS='ignore', OMP_NUM_THREADS='1')
    proc = subprocess.run([python, str(paths[4])] + [str(p) for p in paths[:4]], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:]
    return calls, link_seqs, dict(np.load(paths[2])), paths[3]


@pytest.mark.parametrize('kind', sorted(KINDS))
def test_functions_match_chainer(chainer_run, kind):
    calls, _, theirs, _ = chainer_run
    hy, cy, ys = call(kind, *calls[kind])
    np.testing.assert_allclose(hy.array, theirs[kind + '/hy'], rtol=1e-5, atol=1e-6)
    if cy is not None:
        np.testing.assert_allclose(cy.array, theirs[kind + '/cy'], rtol=1e-5, atol=1e-6)
    assert len(ys) == max(LENGTHS)
    for t, y in enumerate(ys):
        np.testing.assert_allclose(y.array, theirs['%s/y/%d' % (kind, t)], rtol=1e-5, atol=1e-6)


def test_npz_interchanges_with_chainer(chainer_run, tmp_path):
    _, link_seqs, theirs, chainer_npz = chainer_run
    link = L.NStepBiLSTM(2, 3, 2, 0.0)
    serializers.load_npz(str(chainer_npz), link)
    hy, cy, ys = link(None, None, link_seqs)
    np.testing.assert_allclose(hy.array, theirs['link/hy'], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(cy.array, theirs['link/cy'], rtol=1e-5, atol=1e-6)
    for i, y in enumerate(ys):
        np.testing.assert_allclose(y.array, theirs['link/y/%d' % i], rtol=1e-5, atol=1e-6)
    ours = tmp_path / 'ours.npz'
    serializers.save_npz(str(ours), link)
    with np.load(str(ours)) as a, np.load(str(chainer_npz)) as b:
        assert sorted(a.files) == sorted(b.files) == expected_keys(2, 2, 8)
        for key in a.files:
            assert a[key].shape == b[key].shape and a[key].dtype == b[key].dtype, key
            np.testing.assert_array_equal(a[key], b[key])


def test_npz_keys_without_chainer(tmp_path):
    """Chainer's documented names: '<child>/w<j>' and '<child>/b<j>' (ChainList children 0, 1, ...)."""
    path = tmp_path / 'gru.npz'
    serializers.save_npz(str(path), L.NStepBiGRU(1, 3, 2, 0.0))
    with np.load(str(path)) as f:
        assert sorted(f.files) == expected_keys(1, 2, 6)
        assert f['0/w0'].shape == (2, 3) and f['1/w5'].shape == (2, 2) and f['1/b2'].shape == (2,)
