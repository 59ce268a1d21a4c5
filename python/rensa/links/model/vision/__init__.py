"""chainer.links.model.vision: Chainer's pretrained vision models (modules vgg, resnet, googlenet).

See Note [Pretrained vision models] in links/model/vision/layers.h.
"""
from rensa.links.model.vision import googlenet  # noqa: F401
from rensa.links.model.vision import resnet  # noqa: F401
from rensa.links.model.vision import vgg  # noqa: F401
