"""chainer.links.model.vision.resnet: ResNetLayers, ResNet50Layers, ResNet101Layers,
ResNet152Layers, BuildingBlock, BottleneckA, BottleneckB and prepare.

The layers and forward are C++ (rensa._core.links); this module adds Chainer's extract,
predict, prepare and pretrained_model='auto' (Note [Pretrained vision models] in
links/model/vision/layers.h).
"""
from rensa._core import links as _links
from rensa.links.model.vision import _common

BuildingBlock = _links.BuildingBlock
BottleneckA = _links.BottleneckA
BottleneckB = _links.BottleneckB

__all__ = ['ResNetLayers', 'ResNet50Layers', 'ResNet101Layers', 'ResNet152Layers', 'BuildingBlock',
           'BottleneckA', 'BottleneckB', 'prepare']


class ResNetLayers(_common.PretrainedModel, _links.ResNetLayers):
    """Chainer's ResNetLayers(pretrained_model, n_layers, downsample_fb=False): pretrained_model
    is a local NPZ or None (HeNormal convolutions)."""

    _extract_layers = 'pool5'

    def __init__(self, pretrained_model, n_layers, downsample_fb=False):
        super(ResNetLayers, self).__init__(pretrained_model, n_layers, downsample_fb)


def _resolve(n_layers, pretrained_model):
    # Chainer's 'auto' means ResNet-<n>-model.caffemodel, converted to ResNet-<n>-model.npz.
    return _common.resolve_pretrained('ResNet{}Layers'.format(n_layers), pretrained_model,
                                      'ResNet-{}-model.npz'.format(n_layers))


class ResNet50Layers(ResNetLayers):
    """Chainer's ResNet50Layers(pretrained_model='auto', downsample_fb=False)."""

    def __init__(self, pretrained_model='auto', downsample_fb=False):
        super(ResNet50Layers, self).__init__(_resolve(50, pretrained_model), 50, downsample_fb)


class ResNet101Layers(ResNetLayers):
    """Chainer's ResNet101Layers(pretrained_model='auto', downsample_fb=False)."""

    def __init__(self, pretrained_model='auto', downsample_fb=False):
        super(ResNet101Layers, self).__init__(_resolve(101, pretrained_model), 101, downsample_fb)


class ResNet152Layers(ResNetLayers):
    """Chainer's ResNet152Layers(pretrained_model='auto', downsample_fb=False)."""

    def __init__(self, pretrained_model='auto', downsample_fb=False):
        super(ResNet152Layers, self).__init__(_resolve(152, pretrained_model), 152, downsample_fb)


def prepare(image, size=(224, 224)):
    """Chainer's resnet.prepare: BGR, minus the mean (103.063, 115.903, 123.152), (3, H, W)."""
    return _common.prepare(image, size, [103.063, 115.903, 123.152])


ResNetLayers._prepare = staticmethod(prepare)
