"""chainer.links.model.vision.vgg: VGGLayers, VGG16Layers, VGG19Layers and prepare.

The layers and forward are C++ (rensa._core.links.VGGLayers); this module adds Chainer's
extract, predict, prepare and pretrained_model='auto' (Note [Pretrained vision models] in
links/model/vision/layers.h).
"""
from rensa._core import links as _links
from rensa.links.model.vision import _common

__all__ = ['VGGLayers', 'VGG16Layers', 'VGG19Layers', 'prepare']

_NPZ_NAMES = {16: 'VGG_ILSVRC_16_layers.npz', 19: 'VGG_ILSVRC_19_layers.npz'}


class VGGLayers(_common.PretrainedModel, _links.VGGLayers):
    """Chainer's VGGLayers(pretrained_model='auto', n_layers=16): pretrained_model is a local
    NPZ, None (Normal(0.01) weights) or 'auto' (the NPZ Chainer caches, when present)."""

    _extract_layers = 'fc7'

    def __init__(self, pretrained_model='auto', n_layers=16):
        name = 'VGG{}Layers'.format(n_layers)
        super(VGGLayers, self).__init__(
            _common.resolve_pretrained(name, pretrained_model, _NPZ_NAMES.get(n_layers, '')), n_layers)


class VGG16Layers(VGGLayers):
    """Chainer's VGG16Layers(pretrained_model='auto')."""

    def __init__(self, pretrained_model='auto'):
        super(VGG16Layers, self).__init__(pretrained_model, 16)


class VGG19Layers(VGGLayers):
    """Chainer's VGG19Layers(pretrained_model='auto')."""

    def __init__(self, pretrained_model='auto'):
        super(VGG19Layers, self).__init__(pretrained_model, 19)


def prepare(image, size=(224, 224)):
    """Chainer's vgg.prepare: BGR, minus the mean (103.939, 116.779, 123.68), (3, H, W)."""
    return _common.prepare(image, size, [103.939, 116.779, 123.68])


VGGLayers._prepare = staticmethod(prepare)
