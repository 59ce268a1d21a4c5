"""Issue 23, normalizations and losses: F.batch_renormalization, F.fixed_batch_renormalization,
F.decorrelated_batch_normalization, F.fixed_decorrelated_batch_normalization, F.black_out,
F.crf1d, F.argmax_crf1d, F.cross_covariance, F.decov,
F.discriminative_margin_based_clustering_loss and the links BatchRenormalization,
DecorrelatedBatchNormalization, BlackOut, CRF1d and BinaryHierarchicalSoftmax.

Gradients go through rensa.gradient_check; values, paths, running statistics and NPZ files
are compared with real Chainer 7.8.1 where it is installed (chainer_style_harness's
chainer_python): one Chainer run computes every reference from the same inputs, and the
links load the NPZ files Chainer saved.
"""
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

CRF_BATCHES = (3, 3, 2, 1)
TREE = ((0, 1), (2, (3, 4)))


def inputs():
    """Every input of the Chainer comparison, from one RandomState."""
    rng = np.random.RandomState(23)
    u = lambda *s: rng.uniform(-1, 1, s).astype(np.float32)  # noqa: E731
    d = {
        'cc_y': u(5, 3), 'cc_z': u(5, 4), 'decov_h': u(6, 4),
        'bo_x': u(4, 3), 'bo_W': u(5, 3),
        'bo_t': np.array([1, 4, 0, 3], np.int32),
        'bo_s': np.array([[0, 2], [3, 1], [4, 2], [1, 1]], np.int32),
        'crf_cost': u(3, 3),
        'dml_e': u(3, 3, 2, 3),  # Chainer's code needs N == max_embedding_dim (or N == 1)
        'dml_l': rng.randint(0, 5, (3, 2, 3)).astype(np.int32),
        'br_x': u(5, 3, 2), 'br_g': rng.uniform(0.5, 1.5, 3).astype(np.float32), 'br_b': u(3),
        'br_rm': u(3), 'br_rv': rng.uniform(0.05, 0.5, 3).astype(np.float32),
        'hs_x': u(4, 3), 'hs_t': np.array([0, 4, 2, 3], np.int32),
        'dbn_x': u(5, 4, 2), 'dbn_gy': u(5, 4, 2),
    }
    for i, b in enumerate(CRF_BATCHES):
        d['crf_x%d' % i] = u(b, 3)
        d['crf_y%d' % i] = rng.randint(0, 3, b).astype(np.int32)
    return d


def crf_args(d):
    n = len(CRF_BATCHES)
    return [d['crf_x%d' % i] for i in range(n)], [d['crf_y%d' % i] for i in range(n)]


