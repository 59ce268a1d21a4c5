"""Gradient checks (float64, central differences) of every differentiable method of the
distributions, their KL divergences, their reparameterised samples and the special
functions they are built on; values are checked in test_distributions.py."""
import numpy as np
import pytest

import rensa as chainer
import rensa.distributions as D
import rensa.functions as F
from rensa import gradient_check

from distributions_testing import RS, check_grad, f64, tril


@pytest.mark.parametrize('name,low,high', [('lgamma', 0.3, 4.0), ('digamma', 0.3, 4.0), ('log_ndtr', -6.0, 3.0),
                                           ('ndtri', 0.05, 0.95), ('erfinv', -0.9, 0.9)])
def test_special_function_gradients(name, low, high):
    check_grad(getattr(F, name), f64(2, 3, low=low, high=high), double=True)


def test_polygamma_gradient_and_errors():
    n = np.array([[0, 1, 2]], np.int32)
    gradient_check.check_backward(lambda x: F.polygamma(n, x), (f64(2, 3, low=0.5, high=3.0),),
                                  RS.normal(size=(2, 3)), eps=1e-5, atol=1e-4, rtol=1e-4)
    with pytest.raises(TypeError, match=r"polygamma: Expect: n.dtype.kind == 'i', Actual: float32"):
        F.polygamma(np.ones(2, np.float32), np.ones(2, np.float32))
    with pytest.raises(TypeError, match='polygamma'):
        F.polygamma(np.ones(2, np.int32), np.ones(2, np.int32))


# ---- Gradient checks of every differentiable method ---------------------------------------

X = f64(2, 3, low=0.2, high=0.8)
X_SIMPLEX = RS.dirichlet([1, 2, 3], 2)
X_MVN = f64(4, 2, 3)


def pos(*shape):
    return f64(*shape, low=0.6, high=2.0)


GRADIENT_CASES = {
    'Normal.log_prob': (lambda m, s: D.Normal(m, s).log_prob(X), (f64(2, 3), pos(2, 3))),
    'Normal.prob': (lambda m, s: D.Normal(m, s).prob(X), (f64(2, 3), pos(2, 3))),
    'Normal.cdf': (lambda m, s: D.Normal(m, s).cdf(X), (f64(2, 3), pos(2, 3))),
    'Normal.log_cdf': (lambda m, s: D.Normal(m, s).log_cdf(X), (f64(2, 3), pos(2, 3))),
    'Normal.survival': (lambda m, s: D.Normal(m, s).survival_function(X), (f64(2, 3), pos(2, 3))),
    'Normal.log_survival': (lambda m, s: D.Normal(m, s).log_survival_function(X), (f64(2, 3), pos(2, 3))),
    'Normal.icdf': (lambda m, s: D.Normal(m, s).icdf(X), (f64(2, 3), pos(2, 3))),
    'Normal.log_scale': (lambda m, ls: D.Normal(m, log_scale=ls).log_prob(X) + D.Normal(m, log_scale=ls).entropy,
                         (f64(2, 3), f64(2, 3))),
    'Normal.stats': (lambda m, s: D.Normal(m, s).entropy + D.Normal(m, s).variance + D.Normal(m, s).stddev,
                     (f64(2, 3), pos(2, 3))),
    'Bernoulli.log_prob': (lambda p: D.Bernoulli(p).log_prob(np.round(X)), (X.copy(),)),
    'Bernoulli.logit': (lambda l: D.Bernoulli(logit=l).log_prob(np.round(X)) + D.Bernoulli(logit=l).entropy,
                        (f64(2, 3),)),
    'Bernoulli.stats': (lambda p: D.Bernoulli(p).entropy + D.Bernoulli(p).variance + D.Bernoulli(p).prob(
        np.round(X)), (X.copy(),)),
    'Categorical.log_prob': (lambda l: D.Categorical(logit=l).log_prob(np.array([0, 2])), (f64(2, 3),)),
    'Categorical.entropy': (lambda l: D.Categorical(logit=l).entropy, (f64(2, 3),)),
    'Uniform.stats': (lambda lo, hi: D.Uniform(low=lo, high=hi).entropy + D.Uniform(low=lo, high=hi).variance
                      + D.Uniform(low=lo, high=hi).cdf(X) + D.Uniform(low=lo, high=hi).icdf(X),
                      (f64(2, 3, low=-1, high=0), pos(2, 3))),
    'Uniform.log_prob': (lambda lo, hi: D.Uniform(low=lo, high=hi).log_prob(X), (f64(2, 3, low=-1, high=0), pos(2, 3))),
    'Laplace.log_prob': (lambda m, s: D.Laplace(m, s).log_prob(X) + D.Laplace(m, s).prob(X),
                         (f64(2, 3, low=-1, high=0), pos(2, 3))),
    'Laplace.cdf': (lambda m, s: D.Laplace(m, s).cdf(X) + D.Laplace(m, s).icdf(X), (f64(2, 3, low=-1, high=0), pos(2, 3))),
    'Laplace.stats': (lambda m, s: D.Laplace(m, s).entropy + D.Laplace(m, s).variance + D.Laplace(m, s).stddev,
                      (f64(2, 3), pos(2, 3))),
    'LogNormal.log_prob': (lambda m, s: D.LogNormal(m, s).log_prob(X), (f64(2, 3), pos(2, 3))),
    'LogNormal.stats': (lambda m, s: D.LogNormal(m, s).entropy + D.LogNormal(m, s).mean + D.LogNormal(m, s).variance,
                        (f64(2, 3), pos(2, 3))),
    'Beta.log_prob': (lambda a, b: D.Beta(a, b).log_prob(X), (pos(2, 3), pos(2, 3))),
    'Beta.stats': (lambda a, b: D.Beta(a, b).entropy + D.Beta(a, b).mean + D.Beta(a, b).variance,
                   (pos(2, 3), pos(2, 3))),
    'Gamma.log_prob': (lambda k, t: D.Gamma(k, t).log_prob(X), (pos(2, 3), pos(2, 3))),
    'Gamma.stats': (lambda k, t: D.Gamma(k, t).entropy + D.Gamma(k, t).mean + D.Gamma(k, t).variance,
                    (pos(2, 3), pos(2, 3))),
    'Poisson.log_prob': (lambda lam: D.Poisson(lam).log_prob(np.array([[0., 1., 2.], [3., 0., 5.]])), (pos(2, 3),)),
    'Dirichlet.log_prob': (lambda a: D.Dirichlet(a).log_prob(X_SIMPLEX), (pos(2, 3),)),
    'Dirichlet.stats': (lambda a: F.sum(D.Dirichlet(a).mean + D.Dirichlet(a).variance, axis=-1)
                        + D.Dirichlet(a).entropy, (pos(2, 3),)),
    'MultivariateNormal.log_prob': (lambda m, l: D.MultivariateNormal(m, scale_tril=l).log_prob(X_MVN),
                                    (f64(2, 3), tril((2,), 3))),
    'MultivariateNormal.stats': (lambda m, l: D.MultivariateNormal(m, scale_tril=l).entropy
                                 + F.sum(D.MultivariateNormal(m, scale_tril=l).covariance, axis=(-1, -2)),
                                 (f64(2, 3), tril((2,), 3))),
    'Independent.log_prob': (lambda m, s: D.Independent(D.Normal(m, s)).log_prob(X)
                             + D.Independent(D.Normal(m, s)).entropy, (f64(2, 3), pos(2, 3))),
}


