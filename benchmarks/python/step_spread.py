"""The spread of the batch-1 MLP step and the process's memory (issue 24, items 3 and 4).

Times every step of forward + backward + Adam update of the MLP 784-1000-1000-10 at batch 1
from Python (the step of benchmarks/python/run.py) with its own timestamp, and prints the
median, the minimum, their ratio, the 90th and 99th percentiles and the slowest steps; then
the RSS after `import rensa` and the peak RSS of the process (the MLP trained at batch 100
for --batch100 iterations, when asked). One JSON line at the end.

Usage (from the repository root):
    PYTHONPATH=build/python OMP_NUM_THREADS=2 .venv/bin/python benchmarks/python/step_spread.py \
        [--steps 2000] [--batch100 50] [--gc off] [--torch]
With --torch the same step runs in PyTorch instead (.venv-bench/bin/python).
Run it alternately with GOMP_SPINCOUNT=0 and without to see the thread wake-ups' share.
"""
import argparse
import gc
import json
import os
import resource
import statistics
import time


def rss_mib():
    with open('/proc/self/statm') as f:
        return int(f.read().split()[1]) * os.sysconf('SC_PAGE_SIZE') / 2**20


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def counters():
    """(minor page faults of the process, context switches of this thread: voluntary, involuntary)."""
    r = resource.getrusage(resource.RUSAGE_THREAD)
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt, r.ru_nvcsw, r.ru_nivcsw


def rensa_step(batch):
    import numpy as np
    import rensa
    from run import rensa_mlp  # benchmarks/python/run.py's MLP, the same model
    model = rensa_mlp()
    optimizer = rensa.optimizers.Adam()
    optimizer.setup(model)
    x = np.random.rand(batch, 784).astype(np.float32)
    t = (np.arange(batch) % 10).astype(np.int32)

    def step():
        model.cleargrads()
        loss = model(x, t)
        loss.backward()
        optimizer.update()
    return step


def torch_step(batch):
    import torch
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(784, 1000), torch.nn.ReLU(), torch.nn.Linear(1000, 1000),
                                torch.nn.ReLU(), torch.nn.Linear(1000, 10))
    optimizer = torch.optim.Adam(model.parameters())
    loss_fn = torch.nn.CrossEntropyLoss()
    x = torch.rand(batch, 784)
    t = torch.arange(batch) % 10

    def step():
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), t)
        loss.backward()
        optimizer.step()
    return step


def timed_steps(step, n):
    """Per step: wall seconds, the main thread's CPU seconds, and the counters' increments."""
    step()
    step()
    times, cpu, deltas = [], [], []
    for _ in range(n):
        c0 = counters()
        u0 = time.thread_time()
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
        cpu.append(time.thread_time() - u0)
        deltas.append([b - a for a, b in zip(c0, counters())])
    return times, cpu, deltas


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--steps', type=int, default=2000)
    parser.add_argument('--batch100', type=int, default=0, help='steps at batch 100 afterwards (for the peak RSS)')
    parser.add_argument('--gc', choices=['on', 'off'], default='on', help='Python\'s cyclic collector during the steps')
    parser.add_argument('--torch', action='store_true', help='time PyTorch\'s step instead')
    args = parser.parse_args()

    before = rss_mib()
    if args.torch:
        import torch
        torch.set_num_threads(int(os.environ.get('OMP_NUM_THREADS', '2')))
        make = torch_step
    else:
        import rensa  # noqa: F401
        make = rensa_step
    after_import = rss_mib()
    step = make(1)
    if args.gc == 'off':
        gc.disable()
    times, cpu, deltas = timed_steps(step, args.steps)
    gc.enable()
    ms = sorted(t * 1e3 for t in times)
    cpu_ms = sorted(t * 1e3 for t in cpu)
    median, low = statistics.median(ms), ms[0]
    slow = sorted(range(len(times)), key=lambda i: -times[i])[:5]
    print('batch-1 step over {} steps: median {:.3f} ms, min {:.3f} ms, median/min {:.2f}, p90 {:.3f}, '
          'p99 {:.3f}, max {:.3f} ms'.format(len(ms), median, low, median / low, ms[len(ms) * 9 // 10],
                                             ms[len(ms) * 99 // 100], ms[-1]))
    print('main thread CPU per step: median {:.3f} ms, min {:.3f} ms (wall - CPU is time spent waiting: for '
          'worker threads, or for a core)'.format(statistics.median(cpu_ms), cpu_ms[0]))
    print('slowest steps (index: wall ms, CPU ms, minor faults, voluntary / involuntary switches): ' +
          ', '.join('{}: {:.2f}, {:.2f}, {}, {}/{}'.format(i, times[i] * 1e3, cpu[i] * 1e3, *deltas[i]) for i in slow))
    print('per step, medians: minor faults {}, voluntary switches {}, involuntary switches {}'.format(
        *(statistics.median(d[k] for d in deltas) for k in range(3))))
    if args.batch100:
        big = make(100)
        for _ in range(args.batch100):
            big()
    result = {'median_ms': median, 'min_ms': low, 'ratio': median / low, 'cpu_median_ms': statistics.median(cpu_ms), 'rss_before_import_mib': before,
              'rss_after_import_mib': after_import, 'peak_rss_mib': peak_rss_mib(),
              'load': os.getloadavg()[0]}
    print('RSS: {:.1f} MiB before import, {:.1f} MiB after, peak {:.1f} MiB'.format(
        before, after_import, result['peak_rss_mib']))
    print(json.dumps(result))


if __name__ == '__main__':
    main()
