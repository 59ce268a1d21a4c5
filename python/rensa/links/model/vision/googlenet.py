"""chainer.links.model.vision.googlenet: GoogLeNet and prepare.

The layers and forward are C++ (rensa._core.links.GoogLeNet); this module adds Chainer's
extract, predict, prepare and pretrained_model='auto' (Note [Pretrained vision models] in
links/model/vision/layers.h).
"""
from rensa._core import links as _links
from rensa.links.model.vision import _common

__all__ = ['GoogLeNet', 'prepare']


class GoogLeNet(_links.GoogLeNet):
    """Chainer's GoogLeNet(pretrained_model='auto'): pretrained_model is a local NPZ, None
    (LeCunUniform weights) or 'auto' (the NPZ Chainer caches, when present)."""

    def __init__(self, pretrained_model='auto'):
        super(GoogLeNet, self).__init__(
            _common.resolve_pretrained('GoogLeNet', pretrained_model, 'bvlc_googlenet.npz'))

    def forward(self, x, layers=None, **kwargs):
        """forward(self, x, layers=['prob']): the feature maps of ``layers`` by name."""
        _common.check_no_kwargs('forward', kwargs)
        return super(GoogLeNet, self).forward(x, layers)

    __call__ = forward

    def extract(self, images, layers=None, size=(224, 224), **kwargs):
        """extract(self, images, layers=['pool5'], size=(224, 224))."""
        _common.check_no_kwargs('extract', kwargs)
        return _common.extract(self, prepare, images, ['pool5'] if layers is None else layers, size)

    def predict(self, images, oversample=True):
        """The class probabilities of ``images`` (see rensa.links.model.vision._common.predict)."""
        return _common.predict(self, prepare, images, oversample)


def prepare(image, size=(224, 224)):
    """Chainer's googlenet.prepare: BGR, minus the mean (104, 117, 123), (3, H, W)."""
    return _common.prepare(image, size, [104.0, 117.0, 123.0])
