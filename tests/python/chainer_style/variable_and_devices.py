"""Device objects, Variable copies and pickles, type checks and the Variable methods of
issue 22 in one small regression: the script checks Chainer's behaviour with asserts and
prints its first losses."""
import copy
import pickle

import numpy

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import backend
from chainer.utils import argument


class Model(chainer.Chain):

    def __init__(self, **kwargs):
        scale, = argument.parse_kwargs(kwargs, ('scale', 1.0))
        super().__init__()
        self.scale = scale
        with self.init_scope():
            self.l1 = L.Linear(3, 5)
            self.l2 = L.Linear(5, 1)

    def forward(self, x):
        h = F.tanh(self.l1(x))
        return self.l2(h) * self.scale


def check_devices():
    device = chainer.get_device('@numpy')
    assert device == backend.get_device(-1) == backend.CpuDevice()
    assert isinstance(device, backend.CpuDevice) and not isinstance(device, backend.GpuDevice)
    assert hash(device) == hash(backend.CpuDevice()) and str(device) == '@numpy'
    assert device.xp is numpy
    device.use()
    x = numpy.ones(2, numpy.float32)
    assert device.send(x) is x
    v = chainer.Variable(x)
    assert v.device == device and v.array is x and v.array is v.array
    return device


def check_variables():
    v = chainer.Variable(numpy.array([5.0, -3.5], numpy.float32), name='v')
    v.grad = numpy.ones(2, numpy.float32)
    assert (v // 2).array.tolist() == [2.0, -2.0] and (7 // v).array.tolist() == [1.0, -2.0]
    assert float(v.mean().array) == 0.75 and v.summary() == '<variable v>'
    assert v.creator_node is None and v.node is not None
    c, d = copy.copy(v), copy.deepcopy(v)
    assert numpy.shares_memory(c.array, v.array) and not numpy.shares_memory(d.array, v.array)
    p = pickle.loads(pickle.dumps(v))
    assert p.name == 'v' and p.array.tolist() == [5.0, -3.5] and p.grad.tolist() == [1.0, 1.0]
    assert chainer.get_dtype() == numpy.float32
    assert chainer.get_dtype(map_mixed16=numpy.float32) == numpy.float32


def main():
    device = check_devices()
    check_variables()
    rng = numpy.random.RandomState(1)
    model = Model(scale=0.5)
    for _, param in sorted(model.namedparams()):
        param.array[...] = rng.uniform(-0.5, 0.5, param.shape).astype(numpy.float32)
    model.to_device(device)
    saved = copy.deepcopy(model.l1.W)
    x = rng.uniform(-1, 1, (8, 3)).astype(numpy.float32)
    t = (x[:, :1] * 2 - x[:, 1:2]).astype(numpy.float32)
    optimizer = chainer.optimizers.MomentumSGD(lr=0.05)
    optimizer.setup(model)
    losses = []
    for _ in range(5):
        x_dev, t_dev = device.send((x, t))
        loss = F.mean_squared_error(model(x_dev), t_dev)
        model.cleargrads()
        loss.backward()
        optimizer.update()
        losses.append(float(loss.array))
    assert not numpy.array_equal(saved.array, model.l1.W.array)  # the deep copy kept the old weights
    print('first losses: ' + ' '.join('{:.6f}'.format(v) for v in losses))


if __name__ == '__main__':
    main()
