"""The two networks of the scaling model, as lists of layers in forward order.

Each layer has its parameters' element counts (float32 gradients: 4 bytes each) and its
forward multiply-accumulates per example. Backward is taken as proportional to the
forward MACs, layer by layer, which places each layer's gradients in time (model.py).

    MLP        Chainer's train_mnist MLP 784-1000-1000-10 (benchmarks/train_mlp/mlp.h).
    ResNet-50  ResNet-50 v1.5 at 224x224 (torchvision's layout: stride 2 on the 3x3
               convolution of a downsampling bottleneck), batch norm gamma and beta as
               parameters, no conv bias. 25,557,032 parameters, 4.09 G MACs per image.
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class Layer:
    name: str
    params: tuple  # element count of each parameter, in the order backward finishes them
    macs: int  # forward multiply-accumulates per example


@dataclass(frozen=True)
class Network:
    name: str
    layers: tuple  # forward order
    batch: int  # examples per rank and step

    @property
    def param_count(self):
        return sum(sum(layer.params) for layer in self.layers)

    @property
    def grad_bytes(self):
        return 4 * self.param_count

    @property
    def macs(self):
        return sum(layer.macs for layer in self.layers)

    def step_flops(self):
        """Forward + backward FLOPs of one step: 2 per MAC forward, twice that backward."""
        return 6 * self.macs * self.batch


def linear(name, n_in, n_out):
    return Layer(name, (n_out, n_in * n_out), n_in * n_out)  # b finishes with W; order is free


def mlp(batch=100):
    layers = (linear("l1", 784, 1000), linear("l2", 1000, 1000), linear("l3", 1000, 10))
    return Network("MLP", layers, batch)


def _conv(name, c_in, c_out, k, h_out):
    return Layer(name, (c_in * c_out * k * k,), h_out * h_out * c_out * c_in * k * k)


def _bn(name, c):
    return Layer(name, (c, c), 0)


def _bottleneck(prefix, c_in, width, stride, h_in):
    h_out = h_in // stride
    layers = [_conv(prefix + "conv1", c_in, width, 1, h_in), _bn(prefix + "bn1", width),
              _conv(prefix + "conv2", width, width, 3, h_out), _bn(prefix + "bn2", width),
              _conv(prefix + "conv3", width, 4 * width, 1, h_out), _bn(prefix + "bn3", 4 * width)]
    if stride != 1 or c_in != 4 * width:
        layers += [_conv(prefix + "downsample", c_in, 4 * width, 1, h_out), _bn(prefix + "downsample.bn", 4 * width)]
    return layers, h_out


def resnet50(batch=32):
    layers = [_conv("conv1", 3, 64, 7, 112), _bn("bn1", 64)]
    c_in, h = 64, 56  # after the 3x3 max pooling
    for stage, (blocks, width, stride) in enumerate(((3, 64, 1), (4, 128, 2), (6, 256, 2), (3, 512, 2)), 1):
        for block in range(blocks):
            block_layers, h = _bottleneck(f"layer{stage}.{block}.", c_in, width, stride if block == 0 else 1, h)
            layers += block_layers
            c_in = 4 * width
    layers.append(linear("fc", 2048, 1000))
    return Network("ResNet-50", tuple(layers), batch)
