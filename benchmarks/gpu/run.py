#!/usr/bin/env python3
"""GPU benchmarks side by side (benchmarks/README.md, "GPU"; run by scripts/gpu-check.sh).

Runs bench_gpu_ops (ops::matmul vs cublasGemmEx, elementwise add vs the device copy
bandwidth) and bench_gpu_resnet50 (rensa's ResNet-50 training step) from the build
folder, the same ResNet-50 step in PyTorch eager (written here: torchvision may be
missing), and prints a table with each figure, its ratio and target. Every program runs
in its own process with a timeout. Without a GPU it prints "no GPU" and exits 0.

    python3 benchmarks/gpu/run.py --build build-gpu [--steps 20] [--warmup 3] [--json out.json]
"""

import argparse
import json
import os
import subprocess
import sys
import time


def run_json(cmd, timeout):
    """Runs cmd; returns (JSON objects of its output lines, 'no GPU' flag, error text)."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return [], False, f"timed out after {timeout} s: {' '.join(cmd)}"
    except OSError as e:
        return [], False, f"{e}: {' '.join(cmd)}"
    records = []
    for line in proc.stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    no_gpu = "no GPU" in proc.stdout
    error = None
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-5:]
        error = f"exit {proc.returncode}: " + " | ".join(tail)
    return records, no_gpu, error


# --- PyTorch ResNet-50 (Chainer's ImageNet example, the same as links::ResNet50) ----------

def torch_resnet50_main(dtype_name, batch, steps, warmup):
    try:
        import torch
        from torch import nn
    except ImportError:
        print("no PyTorch")
        return 1
    if not torch.cuda.is_available():
        print("no GPU")
        return 0

    def conv(cin, cout, k, stride, pad, bias=False):
        return nn.Conv2d(cin, cout, k, stride, pad, bias=bias)

    class BottleNeckA(nn.Module):
        def __init__(self, cin, ch, cout, stride):
            super().__init__()
            self.conv1, self.bn1 = conv(cin, ch, 1, 1, 0), nn.BatchNorm2d(ch)
            self.conv2, self.bn2 = conv(ch, ch, 3, stride, 1), nn.BatchNorm2d(ch)
            self.conv3, self.bn3 = conv(ch, cout, 1, 1, 0), nn.BatchNorm2d(cout)
            self.conv4, self.bn4 = conv(cin, cout, 1, stride, 0), nn.BatchNorm2d(cout)

        def forward(self, x):
            h = torch.relu(self.bn1(self.conv1(x)))
            h = torch.relu(self.bn2(self.conv2(h)))
            h = self.bn3(self.conv3(h))
            return torch.relu(h + self.bn4(self.conv4(x)))

    class BottleNeckB(nn.Module):
        def __init__(self, cin, ch):
            super().__init__()
            self.conv1, self.bn1 = conv(cin, ch, 1, 1, 0), nn.BatchNorm2d(ch)
            self.conv2, self.bn2 = conv(ch, ch, 3, 1, 1), nn.BatchNorm2d(ch)
            self.conv3, self.bn3 = conv(ch, cin, 1, 1, 0), nn.BatchNorm2d(cin)

        def forward(self, x):
            h = torch.relu(self.bn1(self.conv1(x)))
            h = torch.relu(self.bn2(self.conv2(h)))
            return torch.relu(self.bn3(self.conv3(h)) + x)

    def block(layers, cin, ch, cout, stride):
        return nn.Sequential(BottleNeckA(cin, ch, cout, stride), *[BottleNeckB(cout, ch) for _ in range(layers - 1)])

    class ResNet50(nn.Module):
        def __init__(self, n_class=1000):
            super().__init__()
            self.conv1, self.bn1 = conv(3, 64, 7, 2, 3, bias=True), nn.BatchNorm2d(64)
            self.pool = nn.MaxPool2d(3, 2, ceil_mode=True)  # Chainer's cover_all
            self.res2 = block(3, 64, 64, 256, 1)
            self.res3 = block(4, 256, 128, 512, 2)
            self.res4 = block(6, 512, 256, 1024, 2)
            self.res5 = block(3, 1024, 512, 2048, 2)
            self.fc = nn.Linear(2048, n_class)

        def forward(self, x):
            h = self.pool(torch.relu(self.bn1(self.conv1(x))))
            h = self.res5(self.res4(self.res3(self.res2(h))))
            return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(h, 1), 1))

    # TF32 off as in rensa's run; cuDNN picks algorithms per shape (rensa caches its choice too).
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    torch.manual_seed(0)
    dev = torch.device("cuda:0")
    model = ResNet50().to(dev)
    dtype = torch.bfloat16 if dtype_name == "bfloat16" else torch.float32
    if dtype != torch.float32:  # conv/linear weights in bfloat16, batch norm in float32, as rensa
        for m in model.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                m.to(dtype)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = torch.empty(batch, 3, 224, 224, device=dev).uniform_(-1, 1).to(dtype)
    t = torch.randint(0, 1000, (batch,), device=dev)
    loss_fn = nn.CrossEntropyLoss()

    def step():
        opt.zero_grad(set_to_none=True)
        out = model(x)
        loss = loss_fn(out.float(), t)
        loss.backward()
        opt.step()
        return loss

    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(steps):
        loss = step()
    torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    print(json.dumps({"bench": "resnet50_train", "framework": "pytorch", "dtype": dtype_name, "batch": batch,
                      "steps": steps, "step_ms": round(seconds * 1e3 / steps, 2),
                      "images_per_s": round(batch * steps / seconds, 1), "loss": round(float(loss), 4)}))
    return 0


# --- The runner -----------------------------------------------------------------------------

def find_program(build, name):
    for path in (os.path.join(build, "benchmarks", "gpu", name), os.path.join(build, name)):
        if os.path.exists(path):
            return path
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build-gpu")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--n", type=int, default=4096, help="matmul size")
    ap.add_argument("--timeout", type=int, default=150, help="seconds per program")
    ap.add_argument("--json", help="write every record here")
    ap.add_argument("--torch-resnet50", metavar="DTYPE", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.torch_resnet50:
        return torch_resnet50_main(args.torch_resnet50, args.batch, args.steps, args.warmup)

    rows, records, errors, no_gpu = [], [], [], False

    ops = find_program(args.build, "bench_gpu_ops")
    if ops:
        recs, flag, err = run_json([ops, "--n", str(args.n), "--iters", str(args.steps)], args.timeout)
        no_gpu |= flag
        records += recs
        if err:
            errors.append(f"bench_gpu_ops: {err}")
        for r in recs:
            rensa = f"{r['rensa_ms']:.3f} ms" + (f" ({r['rensa_gbps']:.0f} GB/s)" if "rensa_gbps" in r else "")
            ref = f"{r['reference_ms']:.3f} ms" + (f" ({r['reference_gbps']:.0f} GB/s)" if "reference_gbps" in r else "")
            rows.append((f"{r['bench']} {r['config']}", rensa, f"{r['reference']}: {ref}", r["ratio"], r["target"]))
    else:
        errors.append("bench_gpu_ops: not built")

    resnet = find_program(args.build, "bench_gpu_resnet50")
    for dtype in ("float32", "bfloat16"):
        sizes = ["--batch", str(args.batch), "--steps", str(args.steps), "--warmup", str(args.warmup)]
        mine = None
        if resnet:
            recs, flag, err = run_json([resnet, "--dtype", dtype] + sizes, args.timeout)
            no_gpu |= flag
            records += recs
            mine = recs[0] if recs else None
            if err:
                errors.append(f"bench_gpu_resnet50 {dtype}: {err}")
        else:
            errors.append("bench_gpu_resnet50: not built")
        recs, flag, err = run_json([sys.executable, os.path.abspath(__file__), "--torch-resnet50", dtype] + sizes,
                                   args.timeout)
        records += recs
        theirs = recs[0] if recs else None
        if err:
            errors.append(f"pytorch resnet50 {dtype}: {err}")
        ratio = mine["images_per_s"] / theirs["images_per_s"] if mine and theirs else None
        rows.append((f"resnet50 train b{args.batch} {dtype}",
                     f"{mine['images_per_s']:.0f} img/s" if mine else "-",
                     f"pytorch eager: {theirs['images_per_s']:.0f} img/s" if theirs else "pytorch eager: -",
                     ratio, 1.0))

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"records": records, "errors": errors, "no_gpu": no_gpu}, f, indent=1)
    if no_gpu and not records:
        print("no GPU: GPU benchmarks not run")
        return 0

    print(f"{'benchmark':<32} {'rensa':<26} {'reference':<40} {'ratio':>6} {'target':>6}  ok")
    for name, mine, ref, ratio, target in rows:
        ok = "-" if ratio is None else ("yes" if ratio >= target else "NO")
        ratio_text = "-" if ratio is None else f"{ratio:.2f}"
        print(f"{name:<32} {mine:<26} {ref:<40} {ratio_text:>6} {target:>6}  {ok}")
    for e in errors:
        print(f"error: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
