"""A plain Chainer script: a DCGAN on 8x8 synthetic images (Chainer's DCGAN example, shrunk).

tests/python/test_chainer_style_train.py runs it on rensa after rewriting its import lines
only, and on real Chainer where installed, comparing the first losses. A generator of
Linear + Deconvolution2D + BatchNormalization, a discriminator of Convolution2D +
BatchNormalization + Linear, two Adam optimizers named 'gen' and 'dis', and a custom updater
subclassing StandardUpdater with its own update_core (the converter called with the updater's
device, noise from a numpy RandomState). Parameters and data come from numpy's RandomState,
so both frameworks start from the same models and see the same noise.
"""
import argparse

import numpy

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import Variable
from chainer import training
from chainer.training import extensions


class Generator(chainer.Chain):

    def __init__(self, n_hidden, rng, bottom_width=2, ch=8):
        super(Generator, self).__init__()
        self.n_hidden = n_hidden
        self.ch = ch
        self.bottom_width = bottom_width
        self.rng = rng
        with self.init_scope():
            self.l0 = L.Linear(n_hidden, bottom_width * bottom_width * ch)
            self.dc1 = L.Deconvolution2D(ch, ch // 2, 4, 2, 1)
            self.dc2 = L.Deconvolution2D(ch // 2, 1, 4, 2, 1)
            self.bn0 = L.BatchNormalization(bottom_width * bottom_width * ch)
            self.bn1 = L.BatchNormalization(ch // 2)

    def make_hidden(self, batchsize):
        return self.rng.uniform(-1, 1, (batchsize, self.n_hidden, 1, 1)).astype(numpy.float32)

    def forward(self, z):
        h = F.reshape(F.relu(self.bn0(self.l0(z))), (len(z), self.ch, self.bottom_width, self.bottom_width))
        h = F.relu(self.bn1(self.dc1(h)))
        return F.sigmoid(self.dc2(h))


class Discriminator(chainer.Chain):

    def __init__(self, bottom_width=2, ch=8):
        super(Discriminator, self).__init__()
        with self.init_scope():
            self.c0 = L.Convolution2D(1, ch // 2, 3, 1, 1)
            self.c1 = L.Convolution2D(ch // 2, ch, 4, 2, 1)
            self.c2 = L.Convolution2D(ch, ch, 4, 2, 1)
            self.bn1 = L.BatchNormalization(ch)
            self.l4 = L.Linear(bottom_width * bottom_width * ch, 1)

    def forward(self, x):
        h = F.leaky_relu(self.c0(x))
        h = F.leaky_relu(self.bn1(self.c1(h)))
        h = F.leaky_relu(self.c2(h))
        return self.l4(h)


class DCGANUpdater(chainer.training.updaters.StandardUpdater):

    def __init__(self, *args, **kwargs):
        self.gen, self.dis = kwargs.pop('models')
        super(DCGANUpdater, self).__init__(*args, **kwargs)

    def loss_dis(self, dis, y_fake, y_real):
        batchsize = len(y_fake)
        L1 = F.sum(F.softplus(-y_real)) / batchsize
        L2 = F.sum(F.softplus(y_fake)) / batchsize
        loss = L1 + L2
        chainer.report({'loss': loss}, dis)
        return loss

    def loss_gen(self, gen, y_fake):
        batchsize = len(y_fake)
        loss = F.sum(F.softplus(-y_fake)) / batchsize
        chainer.report({'loss': loss}, gen)
        return loss

    def update_core(self):
        gen_optimizer = self.get_optimizer('gen')
        dis_optimizer = self.get_optimizer('dis')

        batch = self.get_iterator('main').next()
        x_real = Variable(self.converter(batch, self.device)) / 255.
        xp = chainer.backend.get_array_module(x_real.array)

        gen, dis = self.gen, self.dis
        batchsize = len(batch)

        y_real = dis(x_real)

        z = Variable(xp.asarray(gen.make_hidden(batchsize)))
        x_fake = gen(z)
        y_fake = dis(x_fake)

        dis_optimizer.update(self.loss_dis, dis, y_fake, y_real)
        gen_optimizer.update(self.loss_gen, gen, y_fake)


def set_params(model, rng):
    for _, param in sorted(model.namedparams()):
        param.array[...] = rng.uniform(-0.3, 0.3, param.shape).astype(param.dtype)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--out', default='result')
    parser.add_argument('--device', default='-1')
    args = parser.parse_args()

    rng = numpy.random.RandomState(0)
    gen = Generator(4, rng)
    dis = Discriminator()
    set_params(gen, rng)
    set_params(dis, rng)

    def make_optimizer(model, alpha=0.005, beta1=0.5):
        optimizer = chainer.optimizers.Adam(alpha=alpha, beta1=beta1)
        optimizer.setup(model)
        optimizer.add_hook(chainer.optimizer_hooks.WeightDecay(0.0001), 'hook_dec')
        return optimizer

    opt_gen = make_optimizer(gen)
    opt_dis = make_optimizer(dis)

    # Bright squares on a dark background, at random places, values in [0, 255].
    images = rng.uniform(0, 40, (16, 1, 8, 8)).astype(numpy.float32)
    for image in images:
        i, j = rng.randint(0, 5, size=2)
        image[0, i:i + 4, j:j + 4] += 200
    train_iter = chainer.iterators.SerialIterator(images, 4, shuffle=False)

    updater = DCGANUpdater(models=(gen, dis), iterator=train_iter,
                           optimizer={'gen': opt_gen, 'dis': opt_dis}, device=args.device)
    trainer = training.Trainer(updater, (6, 'iteration'), out=args.out)

    losses = []

    @training.make_extension(trigger=(1, 'iteration'))
    def record_losses(trainer):
        losses.append(float(trainer.observation['dis/loss'].array))
        losses.append(float(trainer.observation['gen/loss'].array))

    trainer.extend(record_losses)
    trainer.extend(extensions.LogReport(trigger=(2, 'iteration')))
    trainer.extend(extensions.PrintReport(['epoch', 'iteration', 'gen/loss', 'dis/loss']))
    trainer.run()

    print('first losses: ' + ' '.join('{:.7g}'.format(v) for v in losses))


if __name__ == '__main__':
    main()
