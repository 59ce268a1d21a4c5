"""A variational autoencoder written with chainer.distributions, as a Chainer user writes it
(it imports chainer): an MLP encoder giving a diagonal Normal posterior, an MLP decoder giving
Bernoulli pixels, a standard Normal prior, chainer.kl_divergence and the reparameterised
sample of the posterior, trained a few Adam steps on small binary data.

Every parameter is set from numpy.random.RandomState after the model is built, the data come
from a RandomState, and numpy's global generator is seeded right before training: the
posterior's samples are drawn from it on the CPU (Chainer's Normal.sample_n), so both
frameworks see the same noise. The losses of the posterior mean (no sampling) are printed too.
"""
import sys

import numpy as np

import chainer
import chainer.distributions as D
import chainer.functions as F
import chainer.links as L
from chainer import optimizers

N_IN, N_HIDDEN, N_LATENT = 12, 16, 3


class Encoder(chainer.Chain):

    def __init__(self):
        super(Encoder, self).__init__()
        with self.init_scope():
            self.l1 = L.Linear(N_IN, N_HIDDEN)
            self.mu = L.Linear(N_HIDDEN, N_LATENT)
            self.ln_sigma = L.Linear(N_HIDDEN, N_LATENT)

    def forward(self, x):
        h = F.tanh(self.l1(x))
        return D.Independent(D.Normal(loc=self.mu(h), log_scale=self.ln_sigma(h)))


class Decoder(chainer.Chain):

    def __init__(self):
        super(Decoder, self).__init__()
        with self.init_scope():
            self.l1 = L.Linear(N_LATENT, N_HIDDEN)
            self.l2 = L.Linear(N_HIDDEN, N_IN)

    def forward(self, z):
        h = F.tanh(self.l1(z, n_batch_axes=2))  # z: (samples, batch, latent)
        return D.Independent(D.Bernoulli(logit=self.l2(h, n_batch_axes=2)), reinterpreted_batch_ndims=1)


def make_prior(batch):
    loc = np.zeros((batch, N_LATENT), np.float32)
    return D.Independent(D.Normal(loc=loc, scale=np.ones_like(loc)))


class VAE(chainer.Chain):

    def __init__(self, k=2):
        super(VAE, self).__init__()
        self.k = k
        with self.init_scope():
            self.encoder = Encoder()
            self.decoder = Decoder()

    def loss(self, x, use_mean=False):
        q_z = self.encoder(x)
        z = F.expand_dims(q_z.mean, 0) if use_mean else q_z.sample(self.k)
        p_x = self.decoder(z)
        x_k = np.broadcast_to(x, (z.shape[0],) + x.shape)
        reconstr = F.mean(p_x.log_prob(x_k))
        kl = F.mean(chainer.kl_divergence(q_z, make_prior(len(x))))
        # Statistics the loss does not use: they must run too.
        assert q_z.batch_shape == (len(x),) and q_z.event_shape == (N_LATENT,)
        assert p_x.event_shape == (N_IN,) and q_z.distribution.stddev.shape == (len(x), N_LATENT)
        return -(reconstr - kl)


def main():
    rng = np.random.RandomState(0)
    data = (rng.rand(64, N_IN) < 0.3).astype(np.float32)
    model = VAE()
    for _, param in sorted(model.namedparams()):
        param.array[...] = rng.normal(0, 0.4, param.shape).astype(np.float32)
    optimizer = optimizers.Adam(alpha=0.01)
    optimizer.setup(model)

    np.random.seed(1)  # the posterior's noise (drawn by sample on the CPU)
    losses, mean_losses = [], []
    for step in range(6):
        x = data[(step * 16) % 64:(step * 16) % 64 + 16]
        with chainer.no_backprop_mode():
            mean_losses.append(float(model.loss(x, use_mean=True).array))
        loss = model.loss(x)
        model.cleargrads()
        loss.backward()
        optimizer.update()
        losses.append(float(loss.array))
    print('first losses: ' + ' '.join('%.6f' % v for v in losses))
    print('mean losses: ' + ' '.join('%.6f' % v for v in mean_losses))
    if not losses[-1] < losses[0]:
        sys.exit('the loss did not fall: %s' % losses)


if __name__ == '__main__':
    main()
