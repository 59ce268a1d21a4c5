# The two commands of the README: `make test` and `make demo`. Both install what they
# need first (scripts/install-deps.sh is idempotent). With CI=true, `make test` also
# runs the AddressSanitizer/UBSan build of the C++ tests.

.PHONY: deps configure build test docs test-asan test-fuzz soak demo bench bench-compare bench-train bench-distributed bench-scaling bench-python bench-chainer format clean gpu-check

deps:
	bash scripts/install-deps.sh

configure: deps
	cmake --preset default

build: configure
	cmake --build --preset default

test: build
	ctest --preset default
ifeq ($(CI),true)
	$(MAKE) test-asan
	$(MAKE) test-fuzz
endif

# The documentation (docs/, Sphinx) into build/docs/html, warnings as errors; the Python reference
# imports the package of build/python, the C++ one is read from the headers. `make test` runs the
# same build as the CTest test "docs: sphinx".
docs: configure
	cmake --build --preset default --target rensa_python
	RENSA_DOCS_PYTHONPATH=$(CURDIR)/build/python RENSA_DOCS_GENERATED=$(CURDIR)/build/docs/generated \
		.venv/bin/python -m sphinx -E -W --keep-going -q -b html -d build/docs/doctrees docs build/docs/html
	@echo "docs: build/docs/html/index.html"

test-asan: deps
	cmake --preset asan
	cmake --build --preset asan
	ctest --preset asan

# libFuzzer on the NPZ reader for 60 s (clang; tests/fuzz), seeded from tests/fuzz/corpus.
# New inputs it finds go to build-fuzz/corpus; a crash leaves crash-* in build-fuzz/.
test-fuzz: deps
	CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRENSA_FUZZ=ON \
		-DRENSA_WITH_TESTS=OFF -DRENSA_WITH_BENCHMARKS=OFF -DRENSA_WITH_CUDA=OFF -DRENSA_WITH_MPI=OFF \
		-DRENSA_WITH_PYTHON=OFF
	cmake --build build-fuzz --target fuzz_npz
	mkdir -p build-fuzz/corpus
	cd build-fuzz && ./tests/fuzz/fuzz_npz -max_total_time=60 -max_len=8192 -rss_limit_mb=2048 -timeout=10 \
		corpus ../tests/fuzz/corpus

# The soak test at length (`make test` runs it with 12 kills over 200 iterations): 2-rank training
# killed 150 times at random iterations, in random ways, and restarted from its multi-node checkpoint,
# on shared memory and then on the network path; the final parameters must equal those of an
# uninterrupted run bit for bit (tests/distributed/soak/run_soak.py; --seed replays a failure).
soak: build
	python3 tests/distributed/soak/run_soak.py --mpiexec mpiexec --prog build/tests/rensa_soak_prog --np 2 \
		--iterations 2000 --kills 150 --max-seconds 1500
	python3 tests/distributed/soak/run_soak.py --mpiexec mpiexec --prog build/tests/rensa_soak_prog --np 2 \
		--iterations 2000 --kills 150 --max-seconds 1500 \
		--env MPIR_CVAR_NOLOCAL=1 --env UCX_TLS=tcp,self --env UCX_NET_DEVICES=lo

# The main job: the mnist example (an MLP, Adam) on Fashion-MNIST for 3 epochs, data
# parallel on 2 MPI processes (examples/mnist/README.md), with the progress bar and the
# PrintReport table from rank 0; writes result/ (log, loss.svg, accuracy.svg, a snapshot)
# and fails unless the final test accuracy reaches 0.85. One OpenMP thread per process:
# 2 processes on the 2 cores, not 4 threads fighting over them.
demo: build
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 mpiexec -n 2 ./build/examples/mnist --epoch 3 --out result --min-accuracy 0.85

bench: build
	./build/benchmarks/bench_core --benchmark_counters_tabular=true