# The same calls on real Chainer; arrays saved to out.npz, link files beside it.
CHAINER_SCRIPT = r'''
import sys
import numpy as np
import chainer
import chainer.functions as F
import chainer.links as L
d = dict(np.load(sys.argv[1]))
out_dir = sys.argv[2]
o = {}
n = %(steps)d
xs = [d['crf_x%%d' %% i] for i in range(n)]
ys = [d['crf_y%%d' %% i] for i in range(n)]
for r in ('half_squared_sum', 'no'):
    o['cc_' + r] = F.cross_covariance(d['cc_y'], d['cc_z'], reduce=r).array
    o['decov_' + r] = F.decov(d['decov_h'], reduce=r).array
for r in ('mean', 'no'):
    o['bo_' + r] = F.black_out(d['bo_x'], d['bo_t'], d['bo_W'], d['bo_s'], reduce=r).array
    o['crf_' + r] = F.crf1d(d['crf_cost'], xs, ys, reduce=r).array
score, path = F.argmax_crf1d(d['crf_cost'], xs)
o['crf_score'] = score.array
for i, p in enumerate(path):
    o['crf_path%%d' %% i] = p
for p in (1, 2):
    terms = F.discriminative_margin_based_clustering_loss(d['dml_e'], d['dml_l'], 0.3, 0.8, 3, norm=p,
                                                          alpha=1.0, beta=0.5, gamma=0.1)
    o['dml_%%d' %% p] = np.array([float(t.array) for t in terms])
rm, rv = d['br_rm'].copy(), d['br_rv'].copy()
x = chainer.Variable(d['br_x'])
y = F.batch_renormalization(x, d['br_g'], d['br_b'], 1.5, 0.5, running_mean=rm, running_var=rv,
                            update_statistics=True)
F.sum(y * y).backward()
o['br_y'], o['br_gx'], o['br_rm'], o['br_rv'] = y.array, x.grad, rm, rv
rm, rp = np.zeros((2, 2), np.float32), np.tile(np.eye(2, dtype=np.float32), (2, 1, 1))
x = chainer.Variable(d['dbn_x'])
y = F.decorrelated_batch_normalization(x, groups=2, running_mean=rm, running_projection=rp)
F.sum(y * d["dbn_gy"]).backward()
o['dbn_y'], o['dbn_gx'], o['dbn_rm'], o['dbn_rp'] = y.array, x.grad, rm, rp
o['fdbn_y'] = F.fixed_decorrelated_batch_normalization(d['dbn_x'], rm, rp, groups=2).array
# Links: values and NPZ files.
dbn = L.DecorrelatedBatchNormalization(4, groups=2)
o['dbnl_train'] = dbn(d['dbn_x']).array
with chainer.using_config('train', False):
    o['dbnl_test'] = dbn(d['dbn_x']).array
chainer.serializers.save_npz(out_dir + '/dbn.npz', dbn)
br = L.BatchRenormalization(3, rmax=1.5, dmax=0.5)
br.gamma.array[:] = d['br_g']
br.avg_mean[:] = d['br_rm']
br.avg_var[:] = d['br_rv']
o['brl_y'] = br(d['br_x']).array
chainer.serializers.save_npz(out_dir + '/br.npz', br)
crf = L.CRF1d(3)
crf.cost.array[:] = d['crf_cost']
seqs = [d['crf_x0'][:2], d['crf_x1'], d['crf_x2'][:1]]
labels = [d['crf_y0'][:2], d['crf_y1'], d['crf_y2'][:1]]
o['crfl_loss'] = crf(seqs, labels, reduce='no', transpose=True).array
score, path = crf.argmax(seqs, transpose=True)
o['crfl_score'] = score.array
for i, p in enumerate(path):
    o['crfl_path%%d' %% i] = p
chainer.serializers.save_npz(out_dir + '/crf.npz', crf)
hs = L.BinaryHierarchicalSoftmax(3, %(tree)r)
o['hs_y'] = hs(d['hs_x'], d['hs_t']).array
chainer.serializers.save_npz(out_dir + '/hs.npz', hs)
bo = L.BlackOut(3, [1, 2, 3, 4, 5], 2)
bo.W.array[:] = d['bo_W']
bo.sample_data = d['bo_s']
o['bol_y'] = bo(d['bo_x'], d['bo_t']).array
chainer.serializers.save_npz(out_dir + '/bo.npz', bo)
o['huffman'] = np.array(repr(L.BinaryHierarchicalSoftmax.create_huffman_tree({'a': 3, 'b': 1, 'c': 2, 'd': 5})))
np.savez(out_dir + '/out.npz', **o)
''' % {'steps': len(CRF_BATCHES), 'tree': TREE}


@pytest.fixture(scope='module')
def chainer_out(tmp_path_factory):
    python = chainer_python()
    if python is None:
        pytest.skip('real Chainer not installed (RENSA_CHAINER_PYTHON or .venv-chainermn)')
    tmp = tmp_path_factory.mktemp('chainer')
    np.savez(str(tmp / 'in.npz'), **inputs())
    (tmp / 'run.py').write_text(CHAINER_SCRIPT)
    env = dict(os.environ, PYTHONWARNINGS='ignore', CHAINER_WARN_VERSION_MISMATCH='0')
    env.pop('PYTHONPATH', None)
    subprocess.run([python, str(tmp / 'run.py'), str(tmp / 'in.npz'), str(tmp)], check=True, env=env,
                   cwd=str(tmp), timeout=120)
    return tmp, dict(np.load(str(tmp / 'out.npz')))


