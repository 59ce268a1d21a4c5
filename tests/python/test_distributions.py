"""chainer.distributions on rensa: every distribution's statistics and densities against
closed forms written with numpy and math, the KL divergence registry, sample shapes and
moments; and the values of the special functions they are built on (F.lgamma, F.digamma,
F.polygamma, F.log_ndtr, F.ndtri, F.erfinv). Gradients: test_distributions_grad.py."""
import math

import numpy as np
import pytest

import rensa as chainer
import rensa.distributions as D
import rensa.functions as F

from distributions_testing import RS, close, digamma_ref, erf_ref, f64, lgamma_ref, tril


# ---- Special functions -----------------------------------------------------------------

def test_special_functions_values():
    x = f64(7, low=0.2, high=6.0)
    close(F.lgamma(x), lgamma_ref(x), rtol=1e-12)
    close(F.digamma(x), digamma_ref(x), rtol=1e-8, atol=1e-8)
    close(F.polygamma(np.array(0, np.int32), x), digamma_ref(x), rtol=1e-8, atol=1e-8)
    trigamma = np.array([sum(1.0 / (v + k) ** 2 for k in range(200000)) + 1.0 / (v + 200000) for v in x[:2]])
    close(F.polygamma(np.ones(2, np.int32), x[:2]), trigamma, rtol=1e-9)
    z = f64(9, low=-8.0, high=4.0)
    close(F.log_ndtr(z), np.log(0.5 * np.vectorize(math.erfc)(-z / math.sqrt(2))), rtol=1e-12)
    p = f64(9, low=0.01, high=0.99)
    close(0.5 * (1 + erf_ref(F.ndtri(p).array / math.sqrt(2))), p, rtol=1e-12)
    e = f64(9, low=-0.99, high=0.99)
    close(erf_ref(F.erfinv(e).array), e, rtol=1e-12)
    assert F.erfinv(np.array(1.0, np.float32)).array == np.inf and np.isnan(F.ndtri(np.array(1.5)).array)
    assert F.lgamma(np.zeros(3, np.float32)).dtype == np.float32
    assert F.polygamma(np.array(2, np.int32), np.ones(3, np.float32)).dtype == np.float32


# ---- Values against closed forms ---------------------------------------------------------

def test_normal():
    loc, scale, x = f64(2, 3), f64(2, 3, low=0.5, high=2.0), f64(2, 3, low=-2, high=2)
    d = D.Normal(loc, scale)
    assert d.batch_shape == (2, 3) and d.event_shape == ()
    close(d.log_prob(x), -0.5 * np.log(2 * np.pi) - np.log(scale) - (x - loc) ** 2 / (2 * scale ** 2))
    close(d.prob(x), np.exp(-(x - loc) ** 2 / (2 * scale ** 2)) / (scale * np.sqrt(2 * np.pi)))
    cdf = 0.5 * (1 + erf_ref((x - loc) / (scale * np.sqrt(2))))
    close(d.cdf(x), cdf)
    close(d.log_cdf(x), np.log(cdf))
    close(d.survival_function(x), 1 - cdf)
    close(d.log_survival_function(x), np.log(1 - cdf))
    close(d.icdf(cdf), x, rtol=1e-9)
    close(d.entropy, 0.5 * np.log(2 * np.pi * np.e * scale ** 2))
    close(d.mean, loc)
    close(d.stddev, scale)
    close(d.variance, scale ** 2)
    by_log = D.Normal(loc, log_scale=np.log(scale))
    close(by_log.scale, scale)
    close(by_log.log_prob(x), d.log_prob(x))
    assert set(d.params) == {'loc', 'scale'} and d.support == 'real'
    with pytest.raises(ValueError):
        D.Normal(loc, scale, log_scale=np.log(scale))
    with pytest.raises(ValueError):
        D.Normal(loc)


