"""Issue 23, Chainer's pretrained vision models (chainer.links.model.vision): VGG16Layers,
VGG19Layers, ResNet50/101/152Layers, GoogLeNet, their modules' prepare, and ResNet's blocks.

Against real Chainer 7.8.1 where it is installed (tests/python/zoo/chainer_reference.py runs
there): ResNet50Layers and GoogLeNet built by Chainer with pretrained_model=None and saved with
save_npz load into rensa's through pretrained_model and give Chainer's outputs; the layer
tables and prepare() match Chainer's. VGG is compared by its layer table and signatures only:
its 138M parameters would make the test slow (tests/links/model/test_vision_vgg.cc checks
its parameter count against Chainer's).
"""
import inspect
import json
import os
import subprocess

import numpy
import pytest

import rensa
import rensa.links as L
from rensa import gradient_check
from rensa.links.model.vision import googlenet
from rensa.links.model.vision import resnet
from rensa.links.model.vision import vgg

from chainer_style_harness import chainer_python

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope='module')
def chainer_out(tmp_path_factory):
    """The outputs of tests/python/zoo/chainer_reference.py under real Chainer, or a skip."""
    python = chainer_python()
    if python is None:
        pytest.skip('real Chainer 7.8.1 is not installed (scripts/install-chainermn-bench.sh)')
    if subprocess.run([python, '-c', 'import PIL'], capture_output=True).returncode != 0:
        pytest.skip('the real Chainer environment lacks Pillow')
    out = str(tmp_path_factory.mktemp('chainer_zoo'))
    env = dict(os.environ, OMP_NUM_THREADS='1')
    subprocess.run([python, os.path.join(HERE, 'zoo', 'chainer_reference.py'), out], check=True, env=env,
                   timeout=300)
    return out


# --- names and signatures (Chainer's, from inspect.signature on Chainer 7.8.1) ---

SIGNATURES = [
    (vgg.VGGLayers, "(self, pretrained_model='auto', n_layers=16)"),
    (L.VGG16Layers, "(self, pretrained_model='auto')"),
    (L.VGG19Layers, "(self, pretrained_model='auto')"),
    (resnet.ResNetLayers, '(self, pretrained_model, n_layers, downsample_fb=False)'),
    (L.ResNet50Layers, "(self, pretrained_model='auto', downsample_fb=False)"),
    (L.ResNet101Layers, "(self, pretrained_model='auto', downsample_fb=False)"),
    (L.ResNet152Layers, "(self, pretrained_model='auto', downsample_fb=False)"),
    (L.GoogLeNet, "(self, pretrained_model='auto')"),
]


@pytest.mark.parametrize('cls,signature', SIGNATURES)
def test_constructor_signatures(cls, signature):
    assert str(inspect.signature(cls.__init__)) == signature


def test_method_signatures_and_module_paths():
    for cls in (vgg.VGGLayers, resnet.ResNetLayers, googlenet.GoogLeNet):
        assert str(inspect.signature(cls.extract)) == "(self, images, layers=None, size=(224, 224), **kwargs)"
        assert str(inspect.signature(cls.predict)) == '(self, images, oversample=True)'
        assert str(inspect.signature(cls.forward)) == '(self, x, layers=None, **kwargs)'
    for module in (vgg, resnet, googlenet):
        assert str(inspect.signature(module.prepare)) == '(image, size=(224, 224))'
    assert L.ResNet50Layers is resnet.ResNet50Layers and L.GoogLeNet is googlenet.GoogLeNet
    block = resnet.BuildingBlock(2, 4, 2, 8, 1)
    assert sorted(name for name, _ in block.namedlinks(skipself=True)) == [
        '/a', '/a/bn1', '/a/bn2', '/a/bn3', '/a/bn4', '/a/conv1', '/a/conv2', '/a/conv3', '/a/conv4',
        '/b1', '/b1/bn1', '/b1/bn2', '/b1/bn3', '/b1/conv1', '/b1/conv2', '/b1/conv3']
    with pytest.raises(ValueError, match='BuildingBlock: Expect: n_layers to be given'):
        resnet.BuildingBlock()
    from rensa.links.model.vision.resnet import BottleneckA, BottleneckB  # noqa: F401  Chainer's import path
    # The example networks that held two of these names before.
    assert hasattr(L, 'CifarVGG16') and hasattr(L, 'ImageNetGoogLeNet')
    assert not hasattr(L, 'VGG16')
    assert not hasattr(L, 'VGGLayers') and not hasattr(L, 'BuildingBlock')  # as in chainer.links