def close(y, ref, tol=1e-5):
    a = y.array if isinstance(y, rensa.Variable) else y
    np.testing.assert_allclose(np.asarray(a, np.float64), ref, rtol=tol, atol=tol)


# --- values against Chainer ---------------------------------------------------------------

def test_losses_match_chainer(chainer_out):
    _, o = chainer_out
    d = inputs()
    xs, ys = crf_args(d)
    for r in ('half_squared_sum', 'no'):
        close(F.cross_covariance(d['cc_y'], d['cc_z'], reduce=r), o['cc_' + r])
        close(F.decov(d['decov_h'], reduce=r), o['decov_' + r])
    for r in ('mean', 'no'):
        close(F.black_out(d['bo_x'], d['bo_t'], d['bo_W'], d['bo_s'], reduce=r), o['bo_' + r])
        close(F.crf1d(d['crf_cost'], xs, ys, reduce=r), o['crf_' + r])
    score, path = F.argmax_crf1d(d['crf_cost'], xs)
    close(score, o['crf_score'])
    assert len(path) == len(CRF_BATCHES)
    for i, p in enumerate(path):
        np.testing.assert_array_equal(p, o['crf_path%d' % i])
    for p in (1, 2):
        terms = F.discriminative_margin_based_clustering_loss(d['dml_e'], d['dml_l'], 0.3, 0.8, 3, norm=p,
                                                              alpha=1.0, beta=0.5, gamma=0.1)
        assert isinstance(terms, tuple) and len(terms) == 3
        close(np.array([float(t.array) for t in terms]), o['dml_%d' % p])


def test_batch_renormalization_matches_chainer(chainer_out):
    _, o = chainer_out
    d = inputs()
    rm, rv = d['br_rm'].copy(), d['br_rv'].copy()
    x = rensa.Variable(d['br_x'])
    y = F.batch_renormalization(x, d['br_g'], d['br_b'], 1.5, 0.5, running_mean=rm, running_var=rv,
                                update_statistics=True)
    F.sum(y * y).backward()
    close(y, o['br_y'])
    close(x.grad, o['br_gx'], 1e-4)
    close(rm, o['br_rm'])
    close(rv, o['br_rv'])


def test_decorrelated_batch_normalization_matches_chainer(chainer_out):
    tmp, o = chainer_out
    d = inputs()
    rm, rp = np.zeros((2, 2), np.float32), np.tile(np.eye(2, dtype=np.float32), (2, 1, 1))
    x = rensa.Variable(d['dbn_x'])
    y = F.decorrelated_batch_normalization(x, groups=2, running_mean=rm, running_projection=rp)
    F.sum(y * d['dbn_gy']).backward()
    close(y, o['dbn_y'], 1e-4)
    close(x.grad, o['dbn_gx'], 1e-3)
    close(rm, o['dbn_rm'])
    close(rp, o['dbn_rp'], 1e-4)
    close(F.fixed_decorrelated_batch_normalization(d['dbn_x'], rm, rp, groups=2), o['fdbn_y'], 1e-4)
    dbn = L.DecorrelatedBatchNormalization(4, groups=2)
    close(dbn(d['dbn_x']), o['dbnl_train'], 1e-4)
    loaded = L.DecorrelatedBatchNormalization(4, groups=2)
    serializers.load_npz(str(tmp / 'dbn.npz'), loaded)
    with rensa.using_config('train', False):
        close(loaded(d['dbn_x']), o['dbnl_test'], 1e-4)
    saved = tmp / 'rensa_dbn.npz'
    serializers.save_npz(str(saved), loaded)
    assert sorted(np.load(str(saved)).files) == sorted(np.load(str(tmp / 'dbn.npz')).files)