def test_bernoulli():
    p = f64(4, low=0.1, high=0.9)
    x = np.array([0., 1., 1., 0.])
    for d in (D.Bernoulli(p), D.Bernoulli(logit=np.log(p / (1 - p)))):
        close(d.log_prob(x), x * np.log(p) + (1 - x) * np.log(1 - p))
        close(d.prob(x), np.where(x == 1, p, 1 - p))
        close(d.entropy, -p * np.log(p) - (1 - p) * np.log(1 - p))
        close(d.mean, p)
        close(d.variance, p * (1 - p))
        close(d.stddev, np.sqrt(p * (1 - p)))
    checked = D.Bernoulli(p, binary_check=True)
    lp = checked.log_prob(np.array([0., 0.5, 1., 2.])).array
    assert np.isinf(lp[1]) and lp[1] < 0 and np.isinf(lp[3]) and np.isfinite(lp[[0, 2]]).all()
    close(checked.prob(np.array([0., 0.5, 1., 2.])), [1 - p[0], 0, p[2], 0])
    extreme = D.Bernoulli(logit=np.array([np.inf, -np.inf, np.inf]))
    close(extreme.log_prob(np.array([1., 0., 0.])), [0., 0., -np.inf])
    close(D.Bernoulli(np.array([0., 1.])).entropy, [0., 0.])  # x log x taken as 0 at 0
    with pytest.raises(ValueError):
        D.Bernoulli(p, logit=p)


def test_categorical():
    logit = f64(2, 4)
    p = np.exp(logit) / np.exp(logit).sum(-1, keepdims=True)
    x = np.array([[3, 0], [1, 2], [0, 0]])  # (samples, batch)
    for d in (D.Categorical(p), D.Categorical(logit=logit)):
        assert d.batch_shape == (2,) and d.event_shape == ()
        close(d.log_prob(x), np.log(p[np.arange(2)[None], x]))
        close(d.entropy, -(p * np.log(p)).sum(-1))
    samples = D.Categorical(p).sample(5)
    assert samples.shape == (5, 2) and ((samples.array >= 0) & (samples.array < 4)).all()


def test_uniform():
    low, high = f64(3), f64(3, low=1.5, high=3)
    x = np.array([low[0] - 0.1, (low[1] + high[1]) / 2, high[2] + 0.1])
    for d in (D.Uniform(low=low, high=high), D.Uniform(loc=low, scale=high - low)):
        close(d.log_prob(x), [-np.inf, -np.log(high[1] - low[1]), -np.inf])
        close(d.cdf(x), np.clip((x - low) / (high - low), 0, 1))
        close(d.icdf(np.full(3, 0.25)), low + 0.25 * (high - low))
        close(d.mean, (low + high) / 2)
        close(d.variance, (high - low) ** 2 / 12)
        close(d.stddev, (high - low) / np.sqrt(12))
        close(d.entropy, np.log(high - low))
    with pytest.raises(ValueError):
        D.Uniform(low=low)


def test_laplace():
    loc, scale, x = f64(4), f64(4, low=0.5, high=2), f64(4, low=-3, high=3)
    d = D.Laplace(loc, scale)
    z = (x - loc) / scale
    close(d.log_prob(x), -np.log(2 * scale) - np.abs(z))
    close(d.prob(x), np.exp(-np.abs(z)) / (2 * scale))
    cdf = np.where(z < 0, 0.5 * np.exp(z), 1 - 0.5 * np.exp(-z))
    close(d.cdf(x), cdf)
    close(d.icdf(cdf), x, rtol=1e-9)
    close(d.entropy, 1 + np.log(2 * scale))
    close(d.variance, 2 * scale ** 2)
    close(d.stddev, np.sqrt(2) * scale)
    close(d.mode, loc)


def test_log_normal():
    mu, sigma, x = f64(3), f64(3, low=0.5, high=1.5), f64(3, low=0.2, high=4)
    d = D.LogNormal(mu, sigma)
    close(d.log_prob(x), -np.log(x * sigma * np.sqrt(2 * np.pi)) - (np.log(x) - mu) ** 2 / (2 * sigma ** 2))
    close(d.mean, np.exp(mu + sigma ** 2 / 2))
    close(d.variance, (np.exp(sigma ** 2) - 1) * np.exp(2 * mu + sigma ** 2))
    close(d.entropy, mu + 0.5 + np.log(sigma * np.sqrt(2 * np.pi)))


def test_beta():
    a, b, x = f64(4, low=0.5, high=3), f64(4, low=0.5, high=3), f64(4, low=0.05, high=0.95)
    d = D.Beta(a, b)
    lbeta = lgamma_ref(a) + lgamma_ref(b) - lgamma_ref(a + b)
    close(d.log_prob(x), (a - 1) * np.log(x) + (b - 1) * np.log(1 - x) - lbeta)
    assert d.log_prob(np.array([-0.5, 0.5, 0.5, 1.5])).array[[0, 3]].tolist() == [-np.inf, -np.inf]
    close(d.mean, a / (a + b))
    close(d.variance, a * b / ((a + b) ** 2 * (a + b + 1)))
    close(d.entropy, lbeta - (a - 1) * digamma_ref(a) - (b - 1) * digamma_ref(b)
          + (a + b - 2) * digamma_ref(a + b), rtol=1e-7)


