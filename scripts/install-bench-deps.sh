#!/usr/bin/env bash
# Creates .venv-bench with PyTorch (CPU use only) for benchmarks/compare and the training
# benchmarks (benchmarks/train_mlp, benchmarks/train_convnet). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ! -x .venv-bench/bin/python ]]; then
    /usr/bin/python3 -m venv .venv-bench
fi
if ! .venv-bench/bin/python -c "import torch" 2>/dev/null; then
    .venv-bench/bin/pip install --quiet --upgrade pip
    .venv-bench/bin/pip install --quiet -r benchmarks/compare/requirements.txt
fi
.venv-bench/bin/python -c "import torch; print('torch', torch.__version__, 'threads', torch.get_num_threads())"