def test_links_load_chainer_npz(chainer_out):
    tmp, o = chainer_out
    d = inputs()
    br = L.BatchRenormalization(3, rmax=1.5, dmax=0.5)
    serializers.load_npz(str(tmp / 'br.npz'), br)
    # The file holds the statistics after Chainer's step; the step from the initial ones:
    br.avg_mean[:] = d['br_rm']
    br.avg_var[:] = d['br_rv']
    close(br(d['br_x']), o['brl_y'])

    crf = L.CRF1d(3)
    serializers.load_npz(str(tmp / 'crf.npz'), crf)
    seqs = [d['crf_x0'][:2], d['crf_x1'], d['crf_x2'][:1]]
    labels = [d['crf_y0'][:2], d['crf_y1'], d['crf_y2'][:1]]
    close(crf(seqs, labels, reduce='no', transpose=True), o['crfl_loss'])
    score, path = crf.argmax(seqs, transpose=True)
    close(score, o['crfl_score'])
    for i, p in enumerate(path):
        np.testing.assert_array_equal(p, o['crfl_path%d' % i])

    hs = L.BinaryHierarchicalSoftmax(3, TREE)
    serializers.load_npz(str(tmp / 'hs.npz'), hs)
    close(hs(d['hs_x'], d['hs_t']), o['hs_y'])

    bo = L.BlackOut(3, [1, 2, 3, 4, 5], 2)
    serializers.load_npz(str(tmp / 'bo.npz'), bo)
    bo.sample_data = d['bo_s']
    close(bo(d['bo_x'], d['bo_t']), o['bol_y'])

    for link, name in ((br, 'br'), (crf, 'crf'), (hs, 'hs'), (bo, 'bo')):
        saved = tmp / ('rensa_' + name + '.npz')
        serializers.save_npz(str(saved), link)
        assert sorted(np.load(str(saved)).files) == sorted(np.load(str(tmp / (name + '.npz'))).files)


def test_create_huffman_tree(chainer_out):
    _, o = chainer_out
    tree = L.BinaryHierarchicalSoftmax.create_huffman_tree({'a': 3, 'b': 1, 'c': 2, 'd': 5})
    assert repr(tree) == str(o['huffman'])


def test_huffman_tree_without_chainer():
    # Chainer 7.8.1 gives ((0, (1, 2)), (3, 4)) for these counts.
    assert L.BinaryHierarchicalSoftmax.create_huffman_tree({0: 3, 1: 1, 2: 2, 3: 5, 4: 5}) == ((0, (1, 2)), (3, 4))
    with pytest.raises(ValueError, match='Empty vocabulary'):
        L.BinaryHierarchicalSoftmax.create_huffman_tree({})


# --- gradients ------------------------------------------------------------------------------

def rand(rng, *shape):
    return rng.uniform(-1, 1, shape)


