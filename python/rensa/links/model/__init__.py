"""chainer.links.model: the model links (Classifier is rensa.links.Classifier; the pretrained
vision models are in rensa.links.model.vision)."""
from rensa.links.model import vision  # noqa: F401
