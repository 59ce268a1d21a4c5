"""chainer.backends: the backend modules under Chainer's newer path (rensa.backends.cuda is rensa.cuda)."""
from rensa.backends import cuda  # noqa: F401