VGG16_LAYERS = ['conv1_1', 'conv1_2', 'pool1', 'conv2_1', 'conv2_2', 'pool2', 'conv3_1', 'conv3_2', 'conv3_3',
                'pool3', 'conv4_1', 'conv4_2', 'conv4_3', 'pool4', 'conv5_1', 'conv5_2', 'conv5_3', 'pool5', 'fc6',
                'fc7', 'fc8', 'prob']


def test_vgg_layer_tables_match_chainer(chainer_out):
    # The list tests/links/model/test_vision_vgg.cc checks rensa's VGGLayers against.
    with open(os.path.join(chainer_out, 'layers.json')) as f:
        tables = json.load(f)
    assert tables['VGG16Layers'] == VGG16_LAYERS
    vgg19 = VGG16_LAYERS[:9] + ['conv3_4'] + VGG16_LAYERS[9:13] + ['conv4_4'] + VGG16_LAYERS[13:17] + ['conv5_4'] + \
        VGG16_LAYERS[17:]
    assert tables['VGG19Layers'] == vgg19


# --- against Chainer's outputs ---

def _compare(model, chainer_out, name, layers, atol):
    ref = numpy.load(os.path.join(chainer_out, name + '_out.npz'))
    with rensa.using_config('train', False), rensa.no_backprop_mode():
        ys = model(ref['x'], layers=layers)
    assert sorted(ys) == sorted(layers)
    for layer in layers:
        expected = ref[layer]
        actual = ys[layer].array
        assert actual.shape == expected.shape, layer
        scale = max(1.0, float(numpy.abs(expected).max()))
        numpy.testing.assert_allclose(actual, expected, atol=atol * scale, rtol=1e-3, err_msg=layer)


def test_resnet50_loads_chainers_npz_and_gives_its_outputs(chainer_out):
    path = os.path.join(chainer_out, 'resnet50.npz')
    model = L.ResNet50Layers(pretrained_model=path)
    with open(os.path.join(chainer_out, 'layers.json')) as f:
        assert model.available_layers == json.load(f)['ResNetLayers']
    _compare(model, chainer_out, 'resnet50', ['conv1', 'pool1', 'res2', 'res4', 'pool5', 'fc6', 'prob'], 1e-4)


def test_googlenet_loads_chainers_npz_and_gives_its_outputs(chainer_out):
    path = os.path.join(chainer_out, 'googlenet.npz')
    model = L.GoogLeNet(pretrained_model=path)
    with open(os.path.join(chainer_out, 'layers.json')) as f:
        assert model.available_layers == json.load(f)['GoogLeNet']
    layers = ['pool1', 'conv2', 'inception_4a', 'pool5', 'loss3_fc', 'prob', 'loss1_fc2', 'loss2_fc2']
    _compare(model, chainer_out, 'googlenet', layers, 1e-4)
    # Saved back, the file has Chainer's keys.
    out = os.path.join(chainer_out, 'googlenet_rensa.npz')
    rensa.serializers.save_npz(out, model)
    with numpy.load(path) as theirs, numpy.load(out) as ours:
        assert sorted(ours.files) == sorted(theirs.files)


def test_prepare_matches_chainer(chainer_out):
    with open(os.path.join(HERE, 'zoo', 'chainer_reference.py')) as f:
        images = _images_from(f.read())
    ref = numpy.load(os.path.join(chainer_out, 'prepare.npz'))
    for module in (vgg, resnet, googlenet):
        name = module.__name__.split('.')[-1]
        for key, image in images.items():
            for suffix, kwargs in (('224', {}), ('small', {'size': (9, 7)}), ('none', {'size': None})):
                expected = ref['{}_{}_{}'.format(name, key, suffix)]
                actual = module.prepare(image, **kwargs)
                assert actual.dtype == numpy.float32 and actual.shape == expected.shape
                # Pillow's resampling may differ by a rounding step between versions.
                numpy.testing.assert_allclose(actual, expected, atol=1.0, err_msg=key)


def _images_from(source):
    """chainer_reference.images() without importing chainer (the function uses numpy only)."""
    namespace = {'numpy': numpy}
    start = source.index('def images():')
    end = source.index('\n\n\n', start)
    exec(source[start:end], namespace)
    return namespace['images']()


# --- rensa alone ---

