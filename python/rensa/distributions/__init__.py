"""chainer.distributions: probability distributions whose statistics and densities are
differentiable in their parameters, and their KL divergences (rensa.kl_divergence)."""
from rensa.distribution import register_kl  # noqa: F401
from rensa.distributions.bernoulli import Bernoulli  # noqa: F401
from rensa.distributions.beta import Beta  # noqa: F401
from rensa.distributions.categorical import Categorical  # noqa: F401
from rensa.distributions.dirichlet import Dirichlet  # noqa: F401
from rensa.distributions.gamma import Gamma  # noqa: F401
from rensa.distributions.independent import Independent  # noqa: F401
from rensa.distributions.laplace import Laplace  # noqa: F401
from rensa.distributions.log_normal import LogNormal  # noqa: F401
from rensa.distributions.multivariate_normal import MultivariateNormal  # noqa: F401
from rensa.distributions.normal import Normal  # noqa: F401
from rensa.distributions.poisson import Poisson  # noqa: F401
from rensa.distributions.uniform import Uniform  # noqa: F401
