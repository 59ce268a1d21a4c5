"""Python bindings against PyTorch on the CPU, side by side (issue 8's speed targets).

Every measurement runs in its own child process, rensa and PyTorch alternately, for
--rounds rounds, OMP_NUM_THREADS=2, each side at every OpenMP setting of
benchmarks/bench_env.py (as shipped, GOMP_SPINCOUNT=0). Reported: per side the median
over rounds at each setting, and the faster setting of rensa against the faster of
PyTorch (with the per-round ratios). Without PyTorch its sides are skipped.

1. call: the Python cost of one F.relu on a 1x10 float32 array, with graph recording
   (the input requires grad) and without (no_backprop_mode / torch.no_grad), in us.
2. step: one forward + backward + Adam step of the MLP 784-1000-1000-10 at batch 1, in ms.
3. trainer: the same MLP trained at batch 100 on Fashion-MNIST through
   Trainer + StandardUpdater + SerialIterator from Python, in images/s, against PyTorch's
   loop (benchmarks/train_mlp/bench_common.py) and the C++ program build/benchmarks/train_mlp.

Usage (from the repository root; needs .venv-bench from scripts/install-bench-deps.sh):
    .venv-bench/bin/python benchmarks/python/run.py [--build build] [--rounds 3] [--only call,step,trainer]
        [--json FILE]
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
sys.path.insert(0, os.path.join(ROOT, 'benchmarks'))
import bench_env  # noqa: E402


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

def run_child(args, name, setting):
    build = args.build if os.path.isabs(args.build) else os.path.join(ROOT, args.build)
    env = bench_env.child_env(2, setting, {'PYTHONPATH': os.path.join(build, 'python')})
    if name == 'cxx_trainer':
        cmd = [os.path.join(build, 'benchmarks', 'train_mlp'), str(args.iterations), '--loop', 'trainer']
    else:
        cmd = [sys.executable, os.path.abspath(__file__), '--child', name, '--iterations', str(args.iterations)]
    return bench_env.run_json_child(cmd, env, '{} ({})'.format(name, setting))[0]


def compare(args, record, title, sides, key, unit, lower_is_better):
    """Runs every side at every setting per round; returns {side: {setting: [per-round values]}}."""
    sides = [s for s in sides if args.use_torch or not s.startswith('torch')]
    results = {side: {s: [] for s in bench_env.SETTINGS} for side in sides}
    for r in range(args.rounds):
        settings = list(bench_env.SETTINGS)[::-1 if r % 2 else 1]
        for side in sides:
            for setting in settings:
                value = run_child(args, side, setting)[key]
                results[side][setting].append(value)
                print('  round {} {:14s} {:18s} {:10.3f} {}'.format(r + 1, side, setting, value, unit), flush=True)
    cells = []
    for side, per in results.items():
        best, m, _ = bench_env.best_setting(per, not lower_is_better)
        cells.append('{} {:.3f} {} ({})'.format(side, m, unit, best))
    print('{} (median, faster setting): '.format(title) + ', '.join(cells))
    record.setdefault('results', {})[title] = {'unit': unit, 'values': results}
    return results


def ratio(record, label, results, a, b, lower_is_better, target=None):
    """Prints a / b of the faster settings (and per round); nothing when a side is missing."""
    if a not in results or b not in results:
        return
    c = bench_env.compare_sides(results[a], results[b], not lower_is_better)
    tgt = ' (target {})'.format(target) if target else ''
    print('ratio {}: {:.3f}x{} [{} vs {}; per round {}]'.format(label, c['ratio'], tgt, c['a_setting'],
                                                             c['b_setting'], ', '.join('{:.2f}'.format(x)
                                                                                       for x in c['rounds'])))
    record.setdefault('ratios', []).append({'label': label, **c})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--build', default='build')
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--iterations', type=int, default=300, help='trainer iterations of batch 100')
    parser.add_argument('--only', default='call,step,trainer')
    parser.add_argument('--json', help='write the results here')
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
    args.use_torch = bench_env.has_module('torch')
    record = bench_env.print_header('benchmarks/python/run.py: {} rounds, {}, OMP_NUM_THREADS=2, OpenMP settings {}'
                                    .format(args.rounds, only, list(bench_env.SETTINGS)))
    record['args'] = vars(args)
    if not args.use_torch:
        print('PyTorch sides skipped: no torch in {}'.format(sys.executable))
    if 'call' in only:
        rec = compare(args, record, 'F.relu 1x10, graph recorded', ['rensa_call', 'torch_call'], 'record_us', 'us',
                      True)
        ratio(record, 'call time rensa/torch, recording', rec, 'rensa_call', 'torch_call', True)
        plain = compare(args, record, 'F.relu 1x10, no graph', ['rensa_call', 'torch_call'], 'plain_us', 'us', True)
        ratio(record, 'call time rensa/torch, no graph', plain, 'rensa_call', 'torch_call', True)
    if 'step' in only:
        step = compare(args, record, 'MLP step at batch 1', ['rensa_step', 'torch_step'], 'step_ms', 'ms', True)
        ratio(record, 'step time rensa/torch', step, 'rensa_step', 'torch_step', True)
    if 'trainer' in only:
        tr = compare(args, record, 'MLP Trainer batch 100', ['rensa_trainer', 'torch_trainer', 'cxx_trainer'],
                     'images_per_s', 'images/s', False)
        ratio(record, 'images/s Python rensa / torch', tr, 'rensa_trainer', 'torch_trainer', False)
        ratio(record, 'images/s Python rensa / C++ rensa', tr, 'rensa_trainer', 'cxx_trainer', False)
    bench_env.print_footer(record)
    bench_env.write_json(args.json, record)


if __name__ == '__main__':
    main()
