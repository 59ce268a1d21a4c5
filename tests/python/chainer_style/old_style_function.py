"""An old-style chainer.Function (forward/backward on arrays, a type check, retained
outputs) inside a small regression model trained by SGD; prints the first losses."""
import numpy

import chainer
import chainer.functions as F
import chainer.links as L
from chainer.utils import type_check


class ScaledTanh(chainer.Function):
    """y = 2 tanh(x), keeping only its output for backward."""

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 1, in_types[0].dtype == numpy.float32)

    def forward(self, inputs):
        self.retain_inputs(())
        self.retain_outputs((0,))
        return 2 * numpy.tanh(inputs[0]),

    def backward(self, inputs, grad_outputs):
        y, = self.output_data
        return grad_outputs[0] * (2 - y * y / 2),


class Model(chainer.Chain):

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(4, 8)
            self.l2 = L.Linear(8, 1)

    def forward(self, x):
        return self.l2(ScaledTanh()(self.l1(x)))


def main():
    rng = numpy.random.RandomState(0)
    model = Model()
    for _, param in sorted(model.namedparams()):
        param.array[...] = rng.uniform(-0.5, 0.5, param.shape).astype(numpy.float32)
    x = rng.uniform(-1, 1, (16, 4)).astype(numpy.float32)
    t = numpy.sin(x.sum(axis=1, keepdims=True)).astype(numpy.float32)
    optimizer = chainer.optimizers.SGD(lr=0.1)
    optimizer.setup(model)
    losses = []
    for _ in range(5):
        loss = F.mean_squared_error(model(x), t)
        model.cleargrads()
        loss.backward()
        optimizer.update()
        losses.append(float(loss.array))
    print('first losses: ' + ' '.join('{:.6f}'.format(v) for v in losses))


if __name__ == '__main__':
    main()
