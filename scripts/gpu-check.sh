#!/usr/bin/env bash
# One command for a lent GPU machine (issue 9): builds rensa with CUDA, runs every [cuda]
# test, the NCCL test when built, the GPU benchmarks against PyTorch, then the functions
# and links suites with the harness on cuda:0 (RENSA_TEST_ON_CUDA) in whatever time is
# left, and prints a short table last. Logs go to build-gpu/logs, and with $OUT set (the
# device tool's output folder) the table, the benchmark records and a tarball of the logs
# to $OUT. Exits non-zero when a build or a test failed.
#
#   bash scripts/gpu-check.sh [--budget SECONDS] [--jobs N] [--build DIR] [--no-harness]
#   bash scripts/gpu-check.sh --prepare-deps [DIR]   # here, before carrying DIR (below)
#
# The GPU machine has CMake, ninja, nvcc, a C++ compiler and Python with PyTorch (whose
# nvidia-cudnn / nvidia-nccl wheels we build against), and no package registry: Catch2,
# CLI11, OpenBLAS and pkg-config come from a folder made here by --prepare-deps
# (default build-gpu-deps, ignored by git; name it in the device tool's `carry`). Every
# step runs under `timeout`; the order puts what the issue needs first: [cuda] tests and
# benchmarks, then the harness sweep. The whole run stays within --budget (default 450 s).
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
BUDGET=450
JOBS=$(nproc 2>/dev/null || echo 4)
BUILD=build-gpu
DEPS=${RENSA_GPU_DEPS:-$ROOT/build-gpu-deps}
HARNESS=1