def test_prepare_converts_to_bgr_minus_the_mean():
    image = numpy.zeros((4, 6, 3), dtype=numpy.uint8)
    image[..., 0] = 200  # red
    y = vgg.prepare(image, size=None)
    assert y.shape == (3, 4, 6) and y.dtype == numpy.float32
    numpy.testing.assert_allclose(y[:, 0, 0], [-103.939, -116.779, 200 - 123.68], rtol=1e-6)
    assert resnet.prepare(image).shape == (3, 224, 224)


def test_pretrained_model_errors_name_the_path(tmp_path):
    missing = str(tmp_path / 'missing.npz')
    with pytest.raises(OSError, match='ResNet50Layers: pretrained_model .*missing.npz.* does not exist'):
        L.ResNet50Layers(pretrained_model=missing)
    with pytest.raises(OSError, match='GoogLeNet: pretrained_model'):
        L.GoogLeNet(missing)
    with pytest.raises(OSError, match='VGG19Layers'):
        L.VGG19Layers(missing)
    rensa.dataset.set_dataset_root(str(tmp_path))
    try:
        with pytest.raises(ValueError, match="VGG16Layers: pretrained_model='auto'.*VGG_ILSVRC_16_layers.npz"):
            L.VGG16Layers()
        with pytest.raises(ValueError, match='ResNet-152-model.npz'):
            L.ResNet152Layers()
    finally:
        os.environ.pop('RENSA_DATASET_ROOT', None)
    with pytest.raises(ValueError, match='n_layers in \\(50, 101, 152\\)'):
        resnet.ResNetLayers(None, 18)


@pytest.fixture(scope='module')
def random_googlenet():
    return L.GoogLeNet(None)


def test_auto_loads_the_npz_chainer_caches(tmp_path, random_googlenet):
    model = random_googlenet
    models = tmp_path / 'pfnet' / 'chainer' / 'models'
    models.mkdir(parents=True)
    rensa.serializers.save_npz(str(models / 'bvlc_googlenet.npz'), model)
    rensa.dataset.set_dataset_root(str(tmp_path))
    try:
        loaded = L.GoogLeNet()
    finally:
        os.environ.pop('RENSA_DATASET_ROOT', None)
    numpy.testing.assert_array_equal(loaded.inc4c.conv3.W.array, model.inc4c.conv3.W.array)
    x = numpy.random.RandomState(1).uniform(-1, 1, (1, 3, 32, 32)).astype(numpy.float32)
    with pytest.raises(ValueError, match="GoogLeNet: Expect: layers in available_layers"):
        loaded(x, layers=['fc7'])
    with pytest.raises(ValueError, match='test argument is not supported anymore'):
        loaded.forward(x, test=True)
    # Stops at the last layer asked for: no fixed-size Linear is reached from 32x32.
    assert loaded(x, layers=['conv2'])['conv2'].shape == (1, 192, 8, 8)


def test_extract_and_predict_on_pil_and_arrays(random_googlenet):
    from PIL import Image
    rs = numpy.random.RandomState(2)
    model = random_googlenet
    images = [Image.fromarray(rs.randint(0, 256, (30, 40, 3)).astype(numpy.uint8)),
              rs.randint(0, 256, (3, 20, 20)).astype(numpy.uint8)]
    with rensa.using_config('train', False):
        features = model.extract(images, layers=['pool2', 'inception_3a'], size=(64, 64))
    assert features['pool2'].shape == (2, 192, 8, 8)
    assert features['inception_3a'].shape == (2, 256, 8, 8)
    y = model.predict(images[:1], oversample=False)
    assert y.shape == (1, 1000)
    numpy.testing.assert_allclose(y.array.sum(axis=1), [1.0], rtol=1e-5)
    assert y.creator is None  # no_backprop_mode


def test_bottleneck_gradients():
    rs = numpy.random.RandomState(4)
    block = resnet.BottleneckB(4, 2)
    for p in block.params():
        p.array[...] = rs.uniform(0.5, 1.5, p.shape).astype(p.dtype)
    x = rs.uniform(0.5, 1.5, (3, 4, 3, 3)).astype(numpy.float32)  # away from ReLU's kink
    gy = rs.uniform(-1, 1, (3, 4, 3, 3)).astype(numpy.float32)
    with rensa.using_config('train', False):  # batch normalization with its fixed statistics
        gradient_check.check_backward(block, x, gy, params=tuple(block.params()), eps=1e-3, atol=1e-2,
                                      rtol=1e-2)
