#!/usr/bin/env bash
# Creates .venv-chainermn with real Chainer/ChainerMN 7.8.1 (CPU only) for the ChainerMN
# side of benchmarks/distributed (chainermn_mlp.py); versions pinned in
# benchmarks/distributed/requirements-chainermn.txt. Idempotent: reinstalls only when
# that file changed. Needs mpicc and mpiexec (mpich, libmpich-dev: scripts/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
req=benchmarks/distributed/requirements-chainermn.txt
venv=.venv-chainermn
stamp=$venv/.requirements.stamp
for tool in mpicc mpiexec; do
    command -v "$tool" >/dev/null || { echo "$tool not found: run scripts/install-deps.sh (mpich, libmpich-dev)" >&2; exit 1; }
done
if [[ ! -x $venv/bin/python ]]; then
    /usr/bin/python3 -m venv "$venv"
fi
if [[ ! -f $stamp ]] || ! cmp -s "$req" "$stamp"; then
    echo "install-chainermn-bench: installing $req into $venv"
    pip=("$venv/bin/python" -m pip install -q --disable-pip-version-check)
    # Build tools first: chainer (source only) and mpi4py are built without isolation,
    # with these pinned versions (chainer's setup.py needs pkg_resources).
    mapfile -t build_tools < <(grep -E '^(setuptools|wheel)==' "$req")
    "${pip[@]}" "${build_tools[@]}"
    # mpi4py from source, so it links the system MPICH that mpiexec starts.
    MPICC=mpicc "${pip[@]}" --no-build-isolation --no-binary=mpi4py -r "$req"
    cp "$req" "$stamp"
else
    echo "install-chainermn-bench: $venv up to date"
fi
"$venv/bin/python" -c "import chainer, numpy, mpi4py; print('chainer', chainer.__version__, 'numpy', numpy.__version__, 'mpi4py', mpi4py.__version__)"
# Two ranks must start and see MPICH (the same library as rensa's programs).
mpiexec -n 2 "$venv/bin/python" -c "from mpi4py import MPI; print('rank', MPI.COMM_WORLD.Get_rank(), 'of', MPI.COMM_WORLD.Get_size(), MPI.Get_library_version().splitlines()[0])"