# Side by side with PyTorch on the CPU (benchmarks/compare/README.md); torch lives in .venv-bench only.
bench-compare: build
	bash scripts/install-bench-deps.sh
	cmake --build --preset default --target bench_compare
	.venv-bench/bin/python benchmarks/compare/compare.py --build build --json build/bench-compare.json

# Training throughput and peak memory against PyTorch at 1 and 2 threads, float32 and
# mixed_bf16 (torch.autocast), each against its compute bound (gemm_bound, conv_bound), and
# the MLP's test accuracy after 3 epochs in both dtypes (benchmarks/README.md, "Issue 24").
# Against real Chainer 7.8.1: make bench-chainer.
bench-train: build
	bash scripts/install-bench-deps.sh
	cmake --build --preset default --target train_mlp train_convnet gemm_bound conv_bound
	.venv-bench/bin/python benchmarks/train_mlp/run.py --build build --dtype mixed_bf16 --accuracy-epochs 3 --json build/bench-train-mlp.json
	.venv-bench/bin/python benchmarks/train_convnet/run.py --build build --dtype mixed_bf16 --json build/bench-train-convnet.json
	@echo "rensa against Chainer 7.8.1 (make demo and the Chainer-style script): make bench-chainer"

# Wall time of make demo's program (2 MPI ranks) and of the Chainer-style examples/mnist/train_mnist.py
# against real Chainer/ChainerMN 7.8.1 (.venv-chainermn), 1 epoch each (benchmarks/README.md, "Issue 24").
bench-chainer: build
	bash scripts/install-bench-deps.sh
	bash scripts/install-chainermn-bench.sh
	cmake --build --preset default --target example_mnist rensa_python
	.venv-bench/bin/python benchmarks/chainer/run.py --build build --json build/bench-chainer.json

# All-reduce against raw MPI_Allreduce, and MLP training on 2 processes x 1 thread against
# 1 x 1, real ChainerMN 7.8.1 (.venv-chainermn) and PyTorch DDP; then the same on the network
# path (no shared memory: MPI over TCP on loopback). benchmarks/README.md, "Distributed".
bench-distributed: build
	bash scripts/install-bench-deps.sh
	bash scripts/install-chainermn-bench.sh
	cmake --build --preset default --target bench_allreduce train_mlp_distributed
	.venv-bench/bin/python benchmarks/distributed/run.py --build build
	.venv-bench/bin/python benchmarks/distributed/run.py --build build --network --skip-torch

# The scaling model (benchmarks/scaling/README.md): step compute and all-reduce times measured
# here (4 KiB to 256 MiB), alpha-beta fits, predicted efficiency at 1..1024 ranks for ring and
# hierarchical all-reduce on this machine and on an H100/H200 cluster profile, validated
# against measured 2- and 3-process runs; SVG curves in result/scaling/. Python stdlib only.
bench-scaling: build
	cmake --build --preset default --target bench_scaling_comm bench_scaling_step train_mlp_distributed
	python3 benchmarks/scaling/run.py --build build

# The Python bindings against PyTorch: call overhead, a batch-1 step, Trainer throughput
# (benchmarks/README.md, "Python").
bench-python: build
	bash scripts/install-bench-deps.sh
	cmake --build --preset default --target rensa_python train_mlp
	.venv-bench/bin/python benchmarks/python/run.py --build build --json build/bench-python.json

format:
	git ls-files '*.h' '*.cc' '*.cu' '*.cuh' | xargs clang-format -i

clean:
	rm -rf build build-debug build-asan build-fuzz

# On a lent GPU machine (scripts/gpu-check.sh; README, "GPUs"): runs every [cuda] test, the
# NCCL test, the GPU benchmarks beside PyTorch, the harness on cuda:0 and memcheck, and prints
# a table. Carry build-gpu-carry, made here first by `bash scripts/gpu-check.sh --prepare`.
gpu-check:
	bash scripts/gpu-check.sh
