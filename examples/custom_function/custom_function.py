#!/usr/bin/env python3
"""A differentiable function written in Python, the way Chainer's guide writes one.

``MulAdd`` (w = x * y + z) and ``SmoothAbs`` (sqrt(x**2 + eps)) subclass
``rensa.FunctionNode``: ``forward`` computes on numpy arrays, ``backward`` returns
Variables built from differentiable functions, so double backprop works. Both are
checked with ``rensa.gradient_check`` (first and second order), then ``SmoothAbs`` is
used inside a model that learns y = |x| - 1 with SGD.

    PYTHONPATH=build/python .venv/bin/python examples/custom_function/custom_function.py
"""
import argparse

import numpy

import rensa as chainer
import rensa.functions as F
import rensa.links as L
from rensa import gradient_check


class MulAdd(chainer.FunctionNode):
    """w = x * y + z."""

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, y, z = inputs
        w = x * y + z
        return w,

    def backward(self, target_input_indexes, grad_outputs):
        x, y = self.get_retained_inputs()
        gw, = grad_outputs
        return y * gw, x * gw, gw


def muladd(x, y, z):
    return MulAdd().apply((x, y, z))[0]


class SmoothAbs(chainer.FunctionNode):
    """sqrt(x ** 2 + eps): |x| with a smooth bottom."""

    def __init__(self, eps=1e-2):
        super(SmoothAbs, self).__init__()
        self.eps = eps

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        return numpy.sqrt(x * x + self.eps).astype(x.dtype, copy=False),

    def backward(self, target_input_indexes, grad_outputs):
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        return gy * x / y,


def smooth_abs(x, eps=1e-2):
    return SmoothAbs(eps).apply((x,))[0]


class Regressor(chainer.Chain):
    """y = l2(smooth_abs(l1(x)))."""

    def __init__(self, n_hidden):
        super(Regressor, self).__init__()
        with self.init_scope():
            self.l1 = L.Linear(1, n_hidden)
            self.l2 = L.Linear(n_hidden, 1)

    def forward(self, x):
        return self.l2(smooth_abs(self.l1(x)))


def check_gradients():
    rng = numpy.random.RandomState(0)
    x, y, z = (rng.uniform(-1, 1, (3, 4)) for _ in range(3))
    gw = rng.uniform(-1, 1, (3, 4))
    ggs = [rng.uniform(-1, 1, (3, 4)) for _ in range(3)]
    gradient_check.check_backward(muladd, (x, y, z), gw, dtype=numpy.float64)
    gradient_check.check_double_backward(muladd, (x, y, z), gw, ggs, dtype=numpy.float64)

    a = rng.uniform(-1, 1, (5,))
    ga = rng.uniform(-1, 1, (5,))
    gga = rng.uniform(-1, 1, (5,))
    gradient_check.check_backward(smooth_abs, a, ga, dtype=numpy.float64)
    gradient_check.check_double_backward(smooth_abs, a, ga, gga, dtype=numpy.float64)
    print('gradient checks: MulAdd and SmoothAbs pass (first and second order)')


def train(steps, n_hidden, seed):
    rng = numpy.random.RandomState(seed)
    x = rng.uniform(-2, 2, (256, 1)).astype(numpy.float32)
    t = (numpy.abs(x) - 1).astype(numpy.float32)
    model = Regressor(n_hidden)
    optimizer = chainer.optimizers.Adam(alpha=0.01)
    optimizer.setup(model)
    loss = None
    for step in range(steps):
        model.cleargrads()
        loss = F.mean_squared_error(model(x), t)
        loss.backward()
        optimizer.update()
        if step % max(1, steps // 5) == 0:
            print('step {:4d}  loss {:.5f}'.format(step, float(loss.array)))
    print('final loss: {:.5f}'.format(float(loss.array)))
    return float(loss.array)


def main():
    parser = argparse.ArgumentParser(description='rensa example: a custom FunctionNode in Python')
    parser.add_argument('--steps', type=int, default=300)
    parser.add_argument('--unit', type=int, default=16)
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--max-loss', type=float, default=0.05,
                        help='Exit with an error above this final loss')
    args = parser.parse_args()
    check_gradients()
    final = train(args.steps, args.unit, args.seed)
    if final > args.max_loss:
        raise SystemExit('final loss {:.5f} is above --max-loss {}'.format(final, args.max_loss))


if __name__ == '__main__':
    main()
