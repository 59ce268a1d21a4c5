#!/usr/bin/env bash
# One command for a lent GPU machine (issues 9 and 19). Here, first:
#
#   bash scripts/gpu-check.sh --prepare      # builds the GPU test programs here and packs them
#
# then on the GPU machine, carrying build-gpu-carry (the device tool's `carry`):
#
#   bash scripts/gpu-check.sh [--budget SECONDS] [--jobs N] [--no-harness]
#
# It runs every [cuda] test, the NCCL test (np = 1), the GPU benchmarks against PyTorch, the
# functions and links suites with the harness on cuda:0 (RENSA_TEST_ON_CUDA), then the [cuda]
# tests under compute-sanitizer's memcheck in the time left, and prints a table last. After a
# failed suite each failing case runs again alone with CUDA_LAUNCH_BLOCKING=1 (a device fault
# is sticky: that tells the faulting case from the ones it poisoned); the table names every
# failing case. A suite that hits its time cap is reported as such, not as failed.
#
# The programs come prebuilt from here (build-gpu-carry/prebuilt.tar.xz: the test programs,
# rensa's modules as shared libraries and the libraries they need that the GPU machine lacks,
# MPICH's among them), so the GPU's minutes go to running, not compiling. They are used only
# when they were built from the same sources as the tree there (a hash of the sources); else,
# or when they do not load, everything is built there as before, from the dependencies in
# build-gpu-carry/deps.tar.xz (Catch2, CLI11, nlohmann_json, OpenBLAS, libzip, zlib,
# pkg-config: that machine has no package registry).
#
#   bash scripts/gpu-check.sh --dry-run      # here, after --prepare: the GPU run without a GPU
#   bash scripts/gpu-check.sh --prepare-deps [DIR]   # only the dependencies (default build-gpu-deps)
#
# The dry run unpacks the carried programs as the GPU machine does, runs them (they skip) and
# prints the table with every row. Logs go to build-gpu/logs, and with $OUT set (the device
# tool's output folder) the table, the benchmark records and a tarball of the logs to $OUT.
# Exits non-zero when a build or a test failed.
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
BUDGET=450
JOBS=$(nproc 2>/dev/null || echo 4)
BUILD=build-gpu
DEPS=${RENSA_GPU_DEPS:-$ROOT/build-gpu-deps}
CARRY=$ROOT/build-gpu-carry    # what --prepare makes and the GPU machine receives
PREBUILD=$ROOT/build-gpu-prebuilt  # the build here that --prepare packs
PRE=$ROOT/build-gpu-pre        # where the carried programs are unpacked
HARNESS=1
MODE=run
PY=$(command -v python3 || command -v python)
SUITE=("$PY" "$ROOT/scripts/gpu_suite.py")

# copy_lib DIR LIB: LIB (followed through links) and copy_deps.
copy_lib() {
    [ -e "$1/lib/$(basename "$2")" ] || cp -L "$2" "$1/lib/$(basename "$2")"
    copy_deps "$1" "$2"
}
# copy_deps DIR FILE: the libraries FILE needs, except glibc's, the compiler's own, CUDA's (the
# GPU machine has its own) and rensa's, into DIR/lib under their sonames.
copy_deps() {
    local dir=$1 lib=$2 dep
    for dep in $(ldd "$lib" | awk '/=>/ {print $3}'); do
        case $(basename "$dep") in
            libc.so* | libm.so* | libpthread.so* | libdl.so* | librt.so* | ld-linux* | libstdc++.so* | libgcc_s.so*) ;;
            libcuda.so* | libcudart.so* | libcublas*.so* | libcudnn*.so* | libnccl.so* | libnvrtc*.so* | librensa_*) ;;
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

# A hash of the sources the programs are built from (C++, CUDA and CMake files), the same
# here and on the GPU machine (which may have no .git): carried programs of other sources
# would test other code.
source_hash() {
    (cd "$ROOT" && find CMakeLists.txt cmake core cuda autograd serializers functions links optimizers training \
        distributed tests benchmarks -type f \( -name '*.h' -o -name '*.cc' -o -name '*.cu' -o -name '*.cuh' \
        -o -name CMakeLists.txt -o -name '*.cmake' \) 2>/dev/null | LC_ALL=C sort | xargs sha256sum) |
        sha256sum | cut -c1-16
}

# The programs of the check: the [cuda] suite, the NCCL suite, the GPU benchmarks, and the
# functions and links suites (the harness sweep), as tests/NAME or benchmarks/gpu/NAME.
FIRST=(tests/rensa_cuda_tests tests/rensa_distributed_nccl_tests benchmarks/gpu/bench_gpu_ops
    benchmarks/gpu/bench_gpu_resnet50)