# copy_lib DIR LIB: LIB (followed through links) and the libraries it needs, except glibc's
# and the compiler's own, into DIR/lib under their sonames.
copy_lib() {
    local dir=$1 lib=$2 dep
    cp -L "$lib" "$dir/lib/$(basename "$lib")"
    for dep in $(ldd "$lib" | awk '/=>/ {print $3}'); do
        case $(basename "$dep") in
            libc.so* | libm.so* | libpthread.so* | libdl.so* | librt.so* | ld-linux* | libstdc++.so* | libgcc_s.so*) ;;
            *) [ -e "$dir/lib/$(basename "$dep")" ] || cp -L "$dep" "$dir/lib/" ;;
        esac
    done
}
# A pkg-config file for NAME in DIR whose prefix gpu-check.sh fills in on the GPU machine.
write_pc() {
    printf 'prefix=@DEPS@\nlibdir=${prefix}/lib\nincludedir=${prefix}/include\nName: %s\nDescription: %s (carried)\nVersion: %s\nLibs: -L${libdir} -l%s\nCflags: -I${includedir}\n' \
        "$2" "$2" "$3" "$4" >"$1/lib/pkgconfig/$2.pc.in"
}
# Copies the build dependencies the GPU machine lacks from this (Debian) machine: Catch2,
# CLI11, nlohmann_json (headers and CMake files), OpenBLAS, libzip and zlib (libraries,
# headers, pkg-config files) and pkg-config itself.
prepare_deps() {
    local dir=$1 ma=/usr/lib/x86_64-linux-gnu
    rm -rf "$dir" && mkdir -p "$dir/include" "$dir/lib/cmake" "$dir/lib/pkgconfig" "$dir/share/cmake" "$dir/bin" || return 1
    cp -r /usr/include/catch2 /usr/include/CLI /usr/include/nlohmann "$dir/include/" || return 1
    cp -r /usr/lib/cmake/Catch2 "$dir/lib/cmake/" && cp /usr/lib/libCatch2WithMain.a "$dir/lib/" || return 1
    cp -r /usr/share/cmake/CLI11 /usr/share/cmake/nlohmann_json "$dir/share/cmake/" || return 1
    cp /usr/include/x86_64-linux-gnu/openblas-pthread/*.h "$dir/include/" || return 1
    copy_lib "$dir" "$ma/openblas-pthread/libopenblas.so.0" && ln -sf libopenblas.so.0 "$dir/lib/libopenblas.so"
    write_pc "$dir" openblas 0.3.21 openblas
    cp /usr/include/zip.h /usr/include/zipconf.h /usr/include/zlib.h /usr/include/zconf.h "$dir/include/" || return 1
    copy_lib "$dir" "$ma/libzip.so.4" && ln -sf libzip.so.4 "$dir/lib/libzip.so"
    write_pc "$dir" libzip 1.7.3 zip
    copy_lib "$dir" "$ma/libz.so.1" && ln -sf libz.so.1 "$dir/lib/libz.so"
    copy_lib "$dir" "$(readlink -f "$(command -v pkg-config)")" && mv "$dir/lib/pkgconf" "$dir/bin/pkg-config"
    du -sh "$dir"
}

while [ $# -gt 0 ]; do
    case $1 in
        --prepare-deps) prepare_deps "${2:-$DEPS}"; exit $? ;;
        --budget) BUDGET=$2; shift ;;
        --jobs) JOBS=$2; shift ;;
        --build) BUILD=$2; shift ;;
        --no-harness) HARNESS=0 ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done

START=$(date +%s)
LOGS=$ROOT/$BUILD/logs
rm -rf "$LOGS" && mkdir -p "$LOGS"
SUMMARY=()     # table rows
FAILED=0
log() { echo "[gpu-check $(($(date +%s) - START))s] $*"; }
left() { echo $((BUDGET - ($(date +%s) - START))); }
# limit MAX RESERVE: seconds for a step, at most MAX, leaving RESERVE (scaled to the
# budget, given for the default one) for the later steps.
limit() {
    local l=$(($(left) - $2 * BUDGET / 450))
    [ "$l" -gt "$1" ] && l=$1
    [ "$l" -lt 5 ] && l=5
    echo "$l"
}

# --- Environment: dependencies carried from here, cuDNN and NCCL from PyTorch's wheels ---
if [ -d "$DEPS" ]; then
    for pc in "$DEPS"/lib/pkgconfig/*.pc.in; do sed "s|@DEPS@|$DEPS|g" "$pc" >"${pc%.in}"; done
    export PKG_CONFIG_PATH="$DEPS/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
    export CMAKE_PREFIX_PATH="$DEPS${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
    export LD_LIBRARY_PATH="$DEPS/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    command -v pkg-config >/dev/null || export PATH="$PATH:$DEPS/bin"
fi
PY=$(command -v python3 || command -v python)
# The folder of a wheel holding HEADER (nvidia/cudnn, nvidia/nccl, or nvidia/cu13/... in
# newer wheels), as a root with include/ and lib/ that CMake's find_library takes: the
# wheels ship only versioned libraries (libcudnn.so.9, libnccl.so.2).
wheel_root() {
    local header=$1 lib=$2 base found dir root versioned f
    base=$("$PY" -c "import nvidia; print(' '.join(nvidia.__path__))" 2>/dev/null) || return 1
    # shellcheck disable=SC2086  # several folders, one per path entry
    found=$(find $base -maxdepth 4 -name "$header" -path "*/include/*" 2>/dev/null | head -1)
    [ -n "$found" ] || return 1
    dir=$(dirname "$(dirname "$found")")
    [ -d "$dir/lib" ] || return 1
    root=$ROOT/$BUILD/wheel-roots/${lib#lib}
    mkdir -p "$root/lib"
    ln -sfn "$dir/include" "$root/include"
    for f in "$dir"/lib/*.so*; do ln -sf "$f" "$root/lib/"; done
    versioned=$(ls "$dir"/lib/"$lib".so.* 2>/dev/null | head -1)
    [ -n "$versioned" ] && ln -sf "$versioned" "$root/lib/$lib.so"
    echo "$root"
}
CMAKE_ARGS=(-DCMAKE_BUILD_TYPE=Release -DRENSA_TEST_ON_CUDA=ON -DRENSA_WITH_PYTHON=OFF -DRENSA_WITH_TESTS=ON
    -DRENSA_WITH_BENCHMARKS=ON -DRENSA_BENCHMARKS_GPU_ONLY=ON -DCMAKE_CUDA_ARCHITECTURES=90
    # CMake < 3.26 does not know nvcc's C++20 flag.
    -DCMAKE_CUDA20_STANDARD_COMPILE_OPTION=-std=c++20 -DCMAKE_CUDA20_EXTENSION_COMPILE_OPTION=-std=c++20)
# (Found in a subshell: the runtime search path is set here, for cuDNN's own dlopen calls too.)
if CUDNN_ROOT=$(wheel_root cudnn.h libcudnn); then
    CMAKE_ARGS+=(-DRENSA_CUDNN_ROOT="$CUDNN_ROOT")
    export LD_LIBRARY_PATH="$CUDNN_ROOT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
if NCCL_ROOT=$(wheel_root nccl.h libnccl); then
    CMAKE_ARGS+=(-DRENSA_NCCL_ROOT="$NCCL_ROOT")
    export LD_LIBRARY_PATH="$NCCL_ROOT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
[ -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null && export PATH="$PATH:/usr/local/cuda/bin"
command -v mpicc >/dev/null || CMAKE_ARGS+=(-DRENSA_WITH_MPI=OFF)
# Extra configure arguments (RENSA_GPU_CHECK_CMAKE_ARGS="-DRENSA_WERROR=ON", say).
# shellcheck disable=SC2206  # split into arguments on purpose
CMAKE_ARGS+=(${RENSA_GPU_CHECK_CMAKE_ARGS:-})
GEN=()
KEEP_GOING=(-- -k)  # one broken file must not stop the rest of a build step
command -v ninja >/dev/null && GEN=(-G Ninja) && KEEP_GOING=(-- -k 0)
command -v ccache >/dev/null && CMAKE_ARGS+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
{
    if command -v nvidia-smi >/dev/null; then
        nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
    else
        echo "nvidia-smi: none (no GPU driver)"
    fi
    nvcc --version 2>&1 | tail -1
    echo "cuDNN root: ${CUDNN_ROOT:-toolkit}; NCCL root: ${NCCL_ROOT:-toolkit}; deps: $DEPS; jobs: $JOBS"
} | tee "$LOGS/environment.txt"

# --- Configure and build what the first part needs -----------------------------------------
step() {  # step NAME SECONDS CMD...: runs CMD under timeout, logs to $LOGS/NAME.log, returns its status
    local name=$1 secs=$2
    shift 2
    log "$name (limit ${secs}s)"
    timeout -k 10 "$secs" "$@" >"$LOGS/$name.log" 2>&1
    local rc=$?
    [ $rc -eq 124 ] && echo "timed out after ${secs}s" >>"$LOGS/$name.log"
    log "$name: exit $rc"
    return $rc
}
has_target() { grep -qE "^$1:|/$1:|\.\.\. $1\$" <(cd "$BUILD" && { ninja -t targets all 2>/dev/null || make help 2>/dev/null; }); }

if ! step configure "$(limit 120 360)" cmake -S . -B "$BUILD" "${GEN[@]}" "${CMAKE_ARGS[@]}"; then
    tail -30 "$LOGS/configure.log"
    SUMMARY+=("configure|FAILED|see configure.log")
    FAILED=1
fi
grep -E "^-- (CUDA|NCCL|MPI|OpenBLAS)" "$LOGS/configure.log"
FIRST=()
for t in rensa_cuda_tests rensa_distributed_nccl_tests bench_gpu_ops bench_gpu_resnet50; do
    has_target "$t" && FIRST+=("$t")
done
if [ ${#FIRST[@]} -eq 0 ]; then
    SUMMARY+=("build|FAILED|no CUDA targets (CUDA backend not configured?)")
    FAILED=1
elif ! step build-cuda "$(limit 300 150)" cmake --build "$BUILD" -j "$JOBS" --target "${FIRST[@]}" "${KEEP_GOING[@]}"; then
    grep -E "error|FAILED" "$LOGS/build-cuda.log" | head -20
    SUMMARY+=("build cuda tests+benchmarks|FAILED|see build-cuda.log")
    FAILED=1
fi

# --- Tests ----------------------------------------------------------------------------------
# summarize_suite NAME RC: Catch2's summary line gives the counts; RENSA_SKIPPED lines the skips.
summarize_suite() {
    local name=$1 rc=$2 out=$LOGS/test-$1.log
    local skipped total failed passed="?" line
    skipped=$(grep -c "RENSA_SKIPPED" "$out")
    line=$(grep -E "^(All tests passed|test cases:)" "$out" | tail -1)
    total=$(grep -oE "[0-9]+ test case" <<<"$line" | grep -oE "[0-9]+")                    # All tests passed (... in N test cases)
    [ -z "$total" ] && total=$(grep -oE "^test cases: *[0-9]+" <<<"$line" | grep -oE "[0-9]+") # test cases: N | P passed | F failed
    failed=$(grep -oE "[0-9]+ failed( \||$)" <<<"$line" | grep -oE "[0-9]+") # not "N failed as expected"
    [ -n "$total" ] && [ -z "$failed" ] && failed=0
    [ -n "$total" ] && passed=$((total - failed - skipped))
    failed=${failed:-?}
    local status="passed $passed, failed $failed, skipped $skipped" unswept
    # check_function's warning for a check whose func captures host arrays (Note [Device sweep]).
    unswept=$(grep -c ": not run on cuda" "$out")
    [ "$unswept" -gt 0 ] && status="$status; $unswept checks not run on cuda:0 (host arrays, see log)"
    [ "$rc" -eq 124 ] && status="TIMED OUT ($status so far)"
    if [ "$rc" -ne 0 ]; then
        FAILED=1
        grep -E "FAILED|failed|error" "$out" | head -8
    fi
    SUMMARY+=("tests $name|$([ "$rc" -eq 0 ] && echo ok || echo FAILED)|$status")
}
# run_suite NAME EXE SECONDS: the suite's executable runs whole (one CUDA context, not one
# per test case as under CTest).
run_suite() {
    local name=$1 exe=$2 secs=$3
    if [ ! -x "$exe" ]; then
        SUMMARY+=("tests $name|not built|")
        return
    fi
    step "test-$name" "$secs" "$exe" --durations no
    summarize_suite "$name" $?
}
run_suite cuda "$BUILD/tests/rensa_cuda_tests" "$(limit 150 120)"
[ -x "$BUILD/tests/rensa_distributed_nccl_tests" ] &&
    run_suite nccl "$BUILD/tests/rensa_distributed_nccl_tests" "$(limit 60 110)"

# --- Benchmarks (side by side with PyTorch) --------------------------------------------------
if has_target bench_gpu_ops; then
    step benchmarks "$(limit 200 60)" env PYTHONUNBUFFERED=1 "$PY" benchmarks/gpu/run.py --build "$BUILD" \
        --timeout 90 --json "$LOGS/benchmarks.json"
    BENCH_TABLE=$(sed -n '/^benchmark /,$p' "$LOGS/benchmarks.log")
    [ -z "$BENCH_TABLE" ] && BENCH_TABLE=$(tail -5 "$LOGS/benchmarks.log")
fi

# --- The function harness on cuda:0: functions and links suites, in the time left ------------
if [ $HARNESS -eq 1 ] && [ "$(left)" -gt 60 ]; then
    HARNESS_TARGETS=()
    for dir in tests/functions/*/ tests/links/*/; do
        module=$(basename "$(dirname "$dir")")
        family=$(basename "$dir")
        ls "$dir"*.cc >/dev/null 2>&1 && HARNESS_TARGETS+=("rensa_${module}_${family}_tests")
    done
    step build-harness "$(limit 240 40)" cmake --build "$BUILD" -j "$JOBS" --target "${HARNESS_TARGETS[@]}" "${KEEP_GOING[@]}" ||
        SUMMARY+=("build harness suites|incomplete|see build-harness.log (suites built in time still run)")
    # Every suite at once (one per core; they share the GPU), each under its own limit.
    secs=$(limit 120 10)
    for t in "${HARNESS_TARGETS[@]}"; do
        [ -x "$BUILD/tests/$t" ] || continue
        (
            export OMP_NUM_THREADS=1
            step "test-${t#rensa_}" "$secs" "$BUILD/tests/$t" --durations no
            echo $? >"$LOGS/test-${t#rensa_}.rc"
        ) &
    done
    wait
    for t in "${HARNESS_TARGETS[@]}"; do
        if [ -f "$LOGS/test-${t#rensa_}.rc" ]; then
            summarize_suite "${t#rensa_}" "$(cat "$LOGS/test-${t#rensa_}.rc")"
        else
            SUMMARY+=("tests ${t#rensa_}|not built|")
        fi
    done
else
    SUMMARY+=("harness suites on cuda:0|not run|$([ $HARNESS -eq 1 ] && echo 'out of time' || echo '--no-harness')")
fi

# --- The table, last ---------------------------------------------------------------------------
{
    echo
    echo "==== gpu-check summary ($(($(date +%s) - START)) s, logs in $LOGS) ===="
    head -1 "$LOGS/environment.txt"
    printf '%-40s %-10s %s\n' "step" "result" "detail"
    for row in "${SUMMARY[@]}"; do
        IFS='|' read -r a b c <<<"$row"
        printf '%-40s %-10s %s\n' "$a" "$b" "$c"
    done
    echo
    echo "${BENCH_TABLE:-benchmarks: not run}"
    echo
    [ $FAILED -eq 0 ] && echo "gpu-check: PASSED" || echo "gpu-check: FAILED"
} | tee "$LOGS/summary.txt"
# The device tool brings back at most 8 files from $OUT: the table, the benchmark records and
# every log in one archive.
if [ -n "${OUT:-}" ] && mkdir -p "$OUT"; then
    cp "$LOGS/summary.txt" "$OUT/"
    [ -f "$LOGS/benchmarks.json" ] && cp "$LOGS/benchmarks.json" "$OUT/"
    tar -C "$LOGS" -czf "$OUT/gpu-check-logs.tar.gz" .
fi
exit $FAILED
