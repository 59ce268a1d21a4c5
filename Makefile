# The two commands of the README: `make test` and `make demo`. Both install what they
# need first (scripts/install-deps.sh is idempotent). With CI=true, `make test` also
# runs the AddressSanitizer/UBSan build of the C++ tests.

.PHONY: deps configure build test test-asan demo bench bench-compare format clean

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
endif

test-asan: deps
	cmake --preset asan
	cmake --build --preset asan
	ctest --preset asan

demo: build
	./build/examples/core_demo

bench: build
	./build/benchmarks/bench_core --benchmark_counters_tabular=true

# Side by side with PyTorch on the CPU (benchmarks/compare/README.md); torch lives in .venv-bench only.
bench-compare: build
	bash scripts/install-bench-deps.sh
	cmake --build --preset default --target bench_compare
	.venv-bench/bin/python benchmarks/compare/compare.py --build build

format:
	git ls-files '*.h' '*.cc' '*.cu' '*.cuh' | xargs clang-format -i

clean:
	rm -rf build build-debug build-asan