HARNESS_PROGRAMS=()
for dir in tests/functions/*/ tests/links/*/; do
    ls "$dir"*.cc >/dev/null 2>&1 &&
        HARNESS_PROGRAMS+=("tests/rensa_$(basename "$(dirname "$dir")")_$(basename "$dir")_tests")
done
# The configuration both builds share.
CMAKE_ARGS=(-DCMAKE_BUILD_TYPE=Release -DRENSA_TEST_ON_CUDA=ON -DRENSA_WITH_PYTHON=OFF -DRENSA_WITH_TESTS=ON
    -DRENSA_WITH_BENCHMARKS=ON -DRENSA_BENCHMARKS_GPU_ONLY=ON -DCMAKE_CUDA_ARCHITECTURES=90)
# Built here for another machine: no -march=native, no oneDNN (40 MB, and the GPU machine's
# own build has none), modules as shared libraries (the test programs would each hold all
# of them; the GPU run puts the carried ones first on the library path).
PREBUILT_ARGS=(-DRENSA_NATIVE_ARCH=OFF -DRENSA_WITH_DNNL=OFF -DRENSA_SHARED_MODULES=ON)

# --prepare: build here, stage bin/lib in the layout of a build tree, pack it with the deps.
prepare() {
    local stage=$PREBUILD/stage targets=() p f
    prepare_deps "$DEPS" || return 1
    cmake -S . -B "$PREBUILD" -G Ninja "${CMAKE_ARGS[@]}" "${PREBUILT_ARGS[@]}" || return 1
    for p in "${FIRST[@]}" "${HARNESS_PROGRAMS[@]}"; do
        (cd "$PREBUILD" && ninja -t targets all 2>/dev/null | grep -q "^$(basename "$p"):") && targets+=("$(basename "$p")")
    done
    cmake --build "$PREBUILD" -j "$JOBS" --target "${targets[@]}" || return 1
    rm -rf "$stage" && mkdir -p "$stage/lib" "$stage/tests" "$stage/benchmarks/gpu" || return 1
    for p in "${FIRST[@]}" "${HARNESS_PROGRAMS[@]}"; do
        [ -x "$PREBUILD/$p" ] && cp "$PREBUILD/$p" "$stage/$p"
    done
    find "$PREBUILD" -name 'librensa_*.so' -not -path "$stage/*" -exec cp {} "$stage/lib/" \;
    # What the programs and modules need beyond glibc, the compiler's and CUDA's libraries.
    export LD_LIBRARY_PATH="$stage/lib:/usr/local/cuda/lib64:/usr/local/cuda/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    for f in "$stage"/tests/* "$stage"/benchmarks/gpu/* "$stage"/lib/librensa_*.so; do copy_deps "$stage" "$f"; done
    # MPICH's UCX loads its transports from the folder beside libucs.
    [ -e "$stage/lib/libucs.so.0" ] && [ -d /usr/lib/x86_64-linux-gnu/ucx ] &&
        mkdir -p "$stage/lib/ucx" && cp -L /usr/lib/x86_64-linux-gnu/ucx/*.so.0 "$stage/lib/ucx/"
    {
        echo "source_hash $(source_hash)"
        echo "commit $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD 2>/dev/null || echo +changes)"
        echo "built $(date -u +%Y-%m-%dT%H:%MZ) with $(nvcc --version 2>/dev/null | tail -1)"
    } >"$stage/manifest.txt"
    rm -rf "$CARRY" && mkdir -p "$CARRY" || return 1
    XZ_OPT=-T0 tar -C "$stage" -cJf "$CARRY/prebuilt.tar.xz" . || return 1
    XZ_OPT=-T0 tar -C "$(dirname "$DEPS")" -cJf "$CARRY/deps.tar.xz" "$(basename "$DEPS")" || return 1
    local tree carry
    tree=$(git ls-files -z | xargs -0 du -cb 2>/dev/null | tail -1 | cut -f1)
    carry=$(du -cb "$CARRY"/* | tail -1 | cut -f1)
    cat "$stage/manifest.txt"
    du -h "$CARRY"/*
    echo "travels: $(((tree + carry) / 1048576)) MiB of 64 (tree $((tree / 1048576)) MiB, $CARRY $((carry / 1048576)) MiB)"
    echo "On the GPU machine: carry [\"build-gpu-carry\"] and run: bash scripts/gpu-check.sh --budget 420"
}

while [ $# -gt 0 ]; do
    case $1 in
        --prepare-deps) prepare_deps "${2:-$DEPS}"; exit $? ;;
        --prepare) MODE=prepare ;;
        --dry-run) MODE=dry ;;
        --budget) BUDGET=$2; shift ;;
        --jobs) JOBS=$2; shift ;;
        --build) BUILD=$2; shift ;;
        --no-harness) HARNESS=0 ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
if [ "$MODE" = prepare ]; then
    prepare
    exit $?
fi

START=$(date +%s)
LOGS=$ROOT/$BUILD/logs
rm -rf "$LOGS" && mkdir -p "$LOGS"
SUMMARY=()     # table rows: step|result|detail
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
GPU=0
command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q GPU && GPU=1
if [ "$MODE" = dry ]; then
    [ -f "$CARRY/prebuilt.tar.xz" ] || { echo "gpu-check --dry-run: no $CARRY/prebuilt.tar.xz; run --prepare first" >&2; exit 2; }
    GPU=0
fi
NO_GPU=()
[ $GPU -eq 0 ] && NO_GPU=(--no-gpu)

# --- Environment: carried files, cuDNN and NCCL from PyTorch's wheels ------------------------
if [ -f "$CARRY/deps.tar.xz" ] && [ ! -d "$DEPS" ] && [ "$MODE" = run ]; then
    mkdir -p "$(dirname "$DEPS")" && tar -C "$(dirname "$DEPS")" -xJf "$CARRY/deps.tar.xz"
fi
if [ -d "$DEPS" ]; then
    for pc in "$DEPS"/lib/pkgconfig/*.pc.in; do sed "s|@DEPS@|$DEPS|g" "$pc" >"${pc%.in}"; done
    export PKG_CONFIG_PATH="$DEPS/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
    export CMAKE_PREFIX_PATH="$DEPS${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
    command -v pkg-config >/dev/null || export PATH="$PATH:$DEPS/bin"
fi
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
# Library search path: carried libraries, the wheels' cuDNN and NCCL, then CUDA's own.
RUNTIME_PATH=""
add_path() { [ -d "$1" ] && RUNTIME_PATH="${RUNTIME_PATH:+$RUNTIME_PATH:}$1"; }
[ -d "$DEPS" ] && add_path "$DEPS/lib"
# (Found in a subshell: the runtime search path is set here, for cuDNN's own dlopen calls too.)
if CUDNN_ROOT=$(wheel_root cudnn.h libcudnn); then
    CMAKE_ARGS+=(-DRENSA_CUDNN_ROOT="$CUDNN_ROOT")
    add_path "$CUDNN_ROOT/lib"
fi
if NCCL_ROOT=$(wheel_root nccl.h libnccl); then
    CMAKE_ARGS+=(-DRENSA_NCCL_ROOT="$NCCL_ROOT")
    add_path "$NCCL_ROOT/lib"
fi
for d in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib; do add_path "$d"; done
export LD_LIBRARY_PATH="$RUNTIME_PATH${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null && export PATH="$PATH:/usr/local/cuda/bin"
# Open MPI (the GPU machine's MPI, for its own build) refuses root unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{
    if [ $GPU -eq 1 ]; then
        nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
    else
        echo "no GPU$([ "$MODE" = dry ] && echo " (dry run)")"
    fi
    nvcc --version 2>&1 | tail -1
    lscpu 2>/dev/null | grep -m1 "Model name" | sed 's/  */ /g'
    echo "cuDNN root: ${CUDNN_ROOT:-toolkit}; NCCL root: ${NCCL_ROOT:-toolkit}; deps: $DEPS; jobs: $JOBS"
} | tee "$LOGS/environment.txt"

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

