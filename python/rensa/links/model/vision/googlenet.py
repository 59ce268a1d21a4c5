"""chainer.links.model.vision.googlenet: GoogLeNet and prepare.

The layers and forward are C++ (rensa._core.links.GoogLeNet); this module adds Chainer's
extract, predict, prepare and pretrained_model='auto' (Note [Pretrained vision models] in
links/model/vision/layers.h).
"""
from rensa._core import links as _links
from rensa.links.model.vision import _common

__all__ = ['GoogLeNet', 'prepare']


class GoogLeNet(_common.PretrainedModel, _links.GoogLeNet):
    """Chainer's GoogLeNet(pretrained_model='auto'): pretrained_model is a local NPZ, None
    (LeCunUniform weights) or 'auto' (the NPZ Chainer caches, when present)."""

    _extract_layers = 'pool5'

    def __init__(self, pretrained_model='auto'):
        super(GoogLeNet, self).__init__(
            _common.resolve_pretrained('GoogLeNet', pretrained_model, 'bvlc_googlenet.npz'))


def prepare(image, size=(224, 224)):
    """Chainer's googlenet.prepare: BGR, minus the mean (104, 117, 123), (3, H, W)."""
    return _common.prepare(image, size, [104.0, 117.0, 123.0])


GoogLeNet._prepare = staticmethod(prepare)
