"""The Python cost of one small call (issue 24, item 3): F.relu on a 1x10 float32, rensa
against PyTorch's torch.relu, each side in its own process, alternately, for --rounds rounds.

Measured per side (timeit, the minimum over 7 repeats of --number calls, in us):
  variable: the input is a Variable (a tensor) that requires grad, so the graph is recorded;
  numpy:    the input is a numpy array (for PyTorch: a tensor without grad, under no_grad,
            since torch.relu refuses numpy arrays);
  no_graph: the Variable input under no_backprop_mode (torch.no_grad).
Medians over the rounds, their ratios, and the load average are printed; one JSON line last.

Usage (from the repository root; rensa from --pythonpath, PyTorch from .venv-bench):
    .venv-bench/bin/python benchmarks/python/call_overhead.py [--pythonpath build/python] [--rounds 5]
The old build side by side: --pythonpath A --baseline B runs a third side, rensa from B.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import timeit


def per_call_us(fn, number):
    return min(timeit.repeat(fn, number=number, repeat=7)) / number * 1e6


def child_rensa(number):
    import numpy as np
    import rensa
    import rensa.functions as F
    relu = F.relu
    data = np.random.rand(1, 10).astype(np.float32)
    x = rensa.Variable(data.copy())
    out = {'variable': per_call_us(lambda: relu(x), number), 'numpy': per_call_us(lambda: relu(data), number)}
    with rensa.no_backprop_mode():
        out['no_graph'] = per_call_us(lambda: relu(x), number)
    return out


def child_torch(number):
    import torch
    torch.set_num_threads(1)
    relu = torch.relu
    x = torch.rand(1, 10, requires_grad=True)
    plain = torch.rand(1, 10)
    out = {'variable': per_call_us(lambda: relu(x), number)}
    with torch.no_grad():
        out['numpy'] = per_call_us(lambda: relu(plain), number)
        out['no_graph'] = per_call_us(lambda: relu(x), number)
    return out


def run_side(args, side):
    python = os.path.join(args.root, '.venv', 'bin', 'python') if side != 'torch' else sys.executable
    env = dict(os.environ, OMP_NUM_THREADS='1')
    if side != 'torch':
        env['PYTHONPATH'] = args.pythonpath if side == 'rensa' else args.baseline
    cmd = [python, os.path.abspath(__file__), '--child', 'torch' if side == 'torch' else 'rensa',
           '--number', str(args.number)]
    out = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--pythonpath', default='build/python', help='where rensa is (the new build)')
    parser.add_argument('--baseline', help='where an older rensa is, run as a third side')
    parser.add_argument('--rounds', type=int, default=5)
    parser.add_argument('--number', type=int, default=100000)
    parser.add_argument('--child', help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child_rensa(args.number) if args.child == 'rensa' else child_torch(args.number)))
        return
    args.root = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
    args.pythonpath = os.path.abspath(args.pythonpath)
    sides = ['rensa', 'torch'] + (['baseline'] if args.baseline else [])
    print('load average {:.2f} at start'.format(os.getloadavg()[0]), flush=True)
    results = {side: [] for side in sides}
    for r in range(args.rounds):
        for side in sides:
            results[side].append(run_side(args, side))
            print('  round {} {:8s} '.format(r + 1, side) +
                  ', '.join('{} {:.3f} us'.format(k, v) for k, v in results[side][-1].items()), flush=True)
    med = {side: {k: statistics.median(r[k] for r in rounds) for k in rounds[0]} for side, rounds in results.items()}
    for key in ('variable', 'numpy', 'no_graph'):
        line = 'F.relu 1x10, {}: '.format(key) + ', '.join('{} {:.3f} us'.format(s, med[s][key]) for s in sides)
        line += ', rensa/torch {:.2f}'.format(med['rensa'][key] / med['torch'][key])
        if args.baseline:
            line += ', rensa/baseline {:.2f}'.format(med['rensa'][key] / med['baseline'][key])
        print(line)
    print('load average {:.2f} at end'.format(os.getloadavg()[0]))
    print(json.dumps(med))


if __name__ == '__main__':
    main()