# --- The programs: carried ones when they match these sources and load, else built here ------
BIN=""
if [ -f "$CARRY/prebuilt.tar.xz" ]; then
    rm -rf "$PRE" && mkdir -p "$PRE" && tar -C "$PRE" -xJf "$CARRY/prebuilt.tar.xz"
    want=$(source_hash)
    have=$(awk '/^source_hash/ {print $2}' "$PRE/manifest.txt" 2>/dev/null)
    missing=$(for p in "$PRE"/tests/* "$PRE"/benchmarks/gpu/*; do
        LD_LIBRARY_PATH="$PRE/lib:$LD_LIBRARY_PATH" ldd "$p" 2>&1 | grep "not found"; done | sort -u | tr -s ' \t\n' ' ')
    if [ "$have" != "$want" ]; then
        log "carried programs are of other sources (hash $have, here $want): building here"
        SUMMARY+=("prebuilt programs|not used|built from other sources ($have, tree $want): run --prepare again")
    elif [ -n "$missing" ]; then
        log "carried programs do not load: $missing"
        SUMMARY+=("prebuilt programs|not used|missing libraries: $missing")
    else
        BIN=$PRE
        export LD_LIBRARY_PATH="$PRE/lib:$LD_LIBRARY_PATH"
        export UCX_MODULE_DIR="$PRE/lib/ucx"
        SUMMARY+=("prebuilt programs|used|$(grep -v source_hash "$PRE/manifest.txt" | tr '\n' ' ')")
    fi
fi
if [ -z "$BIN" ] && [ "$MODE" = dry ]; then
    SUMMARY+=("build|FAILED|the dry run checks the carried programs, which cannot be used")
    FAILED=1
elif [ -z "$BIN" ]; then
    BIN=$ROOT/$BUILD
    GEN=()
    KEEP_GOING=(-- -k)  # one broken file must not stop the rest of a build step
    command -v ninja >/dev/null && GEN=(-G Ninja) && KEEP_GOING=(-- -k 0)
    command -v ccache >/dev/null && CMAKE_ARGS+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
    command -v mpicc >/dev/null || CMAKE_ARGS+=(-DRENSA_WITH_MPI=OFF)
    # Extra configure arguments (RENSA_GPU_CHECK_CMAKE_ARGS="-DRENSA_WERROR=ON", say).
    # shellcheck disable=SC2206  # split into arguments on purpose
    CMAKE_ARGS+=(${RENSA_GPU_CHECK_CMAKE_ARGS:-})
    if ! step configure "$(limit 120 360)" cmake -S . -B "$BUILD" "${GEN[@]}" "${CMAKE_ARGS[@]}"; then
        tail -30 "$LOGS/configure.log"
        SUMMARY+=("configure|FAILED|see configure.log")
        FAILED=1
    fi
    grep -E "^-- (CUDA|NCCL|MPI|OpenBLAS)" "$LOGS/configure.log"
    has_target() { grep -qE "^$1:|/$1:|\.\.\. $1\$" <(cd "$BUILD" && { ninja -t targets all 2>/dev/null || make help 2>/dev/null; }); }
    build_step() {  # build_step NAME SECONDS PROGRAM...: builds the programs that have targets
        local name=$1 secs=$2 targets=() p
        shift 2
        for p in "$@"; do has_target "$(basename "$p")" && targets+=("$(basename "$p")"); done
        if [ ${#targets[@]} -eq 0 ]; then
            SUMMARY+=("build $name|FAILED|no targets (CUDA backend not configured?)")
            FAILED=1
        elif ! step "build-$name" "$secs" cmake --build "$BUILD" -j "$JOBS" --target "${targets[@]}" "${KEEP_GOING[@]}"; then
            grep -E "error|FAILED" "$LOGS/build-$name.log" | head -20
            SUMMARY+=("build $name|FAILED|see build-$name.log (what was built in time still runs)")
            FAILED=1
        fi
    }
    build_step cuda "$(limit 300 150)" "${FIRST[@]}"
    [ $HARNESS -eq 1 ] && build_step harness "$(limit 240 140)" "${HARNESS_PROGRAMS[@]}"
fi

# --- Suites ------------------------------------------------------------------------------------
# run_suite NAME PROGRAM SECONDS [ARGS...]: gpu_suite.py runs it and prints the rows.
add_rows() {  # add_rows FILE: the ROW lines of gpu_suite.py's output into the table
    local line
    while IFS= read -r line; do SUMMARY+=("${line#ROW|}"); done < <(grep '^ROW|' "$1")
}
run_suite() {
    local name=$1 exe=$BIN/$2 secs=$3 rc
    shift 3
    if [ ! -x "$exe" ]; then
        SUMMARY+=("tests $name|not built|")
        return
    fi
    log "tests $name (limit ${secs}s)"
    "${SUITE[@]}" run --name "$name" --exe "$exe" --limit "$secs" --logs "$LOGS" "$@" >"$LOGS/rows-$name.txt" 2>&1
    rc=$?
    log "tests $name: exit $rc"
    [ $rc -eq 1 ] && FAILED=1
    grep -q '^ROW|' "$LOGS/rows-$name.txt" || { SUMMARY+=("tests $name|FAILED|see rows-$name.txt"); FAILED=1; }
    add_rows "$LOGS/rows-$name.txt"
}
if [ -n "$BIN" ]; then
    run_suite cuda tests/rensa_cuda_tests "$(limit 150 120)" --isolate 60 "${NO_GPU[@]}"
    # One GPU allows one rank: the NCCL suite runs as a singleton MPI job (no mpiexec).
    run_suite nccl-np1 tests/rensa_distributed_nccl_tests "$(limit 60 110)" --isolate 30 "${NO_GPU[@]}"
fi

# --- Benchmarks (side by side with PyTorch) --------------------------------------------------
if [ -n "$BIN" ] && [ -x "$BIN/benchmarks/gpu/bench_gpu_ops" ]; then
    step benchmarks "$(limit 200 60)" env PYTHONUNBUFFERED=1 "$PY" benchmarks/gpu/run.py --build "$BIN" \
        --timeout 90 --json "$LOGS/benchmarks.json"
    if grep -q "^no GPU" "$LOGS/benchmarks.log"; then
        SUMMARY+=("benchmarks|skipped: no GPU|the programs start and print no GPU")
    else
        BENCH_TABLE=$(sed -n '/^benchmark /,$p' "$LOGS/benchmarks.log")
        [ -z "$BENCH_TABLE" ] && BENCH_TABLE=$(tail -5 "$LOGS/benchmarks.log")
        SUMMARY+=("benchmarks|$(grep -q '^benchmark ' "$LOGS/benchmarks.log" && echo ran || echo FAILED)|table below")
    fi
else
    SUMMARY+=("benchmarks|not built|")
fi

# --- The function harness on cuda:0: functions and links suites, in the time left ------------
if [ -n "$BIN" ] && [ $HARNESS -eq 1 ] && [ "$(left)" -gt 40 ]; then
    # Every suite at once (one per core; they share the GPU), each under its own cap. Without a
    # GPU they would only run on native, as CI does: the dry run checks that each one starts.
    secs=$(limit 120 10)
    log "harness suites (limit ${secs}s each)"
    extra=()
    [ $GPU -eq 0 ] && extra=(--list-only)
    for p in "${HARNESS_PROGRAMS[@]}"; do
        name=$(basename "$p" _tests)
        name=${name#rensa_}
        if [ ! -x "$BIN/$p" ]; then
            echo "ROW|tests $name|not built|" >"$LOGS/rows-$name.txt"
            continue
        fi
        OMP_NUM_THREADS=1 "${SUITE[@]}" run --name "$name" --exe "$BIN/$p" --limit "$secs" --logs "$LOGS" \
            --isolate 30 "${NO_GPU[@]}" "${extra[@]}" >"$LOGS/rows-$name.txt" 2>&1 &
    done
    wait
    for p in "${HARNESS_PROGRAMS[@]}"; do
        name=$(basename "$p" _tests)
        name=${name#rensa_}
        grep -q '^ROW|[^|]*|FAILED' "$LOGS/rows-$name.txt" && FAILED=1
        add_rows "$LOGS/rows-$name.txt"
    done
    log "harness suites done"
else
    SUMMARY+=("harness suites on cuda:0|not run|$([ $HARNESS -eq 1 ] && echo 'out of time or not built' || echo '--no-harness')")
fi

# --- compute-sanitizer memcheck of the [cuda] suite, exact-size blocks, in the time left ----
SANITIZER=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ $GPU -eq 0 ]; then
    SUMMARY+=("memcheck cuda|skipped: no GPU|")
elif [ -z "$SANITIZER" ]; then
    SUMMARY+=("memcheck cuda|not run|no compute-sanitizer here")
elif [ -n "$BIN" ] && [ -x "$BIN/tests/rensa_cuda_tests" ] && [ "$(left)" -gt 45 ]; then
    secs=$(($(left) - 15))
    log "memcheck (limit ${secs}s)"
    "${SUITE[@]}" memcheck --name cuda --exe "$BIN/tests/rensa_cuda_tests" --sanitizer "$SANITIZER" \
        --limit "$secs" --logs "$LOGS" >"$LOGS/rows-memcheck.txt" 2>&1
    [ $? -eq 1 ] && FAILED=1
    add_rows "$LOGS/rows-memcheck.txt"
    log "memcheck done"
else
    SUMMARY+=("memcheck cuda|not run|out of time")
fi

# --- The table, last ---------------------------------------------------------------------------
{
    echo
    echo "==== gpu-check summary ($(($(date +%s) - START)) s, logs in $LOGS) ===="
    head -1 "$LOGS/environment.txt"
    printf '%-44s %-16s %s\n' "step" "result" "detail"
    for row in "${SUMMARY[@]}"; do
        IFS='|' read -r a b c <<<"$row"
        printf '%-44s %-16s %s\n' "$a" "$b" "$c"
    done
    echo
    echo "${BENCH_TABLE:-benchmarks: no table}"
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
