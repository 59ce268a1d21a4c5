"""Run under real Chainer 7.8.1 by tests/python/test_issue23_zoo.py: builds Chainer's
ResNet50Layers and GoogLeNet with pretrained_model=None (batch normalization statistics made
random too), saves them with save_npz, and saves their outputs on inputs from
numpy.random.RandomState, plus prepare() of each module on a few images, to <out>/*.npz."""
import json
import sys

import numpy

import chainer
from chainer.links.model.vision import googlenet
from chainer.links.model.vision import resnet
from chainer.links.model.vision import vgg

RESNET_LAYERS = ['conv1', 'pool1', 'res2', 'res4', 'pool5', 'fc6', 'prob']
GOOGLENET_LAYERS = ['pool1', 'conv2', 'inception_4a', 'pool5', 'loss3_fc', 'prob', 'loss1_fc2', 'loss2_fc2']


def images():
    rs = numpy.random.RandomState(3)
    return {'hwc': rs.randint(0, 256, (20, 28, 3)).astype(numpy.uint8),
            'chw': rs.randint(0, 256, (3, 24, 18)).astype(numpy.uint8),
            'hw': rs.randint(0, 256, (16, 12)).astype(numpy.uint8),
            '1hw': rs.randint(0, 256, (1, 10, 14)).astype(numpy.uint8)}


def main(out):
    rs = numpy.random.RandomState(0)
    with chainer.using_config('train', False), chainer.no_backprop_mode():
        model = resnet.ResNet50Layers(pretrained_model=None)
        for link in model.links():
            if isinstance(link, chainer.links.BatchNormalization):
                link.avg_mean[...] = rs.uniform(-0.5, 0.5, link.avg_mean.shape)
                link.avg_var[...] = rs.uniform(0.5, 1.5, link.avg_var.shape)
                link.gamma.array[...] = rs.uniform(0.5, 1.5, link.gamma.shape)
                link.beta.array[...] = rs.uniform(-0.5, 0.5, link.beta.shape)
        chainer.serializers.save_npz(out + '/resnet50.npz', model, compression=False)
        x = rs.uniform(-1, 1, (2, 3, 64, 64)).astype(numpy.float32)
        ys = model(x, layers=RESNET_LAYERS)
        numpy.savez(out + '/resnet50_out.npz', x=x, **{k: v.array for k, v in ys.items()})

        model = googlenet.GoogLeNet(pretrained_model=None)
        chainer.serializers.save_npz(out + '/googlenet.npz', model, compression=False)
        x = rs.uniform(-50, 50, (1, 3, 224, 224)).astype(numpy.float32)
        ys = model(x, layers=GOOGLENET_LAYERS)
        numpy.savez(out + '/googlenet_out.npz', x=x, **{k: v.array for k, v in ys.items()})

    prepared = {}
    for module in (vgg, resnet, googlenet):
        name = module.__name__.split('.')[-1]
        for key, image in images().items():
            prepared['{}_{}_224'.format(name, key)] = module.prepare(image)
            prepared['{}_{}_small'.format(name, key)] = module.prepare(image, size=(9, 7))
            prepared['{}_{}_none'.format(name, key)] = module.prepare(image, size=None)
    numpy.savez(out + '/prepare.npz', **prepared)
    # The layer tables, read without building the models (their `functions` only name the links).
    class AnyLink(object):
        def __getattr__(self, name):
            return None

    tables = {cls.__name__: list(cls.functions.fget(AnyLink()).keys())
              for cls in (vgg.VGG16Layers, vgg.VGG19Layers, resnet.ResNetLayers, googlenet.GoogLeNet)}
    with open(out + '/layers.json', 'w') as f:
        json.dump(tables, f)


if __name__ == '__main__':
    main(sys.argv[1])
