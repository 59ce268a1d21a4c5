"""Python bindings against PyTorch on the CPU, side by side (issue 8's speed targets).

Every measurement runs in its own child process, rensa and PyTorch alternately, for
--rounds rounds, with OMP_NUM_THREADS=2 GOMP_SPINCOUNT=0 (PyTorch's fastest setting
here). Reported: medians and their ratio.

1. call: the Python cost of one F.relu on a 1x10 float32 array, with graph recording
   (the input requires grad) and without (no_backprop_mode / torch.no_grad), in us.
2. step: one forward + backward + Adam step of the MLP 784-1000-1000-10 at batch 1, in ms.
3. trainer: the same MLP trained at batch 100 on Fashion-MNIST through
   Trainer + StandardUpdater + SerialIterator from Python, in images/s, against PyTorch's
   loop (benchmarks/train_mlp/bench_common.py) and the C++ program build/benchmarks/train_mlp.

Usage (from the repository root; needs .venv-bench from scripts/install-bench-deps.sh):
    .venv-bench/bin/python benchmarks/python/run.py [--build build] [--rounds 3] [--only call,step,trainer]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'benchmarks', 'train_mlp'))


def best_per_call(stmt, number, repeat=7):
    """Seconds per call: the minimum over `repeat` timings of `number` calls."""
    return min(timeit.repeat(stmt, number=number, repeat=repeat)) / number


# --- children: each prints one JSON line -------------------------------------------------

def rensa_call():
    import numpy as np
    import rensa
    import rensa.functions as F
    x = rensa.Variable(np.random.rand(1, 10).astype(np.float32))
    relu = F.relu
    record = best_per_call(lambda: relu(x), 200000)
    with rensa.no_backprop_mode():
        plain = best_per_call(lambda: relu(x), 200000)
    return {'record_us': record * 1e6, 'plain_us': plain * 1e6}


def torch_call():
    import torch
    torch.set_num_threads(2)
    x = torch.rand(1, 10, requires_grad=True)
    relu = torch.relu
    record = best_per_call(lambda: relu(x), 200000)
    with torch.no_grad():
        plain = best_per_call(lambda: relu(x), 200000)
    return {'record_us': record * 1e6, 'plain_us': plain * 1e6}


def rensa_mlp():
    import rensa
    import rensa.functions as F
    import rensa.links as L

    class MLP(rensa.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l1 = L.Linear(784, 1000)
                self.l2 = L.Linear(1000, 1000)
                self.l3 = L.Linear(1000, 10)

        def forward(self, x):
            return self.l3(F.relu(self.l2(F.relu(self.l1(x)))))

    return L.Classifier(MLP())


def rensa_step():
    import numpy as np
    import rensa
    model = rensa_mlp()
    optimizer = rensa.optimizers.Adam()
    optimizer.setup(model)
    x = np.random.rand(1, 784).astype(np.float32)
    t = np.array([3], dtype=np.int32)

    def step():
        model.cleargrads()
        loss = model(x, t)
        loss.backward()
        optimizer.update()
    step()
    return {'step_ms': best_per_call(step, 200, repeat=5) * 1e3}


def torch_step():
    import torch
    torch.set_num_threads(2)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(784, 1000), torch.nn.ReLU(), torch.nn.Linear(1000, 1000),
                                torch.nn.ReLU(), torch.nn.Linear(1000, 10))
    optimizer = torch.optim.Adam(model.parameters())
    loss_fn = torch.nn.CrossEntropyLoss()
    x = torch.rand(1, 784)
    t = torch.tensor([3])

    def step():
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), t)
        loss.backward()
        optimizer.step()
    step()
    return {'step_ms': best_per_call(step, 200, repeat=5) * 1e3}


def rensa_trainer(iterations):
    import rensa
    from rensa import training
    model = rensa_mlp()
    optimizer = rensa.optimizers.Adam()
    optimizer.setup(model)
    train, _ = rensa.datasets.get_fashion_mnist()
    train_iter = rensa.iterators.SerialIterator(train, 100)
    updater = training.updaters.StandardUpdater(train_iter, optimizer)
    import tempfile
    trainer = training.Trainer(updater, (iterations, 'iteration'), out=tempfile.mkdtemp(prefix='rensa-bench-'))
    start = time.perf_counter()
    trainer.run()
    seconds = time.perf_counter() - start
    return {'images_per_s': iterations * 100 / seconds}


def torch_trainer(iterations):
    import io
    from contextlib import redirect_stdout
    import bench_common
    import torch
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(784, 1000), torch.nn.ReLU(), torch.nn.Linear(1000, 1000),
                                torch.nn.ReLU(), torch.nn.Linear(1000, 10))
    optimizer = torch.optim.Adam(model.parameters())
    out = io.StringIO()
    with redirect_stdout(out):
        bench_common.torch_train(model, optimizer, (784,), iterations)
    return {'images_per_s': json.loads(out.getvalue().strip().splitlines()[-1])['images_per_s']}


CHILDREN = {
    'rensa_call': rensa_call, 'torch_call': torch_call,
    'rensa_step': rensa_step, 'torch_step': torch_step,
}


# --- parent ------------------------------------------------------------------------------

def run_child(args, name, extra=()):
    env = dict(os.environ, OMP_NUM_THREADS='2', GOMP_SPINCOUNT='0',
               PYTHONPATH=os.path.join(ROOT, args.build, 'python'))
    if name == 'cxx_trainer':
        cmd = [os.path.join(ROOT, args.build, 'benchmarks', 'train_mlp'), str(args.iterations), '--loop', 'trainer']
    else:
        cmd = [sys.executable, os.path.abspath(__file__), '--child', name, '--iterations', str(args.iterations)]
    out = subprocess.run(cmd + list(extra), env=env, stdout=subprocess.PIPE, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def compare(args, title, sides, key, unit, lower_is_better):
    results = {side: [] for side in sides}
    for r in range(args.rounds):
        for side in sides:
            value = run_child(args, side)[key] if isinstance(key, str) else key(run_child(args, side))
            results[side].append(value)
            print('  round {} {:14s} {:10.3f} {}'.format(r + 1, side, value, unit), flush=True)
    med = {side: statistics.median(v) for side, v in results.items()}
    print('{}: '.format(title) + ', '.join('{} {:.3f} {}'.format(s, m, unit) for s, m in med.items()))
    return med


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--build', default='build')
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--iterations', type=int, default=300, help='trainer iterations of batch 100')
    parser.add_argument('--only', default='call,step,trainer')
    parser.add_argument('--child', help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        if args.child == 'rensa_trainer':
            result = rensa_trainer(args.iterations)
        elif args.child == 'torch_trainer':
            result = torch_trainer(args.iterations)
        else:
            result = CHILDREN[args.child]()
        print(json.dumps(result))
        return
    only = args.only.split(',')
    print('load average {:.2f} at start; OMP_NUM_THREADS=2 GOMP_SPINCOUNT=0'.format(os.getloadavg()[0]), flush=True)
    if 'call' in only:
        rec = compare(args, 'F.relu 1x10, graph recorded', ['rensa_call', 'torch_call'], 'record_us', 'us', True)
        plain = compare(args, 'F.relu 1x10, no graph', ['rensa_call', 'torch_call'], 'plain_us', 'us', True)
        print('ratio call rensa/torch: recording {:.2f}x, no graph {:.2f}x'.format(
            rec['rensa_call'] / rec['torch_call'], plain['rensa_call'] / plain['torch_call']))
    if 'step' in only:
        step = compare(args, 'MLP step at batch 1', ['rensa_step', 'torch_step'], 'step_ms', 'ms', True)
        print('ratio step time rensa/torch: {:.2f}x'.format(step['rensa_step'] / step['torch_step']))
    if 'trainer' in only:
        tr = compare(args, 'MLP Trainer batch 100', ['rensa_trainer', 'torch_trainer', 'cxx_trainer'],
                     'images_per_s', 'images/s', False)
        print('ratio images/s: Python rensa / torch {:.2f}x; Python rensa / C++ rensa {:.3f}'.format(
            tr['rensa_trainer'] / tr['torch_trainer'], tr['rensa_trainer'] / tr['cxx_trainer']))
    print('load average {:.2f} at end'.format(os.getloadavg()[0]))


if __name__ == '__main__':
    main()