def kl_case(make, make_params):
    params = make_params()
    half = len(params) // 2
    return (lambda *ps: chainer.kl_divergence(make(*ps[:half]), make(*ps[half:])), params)


GRADIENT_CASES.update({
    'kl.Normal': kl_case(lambda m, s: D.Normal(m, s), lambda: (f64(3), pos(3), f64(3), pos(3))),
    'kl.Bernoulli': kl_case(lambda p: D.Bernoulli(p), lambda: (f64(3, low=.2, high=.8), f64(3, low=.2, high=.8))),
    'kl.Categorical': kl_case(lambda l: D.Categorical(logit=l), lambda: (f64(2, 3), f64(2, 3))),
    'kl.Uniform': kl_case(lambda lo, hi: D.Uniform(low=lo, high=hi),
                          lambda: (f64(3, low=-.5, high=0), pos(3), f64(3, low=-2, high=-1), pos(3) + 2)),
    'kl.Laplace': kl_case(lambda m, s: D.Laplace(m, s), lambda: (f64(3, low=0, high=1), pos(3),
                                                                 f64(3, low=-2, high=-1), pos(3))),
    'kl.LogNormal': kl_case(lambda m, s: D.LogNormal(m, s), lambda: (f64(3), pos(3), f64(3), pos(3))),
    'kl.Beta': kl_case(lambda a, b: D.Beta(a, b), lambda: (pos(3), pos(3), pos(3), pos(3))),
    'kl.Gamma': kl_case(lambda k, t: D.Gamma(k, t), lambda: (pos(3), pos(3), pos(3), pos(3))),
    'kl.Poisson': kl_case(lambda lam: D.Poisson(lam), lambda: (pos(3), pos(3))),
    'kl.Dirichlet': kl_case(lambda a: D.Dirichlet(a), lambda: (pos(2, 3), pos(2, 3))),
    'kl.MultivariateNormal': kl_case(lambda m, l: D.MultivariateNormal(m, scale_tril=l),
                                     lambda: (f64(2, 3), tril((2,), 3), f64(2, 3), tril((2,), 3))),
    'kl.Independent': kl_case(lambda m, s: D.Independent(D.Normal(m, s)), lambda: (f64(2, 3), pos(2, 3),
                                                                                   f64(2, 3), pos(2, 3))),
})


def seeded_sample(make):
    """make(*params).sample(3) with numpy's generator reseeded, so every call of the
    gradient check sees the same noise: the reparameterised path is differentiated."""
    def sample(*params):
        np.random.seed(11)
        return make(*params).sample(3)
    return sample


GRADIENT_CASES.update({
    'sample.Normal': (seeded_sample(lambda m, s: D.Normal(m, s)), (f64(2, 3), pos(2, 3))),
    'sample.LogNormal': (seeded_sample(lambda m, s: D.LogNormal(m, s)), (f64(2, 3), f64(2, 3, low=0.2, high=0.5))),
    'sample.Laplace': (seeded_sample(lambda m, s: D.Laplace(m, s)), (f64(2, 3), pos(2, 3))),
    'sample.Uniform': (seeded_sample(lambda lo, hi: D.Uniform(low=lo, high=hi)), (f64(2, 3, low=-1, high=0),
                                                                                 pos(2, 3))),
    'sample.Gamma.theta': (seeded_sample(lambda t: D.Gamma(np.full((2, 3), 2.0), t)), (pos(2, 3),)),
    'sample.MultivariateNormal': (seeded_sample(lambda m, l: D.MultivariateNormal(m, scale_tril=l)),
                                  (f64(2, 3), tril((2,), 3))),
})


@pytest.mark.parametrize('name', sorted(GRADIENT_CASES))
def test_gradients(name):
    fn, params = GRADIENT_CASES[name]
    check_grad(fn, *params, double=name in ('Normal.log_prob', 'kl.Normal', 'Beta.stats', 'MultivariateNormal.log_prob'))
