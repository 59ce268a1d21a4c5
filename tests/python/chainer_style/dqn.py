"""A DQN-style loop as a Chainer user writes it (it imports chainer).

A Q network, a target network made with copy.deepcopy and refreshed with copyparams, a
replay buffer, epsilon-greedy actions and the TD loss with F.select_item, on a tiny
synthetic environment (a random walk on a line, reward at the right end). Everything
random comes from numpy's RandomState, and the parameters are set from it after the
network is built, so Chainer and rensa compute the same first losses.
"""
import copy
import pickle

import numpy as np

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import optimizers

N_STATES = 6
N_ACTIONS = 2


class QFunction(chainer.Chain):

    def __init__(self, n_hidden=16):
        super(QFunction, self).__init__()
        with self.init_scope():
            self.l0 = L.Linear(N_STATES, n_hidden)
            self.l1 = L.Linear(n_hidden, n_hidden)
            self.l2 = L.Linear(n_hidden, N_ACTIONS)

    def forward(self, x):
        h = F.relu(self.l0(x))
        h = F.relu(self.l1(h))
        return self.l2(h)


def one_hot(states):
    x = np.zeros((len(states), N_STATES), dtype=np.float32)
    x[np.arange(len(states)), states] = 1
    return x


def step(state, action):
    nxt = min(max(state + (1 if action == 1 else -1), 0), N_STATES - 1)
    done = nxt == N_STATES - 1
    return nxt, (1.0 if done else 0.0), done


def main():
    rs = np.random.RandomState(0)
    q = QFunction()
    for _, param in sorted(q.namedparams()):
        param.array[...] = rs.uniform(-0.5, 0.5, param.shape).astype(np.float32)
    target_q = copy.deepcopy(q)
    assert target_q is not q and target_q.l0.W.array is not q.l0.W.array
    opt = optimizers.Adam(alpha=1e-2)
    opt.setup(q)

    gamma, epsilon, batch_size = 0.9, 0.3, 8
    buffer = []
    state = 0
    losses = []
    for t in range(120):
        if rs.rand() < epsilon:
            action = rs.randint(N_ACTIONS)
        else:
            with chainer.no_backprop_mode():
                action = int(q(one_hot([state])).array.argmax())
        nxt, reward, done = step(state, action)
        buffer.append((state, action, reward, nxt, done))
        state = 0 if done else nxt
        if len(buffer) < batch_size:
            continue
        idx = rs.randint(len(buffer), size=batch_size)
        s, a, r, s2, d = zip(*[buffer[i] for i in idx])
        a = np.asarray(a, dtype=np.int32)
        r = np.asarray(r, dtype=np.float32)
        d = np.asarray(d, dtype=np.float32)
        with chainer.no_backprop_mode():
            target = r + gamma * (1 - d) * F.max(target_q(one_hot(s2)), axis=1).array
        q_sa = F.select_item(q(one_hot(s)), a)
        loss = F.mean_squared_error(q_sa, target)
        q.cleargrads()
        loss.backward()
        opt.update()
        losses.append(float(loss.array))
        if t % 20 == 0:
            target_q.copyparams(q)

    print('first losses: ' + ' '.join('%.6f' % v for v in losses[:6]))
    # A snapshot of the agent as DQN code keeps it: the networks and the optimizer pickled.
    restored_q, restored_opt = pickle.loads(pickle.dumps((q, opt)))
    x = one_hot(range(N_STATES))
    np.testing.assert_allclose(restored_q(x).array, q(x).array, rtol=1e-6)
    assert restored_opt.t == opt.t
    greedy = q(x).array.argmax(axis=1)
    print('greedy actions:', greedy.tolist())
    print('final loss: %.6f' % losses[-1])


if __name__ == '__main__':
    main()