def test_gamma():
    k, theta, x = f64(4, low=0.5, high=3), f64(4, low=0.5, high=2), f64(4, low=0.1, high=5)
    d = D.Gamma(k, theta)
    close(d.log_prob(x), (k - 1) * np.log(x) - x / theta - lgamma_ref(k) - k * np.log(theta))
    assert d.log_prob(np.array([-1., 1., 1., 1.])).array[0] == -np.inf
    close(d.mean, k * theta)
    close(d.variance, k * theta ** 2)
    close(d.entropy, k + np.log(theta) + lgamma_ref(k) + (1 - k) * digamma_ref(k), rtol=1e-7)


def test_poisson():
    lam, x = f64(4, low=0.5, high=4), np.array([0., 1., 3., 7.])
    d = D.Poisson(lam)
    close(d.log_prob(x), x * np.log(lam) - lam - lgamma_ref(x + 1))
    close(d.mean, lam)
    close(d.variance, lam)


def test_dirichlet():
    alpha = f64(2, 3, low=0.5, high=3)
    x = RS.dirichlet([1, 2, 3], size=2)
    d = D.Dirichlet(alpha)
    assert d.batch_shape == (2,) and d.event_shape == (3,)
    a0 = alpha.sum(-1)
    lbeta = lgamma_ref(alpha).sum(-1) - lgamma_ref(a0)
    close(d.log_prob(x), ((alpha - 1) * np.log(x)).sum(-1) - lbeta)
    close(d.mean, alpha / a0[:, None])
    close(d.variance, alpha * (a0[:, None] - alpha) / (a0[:, None] ** 2 * (a0[:, None] + 1)))
    close(d.entropy, lbeta + (a0 - 3) * digamma_ref(a0) - ((alpha - 1) * digamma_ref(alpha)).sum(-1), rtol=1e-7)



def test_multivariate_normal():
    loc, lower, x = f64(2, 3), tril((2,), 3), f64(4, 2, 3)
    d = D.MultivariateNormal(loc, scale_tril=lower)
    assert d.batch_shape == (2,) and d.event_shape == (3,) and d.d == 3
    cov = lower @ np.swapaxes(lower, -1, -2)
    close(d.covariance, cov)
    diff = x - loc
    maha = np.einsum('sbi,bij,sbj->sb', diff, np.linalg.inv(cov), diff)
    logdet = np.log(np.linalg.det(cov))
    close(d.log_prob(x), -0.5 * (3 * np.log(2 * np.pi) + logdet + maha), rtol=1e-9)
    close(d.entropy, 0.5 * (3 * np.log(2 * np.pi * np.e) + logdet))
    close(d.mean, loc)
    with pytest.raises(ValueError):
        D.MultivariateNormal(loc)


def test_independent():
    loc, scale, x = f64(2, 3), f64(2, 3, low=0.5, high=2), f64(5, 2, 3)
    base = D.Normal(loc, scale)
    d = D.Independent(base)
    assert d.batch_shape == (2,) and d.event_shape == (3,) and d.reinterpreted_batch_ndims == 1
    close(d.log_prob(x), base.log_prob(x).array.sum(-1))
    close(d.entropy, base.entropy.array.sum(-1))
    close(d.prob(x), base.prob(x).array.prod(-1))
    close(d.cdf(x), base.cdf(x).array.prod(-1))
    close(d.mean, loc)
    close(d.variance, scale ** 2)
    assert D.Independent(base, 0).batch_shape == (2, 3)
    both = D.Independent(base, 2)
    assert both.batch_shape == () and both.event_shape == (2, 3)
    with pytest.raises(ValueError):
        D.Independent(base, 3)
    mvn = D.MultivariateNormal(f64(2, 3), scale_tril=tril((2,), 3))
    cov = D.Independent(mvn, 1).covariance.array
    assert cov.shape == (6, 6)
    close(cov[:3, :3], mvn.covariance.array[0])
    close(cov[3:, 3:], mvn.covariance.array[1])
    close(cov[:3, 3:], np.zeros((3, 3)))


# ---- KL divergences -----------------------------------------------------------------------

