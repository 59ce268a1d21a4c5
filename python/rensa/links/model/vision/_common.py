"""What Chainer's vgg, resnet and googlenet modules repeat: prepare, extract, predict and the
resolution of pretrained_model='auto' (Note [Pretrained vision models] in
links/model/vision/layers.h)."""
import os

import numpy

from rensa import configuration
from rensa import function_node
from rensa import variable
from rensa.dataset import concat_examples
from rensa.dataset import download
from rensa.utils import imgproc

try:
    from PIL import Image
    available = True
except ImportError as e:  # pragma: no cover - Pillow is a dependency of these models only
    available = False
    _import_error = e


def prepare(image, size, mean):
    """Chainer's prepare: an RGB PIL image or array ((H, W), (H, W, C) or (C, H, W)) resized to
    ``size`` (None: kept), as a (3, H, W) BGR array of chainer.get_dtype() minus ``mean``."""
    if not available:
        raise ImportError('PIL cannot be loaded. Install Pillow!\n'
                          'The actual import error is as follows:\n' + str(_import_error))
    dtype = configuration.get_dtype()
    if isinstance(image, numpy.ndarray):
        if image.ndim == 3:
            if image.shape[0] == 1:
                image = image[0, :, :]
            elif image.shape[0] == 3:
                image = image.transpose((1, 2, 0))
        image = Image.fromarray(image.astype(numpy.uint8))
    image = image.convert('RGB')
    if size:
        image = image.resize(size)
    image = numpy.asarray(image, dtype=dtype)
    image = image[:, :, ::-1]
    image -= numpy.array(mean, dtype=dtype)
    return image.transpose((2, 0, 1))


def check_no_kwargs(name, kwargs):
    """Chainer's argument checks of forward/extract: the removed `test`, `train` and `volatile`."""
    for key in ('test', 'train', 'volatile'):
        if key in kwargs:
            raise ValueError('{} argument is not supported anymore. Use chainer.using_config'.format(key))
    if kwargs:
        raise TypeError('{}() got unexpected keyword argument(s) {}'.format(name, ', '.join(sorted(kwargs))))


def _to_variable(model, x):
    return variable.Variable(model.device.send(x))


def extract(model, prepare_fn, images, layers, size):
    """Chainer's extract: prepare each image at ``size``, batch them, forward(x, layers)."""
    x = concat_examples([prepare_fn(img, size=size) for img in images])
    return model(_to_variable(model, x), layers=layers)


def predict(model, prepare_fn, images, oversample):
    """Chainer's predict: the 'prob' of 256x256 images, averaged over imgproc.oversample's ten
    224x224 crops (oversample) or of the centre crop, without backprop and with train off."""
    from rensa import functions as F

    x = concat_examples([prepare_fn(img, size=(256, 256)) for img in images])
    if oversample:
        x = imgproc.oversample(x, crop_dims=(224, 224))
    else:
        x = x[:, :, 16:240, 16:240]
    with function_node.no_backprop_mode(), configuration.using_config('train', False):
        y = model(_to_variable(model, numpy.ascontiguousarray(x)), layers=['prob'])['prob']
        if oversample:
            n = len(y) // 10
            y = F.reshape(y, (n, 10) + y.shape[1:])
            y = F.sum(y, axis=1) / 10
    return y


def resolve_pretrained(class_name, pretrained_model, npz_name):
    """pretrained_model='auto' (Chainer's download): the NPZ Chainer would have cached,
    <dataset root>/pfnet/chainer/models/<npz_name>, when it exists; else a ValueError saying
    what to pass. Other values go to the C++ constructor as they are."""
    if not (isinstance(pretrained_model, str) and pretrained_model == 'auto'):
        return pretrained_model
    path = os.path.join(download.get_dataset_directory('pfnet/chainer/models/', create_directory=False),
                        npz_name)
    if os.path.isfile(path):
        return path
    raise ValueError(
        "{}: pretrained_model='auto' downloads the weights in Chainer, which rensa does not do, and "
        "'{}' does not exist; pass the path of a local NPZ of the weights (as chainer.serializers.save_npz "
        "writes it for Chainer's {}), put it at that path, or pass None for a random "
        "initialisation".format(class_name, path, class_name))


class PretrainedModel(object):
    """What Chainer's VGGLayers, ResNetLayers and GoogLeNet share over their C++ layers:
    forward by layer names, extract, predict. A subclass sets ``_prepare`` (its module's
    prepare) and ``_extract_layers`` (extract's default layers)."""

    def forward(self, x, layers=None, **kwargs):
        """The feature maps of the layers named in ``layers`` (None: ``['prob']``), as a dict."""
        check_no_kwargs('forward', kwargs)
        return super(PretrainedModel, self).forward(x, layers)

    def __call__(self, x, layers=None, **kwargs):
        return self.forward(x, layers, **kwargs)

    def extract(self, images, layers=None, size=(224, 224), **kwargs):
        """The features of the layers named in ``layers`` (None: the model's default feature
        layer) for images prepared at ``size``, as a dict."""
        check_no_kwargs('extract', kwargs)
        return extract(self, type(self)._prepare, images,
                       [self._extract_layers] if layers is None else layers, size)

    def predict(self, images, oversample=True):
        """The class probabilities of ``images`` (see rensa.links.model.vision._common.predict)."""
        return predict(self, type(self)._prepare, images, oversample)
