"""rensa.links (chainer.links, usually imported as L).

The links are C++ classes (rensa._core.links) with Chainer's constructor signatures,
keyword names and attributes; calling one goes straight to its C++ forward.
"""
from rensa._core import links as _links
from rensa._core.links import *  # noqa: F401,F403

__all__ = [name for name in dir(_links) if not name.startswith('_')]

# Chainer's pretrained vision models: the Python classes (C++ layers plus extract, predict and
# 'auto'), in place of the C++ bases of the same names.
from rensa.links.model import vision as _vision  # noqa: E402
from rensa.links.model.vision.googlenet import GoogLeNet  # noqa: E402,F401
from rensa.links.model.vision.resnet import ResNet50Layers, ResNet101Layers, ResNet152Layers  # noqa: E402,F401
from rensa.links.model.vision.vgg import VGG16Layers, VGG19Layers  # noqa: E402,F401

# chainer.links has the model classes only; their bases and ResNet's blocks are in
# rensa.links.model.vision.vgg / resnet, as in Chainer.
del VGGLayers, ResNetLayers, BuildingBlock, BottleneckA, BottleneckB  # noqa: F821
__all__ = [name for name in __all__
           if name not in ('VGGLayers', 'ResNetLayers', 'BuildingBlock', 'BottleneckA', 'BottleneckB')]