def kl_monte_carlo_free_cases():
    """(p, q, expected KL(p || q)) with the expected value from a closed form in numpy."""
    m1, m2, s1, s2 = f64(3), f64(3), f64(3, low=0.5, high=2), f64(3, low=0.5, high=2)
    p1, p2 = f64(3, low=0.1, high=0.9), f64(3, low=0.1, high=0.9)
    c1, c2 = RS.dirichlet([1, 1, 1], 2), RS.dirichlet([2, 1, 1], 2)
    a1, b1, a2, b2 = (f64(3, low=0.5, high=3) for _ in range(4))
    lam1, lam2 = f64(3, low=0.5, high=3), f64(3, low=0.5, high=3)
    lb = lambda a, b: lgamma_ref(a) + lgamma_ref(b) - lgamma_ref(a + b)  # noqa: E731
    al1, al2 = f64(2, 3, low=0.5, high=3), f64(2, 3, low=0.5, high=3)
    lbd = lambda a: lgamma_ref(a).sum(-1) - lgamma_ref(a.sum(-1))  # noqa: E731
    return [
        (D.Normal(m1, s1), D.Normal(m2, s2), np.log(s2 / s1) + (s1 ** 2 + (m1 - m2) ** 2) / (2 * s2 ** 2) - 0.5),
        (D.Bernoulli(p1), D.Bernoulli(p2), p1 * np.log(p1 / p2) + (1 - p1) * np.log((1 - p1) / (1 - p2))),
        (D.Categorical(c1), D.Categorical(c2), (c1 * np.log(c1 / c2)).sum(-1)),
        (D.Uniform(low=m1 - s1, high=m1 + s1), D.Uniform(low=m1 - 2 * s1, high=m1 + 3 * s1), np.log(5 / 2) + 0 * m1),
        (D.Laplace(m1, s1), D.Laplace(m2, s2),
         np.log(s2 / s1) + np.abs(m1 - m2) / s2 + s1 / s2 * np.exp(-np.abs(m1 - m2) / s1) - 1),
        (D.LogNormal(m1, s1), D.LogNormal(m2, s2), np.log(s2 / s1) + (s1 ** 2 + (m1 - m2) ** 2) / (2 * s2 ** 2) - 0.5),
        (D.Beta(a1, b1), D.Beta(a2, b2), lb(a2, b2) - lb(a1, b1) + (a1 - a2) * digamma_ref(a1)
         + (b1 - b2) * digamma_ref(b1) + (a2 - a1 + b2 - b1) * digamma_ref(a1 + b1)),
        (D.Gamma(a1, b1), D.Gamma(a2, b2), (a1 - a2) * digamma_ref(a1) - lgamma_ref(a1) + lgamma_ref(a2)
         + a2 * np.log(b2 / b1) + a1 * (b1 - b2) / b2),
        (D.Poisson(lam1), D.Poisson(lam2), lam1 * np.log(lam1 / lam2) - lam1 + lam2),
        (D.Dirichlet(al1), D.Dirichlet(al2), lbd(al2) - lbd(al1) + ((al1 - al2) * (
            digamma_ref(al1) - digamma_ref(al1.sum(-1))[:, None])).sum(-1)),
    ]


def test_kl_divergence_closed_forms():
    for p, q, expected in kl_monte_carlo_free_cases():
        close(chainer.kl_divergence(p, q), expected, rtol=1e-7, atol=1e-9)
        close(chainer.kl_divergence(p, p), np.zeros(np.shape(expected)), atol=1e-9)
    outside = chainer.kl_divergence(D.Uniform(low=np.zeros(1), high=np.full(1, 2.)),
                                    D.Uniform(low=np.zeros(1), high=np.ones(1)))
    assert outside.array[0] == np.inf


def test_kl_multivariate_normal_and_independent():
    l1, l2, m1, m2 = tril((2,), 3), tril((2,), 3), f64(2, 3), f64(2, 3)
    c1, c2 = l1 @ np.swapaxes(l1, -1, -2), l2 @ np.swapaxes(l2, -1, -2)
    inv2 = np.linalg.inv(c2)
    diff = m2 - m1
    expected = 0.5 * (np.trace(inv2 @ c1, axis1=-2, axis2=-1) + np.einsum('bi,bij,bj->b', diff, inv2, diff) - 3
                      + np.log(np.linalg.det(c2) / np.linalg.det(c1)))
    kl = chainer.kl_divergence(D.MultivariateNormal(m1, scale_tril=l1), D.MultivariateNormal(m2, scale_tril=l2))
    close(kl, expected, rtol=1e-9)
    s1, s2 = f64(2, 3, low=0.5, high=2), f64(2, 3, low=0.5, high=2)
    ind = chainer.kl_divergence(D.Independent(D.Normal(m1, s1)), D.Independent(D.Normal(m2, s2)))
    close(ind, chainer.kl_divergence(D.Normal(m1, s1), D.Normal(m2, s2)).array.sum(-1))
    with pytest.raises(ValueError):
        chainer.kl_divergence(D.Independent(D.Normal(m1, s1)), D.Independent(D.Normal(f64(2, 4), f64(2, 4))))