def test_gradients():
    rng = np.random.RandomState(5)
    gradient_check.check_backward(lambda y, z: F.cross_covariance(y, z), (rand(rng, 5, 3), rand(rng, 5, 4)), None,
                                  dtype=np.float64)
    gradient_check.check_backward(lambda h: F.decov(h, reduce='no'), (rand(rng, 6, 4),), rand(rng, 4, 4),
                                  dtype=np.float64)
    t = np.array([1, 4, 0], np.int32)
    s = np.array([[0, 2], [3, 1], [4, 2]], np.int32)
    gradient_check.check_backward(lambda x, W: F.black_out(x, t, W, s, reduce='no'),
                                  (rand(rng, 3, 4), rand(rng, 5, 4)), rand(rng, 3), dtype=np.float64)
    steps = [rand(rng, b, 3) for b in CRF_BATCHES]
    labels = [np.arange(b, dtype=np.int32) % 3 for b in CRF_BATCHES]
    gradient_check.check_backward(lambda c, *xs: F.crf1d(c, list(xs), labels), [rand(rng, 3, 3)] + steps, None,
                                  dtype=np.float64)
    gradient_check.check_backward(lambda c, *xs: F.argmax_crf1d(c, list(xs))[0], [rand(rng, 3, 3)] + steps,
                                  rand(rng, 3), dtype=np.float64)
    labels4 = rng.randint(0, 4, (2, 2, 3)).astype(np.int32)
    gradient_check.check_backward(
        lambda e: F.discriminative_margin_based_clustering_loss(e, labels4, 0.3, 0.8, 3), (rand(rng, 2, 3, 2, 3),),
        (np.float64(1), np.float64(0.5), np.float64(2)), dtype=np.float64)
    gradient_check.check_backward(lambda x: F.decorrelated_batch_normalization(x, groups=2), (rand(rng, 5, 4, 2),),
                                  rand(rng, 5, 4, 2), dtype=np.float64, atol=1e-4, rtol=1e-3)
    rm, rv = np.array([2., -2., 2.]), np.array([0.01, 0.02, 0.01])  # r and d clipped: constant near x
    gradient_check.check_backward(
        lambda x, g, b: F.batch_renormalization(x, g, b, 1.5, 0.5, running_mean=rm, running_var=rv),
        (rand(rng, 4, 3, 2), rng.uniform(0.5, 1.5, 3), rand(rng, 3)), rand(rng, 4, 3, 2), dtype=np.float64)


def test_link_gradients():
    rng = np.random.RandomState(6)
    hs = L.BinaryHierarchicalSoftmax(3, TREE, dtype=np.float64)
    t = np.array([0, 4, 2, 3], np.int32)
    gradient_check.check_backward(lambda x: hs(x, t), (rand(rng, 4, 3),), None, params=(hs.W,), dtype=np.float64)
    crf = L.CRF1d(3)
    crf.cost.array[:] = rand(rng, 3, 3)
    seqs = [rand(rng, 2, 3).astype(np.float32), rand(rng, 3, 3).astype(np.float32)]
    labels = [np.array([0, 2], np.int32), np.array([1, 1, 0], np.int32)]
    loss = crf(seqs, labels, transpose=True)
    loss.backward()
    assert crf.cost.grad is not None and np.isfinite(crf.cost.grad).all()


# --- signatures and errors -----------------------------------------------------------------

def test_defaults_and_errors():
    x = np.zeros((4, 3), np.float32)
    g, b = np.ones(3, np.float32), np.zeros(3, np.float32)
    with pytest.raises(TypeError, match='running_mean is required'):
        F.batch_renormalization(x, g, b, 1, 0)
    y = F.fixed_batch_renormalization(x, g, b, np.zeros(3, np.float32), np.ones(3, np.float32))
    close(y, np.zeros((4, 3)), 1e-4)
    with pytest.raises(ValueError, match="only 'half_squared_sum' and 'no' are valid"):
        F.decov(x, reduce='mean')
    with pytest.raises(ValueError, match="black_out: only 'mean' and 'no' are valid"):
        F.black_out(x, np.zeros(4, np.int32), x, np.zeros((4, 2), np.int32), reduce='sum')
    with pytest.raises(ValueError, match='norm in'):
        F.discriminative_margin_based_clustering_loss(np.zeros((1, 2, 2, 2), np.float32),
                                                      np.zeros((1, 2, 2), np.int32), 0.5, 1.5, 2, norm=3)
    with pytest.raises(ValueError, match='two child nodes'):
        L.BinaryHierarchicalSoftmax(3, ((0, 1, 2), 3))
    bo = L.BlackOut(3, [1, 2, 3], 2)
    assert np.isnan(bo.W.array).all() and bo.W.shape == (3, 3)
    assert bo.sample_data is None
    crf = L.CRF1d(4)
    assert (crf.cost.array == 0).all()
    br = L.BatchRenormalization(3)
    assert isinstance(br, L.BatchNormalization) and br.rmax == 1 and br.dmax == 0
    br(np.ones((4, 3), np.float32), True)  # finetune, positionally as in Chainer
    assert br.N == 1