def test_register_kl_and_cross_entropy():
    class Point(chainer.Distribution):
        def __init__(self, at):
            self.at = chainer.as_variable(at)

        @property
        def entropy(self):
            return self.at * 0

    @chainer.distributions.register_kl(Point, Point)
    def kl_point(p, q):
        return abs(p.at - q.at)

    assert kl_point is not None  # the decorator returns the function
    close(chainer.kl_divergence(Point(np.ones(2)), Point(np.zeros(2))), [1., 1.])
    close(chainer.cross_entropy(Point(np.ones(2)), Point(np.zeros(2))), [1., 1.])
    assert chainer.register_kl is chainer.distributions.register_kl
    with pytest.raises(NotImplementedError, match='kl_divergence: Expect: a KL divergence registered for '
                                                  r'\(Point, Normal\)'):
        chainer.kl_divergence(Point(np.ones(2)), D.Normal(np.ones(2), np.ones(2)))
    with pytest.raises(NotImplementedError):
        Point(np.ones(2)).variance


# ---- Sampling -----------------------------------------------------------------------------

def sampling_cases():
    m, s = np.array([0.5, -1.0], np.float32), np.array([1.0, 2.0], np.float32)
    return [
        (D.Normal(m, s), m, s ** 2),
        (D.Laplace(m, s), m, 2 * s ** 2),
        (D.Uniform(low=m, high=m + s), m + s / 2, s ** 2 / 12),
        (D.LogNormal(m / 4, s / 4), np.exp(m / 4 + s ** 2 / 32), (np.exp(s ** 2 / 16) - 1) * np.exp(m / 2 + s ** 2 / 16)),
        (D.Bernoulli(np.array([0.2, 0.7], np.float32)), [0.2, 0.7], [0.16, 0.21]),
        (D.Beta(s, s + 1), s / (2 * s + 1), s * (s + 1) / ((2 * s + 1) ** 2 * (2 * s + 2))),
        (D.Gamma(s, s), s * s, s * s ** 2),
        (D.Poisson(s), s, s),
    ]


def test_sample_shapes_and_moments():
    np.random.seed(3)
    for d, mean, var in sampling_cases():
        assert d.sample().shape == (2,) and d.sample(3).shape == (3, 2) and d.sample((2, 3)).shape == (2, 3, 2)
        draws = d.sample(20000).array
        # 6 standard errors of the mean: a wrong formula fails, noise does not.
        assert np.all(np.abs(draws.mean(0) - mean) < 6 * np.sqrt(np.asarray(var) / 20000)), type(d).__name__
    alpha = np.array([[1., 2., 3.], [2., 2., 2.]], np.float32)
    draws = D.Dirichlet(alpha).sample(5000).array
    assert draws.shape == (5000, 2, 3) and np.allclose(draws.sum(-1), 1, atol=1e-5)
    assert np.allclose(draws.mean(0), alpha / alpha.sum(-1, keepdims=True), atol=0.02)
    mvn = D.MultivariateNormal(np.zeros((2, 3), np.float32), scale_tril=tril((2,), 3).astype(np.float32))
    draws = mvn.sample(20000).array
    assert draws.shape == (20000, 2, 3)
    np.testing.assert_allclose(np.einsum('sbi,sbj->bij', draws, draws) / 20000, mvn.covariance.array, atol=0.08)


def test_reparameterised_samples_carry_gradients():
    np.random.seed(4)
    loc, scale = chainer.Variable(np.zeros(3)), chainer.Variable(np.ones(3))
    z = D.Normal(loc, scale).sample(4)
    F.sum(z).backward()
    close(loc.grad, np.full(3, 4.))
    close(scale.grad, ((z.array - 0) / 1).sum(0))  # d z / d scale = eps
    lower = chainer.Variable(tril((), 2))
    mu = chainer.Variable(np.zeros(2))
    F.sum(D.MultivariateNormal(mu, scale_tril=lower).sample(3)).backward()
    close(mu.grad, np.full(2, 3.))
    assert lower.grad is not None
