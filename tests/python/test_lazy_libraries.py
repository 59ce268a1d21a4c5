"""`import rensa` loads neither MPI (nor UCX under it) nor the CUDA libraries; they load on
first use, and Python's crash handler survives the import (issue 20, item 9). See Note [Lazy
native libraries] (python/CMakeLists.txt) and Note [Lazy CUDA] (python/src/core_cuda.cc)."""
import glob
import json
import os
import shutil
import subprocess
import sys

import pytest

import rensa

INFO = rensa._core.runtime_info()
MPI_LIBS = ('libmpi', 'libucp', 'libuct', 'libucs', 'libucm')
CUDA_LIBS = ('libcudart', 'libcublas', 'libcudnn', 'libnccl', 'librensa_runtime_cuda')

MAPPED = '''
def mapped(names):
    with open('/proc/self/maps') as f:
        paths = {line.split()[-1] for line in f if '/' in line}
    return sorted({os.path.basename(p) for p in paths if os.path.basename(p).startswith(names)})
'''


def run(code, *prefix, timeout=120):
    """Runs `code` in a fresh interpreter (with this one's sys.path) and returns it finished."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    env.pop('PYTHONFAULTHANDLER', None)
    command = [sys.executable, '-c', 'import os, sys\n' + MAPPED + code]
    return subprocess.run(list(prefix) + command, env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_import_maps_neither_mpi_nor_cuda():
    r = run('import rensa\nprint(mapped({!r} + {!r}))'.format(MPI_LIBS, CUDA_LIBS))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == '[]', 'import rensa mapped ' + r.stdout


def test_runtime_info_loads_no_mpi():
    r = run('import rensa\nrensa.print_runtime_info()\nprint(mapped({!r}))'.format(MPI_LIBS))
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1] == '[]'


def last_json_line(r):
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not INFO['mpi'], reason='rensa was built without MPI')
def test_mpi_loads_with_the_first_communicator():
    code = """import json, rensa
before = mapped({libs!r})
import rensa.distributed as chainermn
comm = chainermn.create_communicator('naive')
print(json.dumps([before, mapped({libs!r}), comm.size]))
""".format(libs=MPI_LIBS)
    mpiexec = shutil.which('mpiexec')
    before, after, size = last_json_line(run(code, *([mpiexec, '-n', '1'] if mpiexec else [])))
    assert before == [] and size == 1
    assert any(name.startswith('libmpi') for name in after), after


@pytest.mark.skipif(not INFO['cuda_built'], reason='rensa was built without CUDA')
def test_cuda_loads_on_first_use():
    code = """import json, rensa
before = mapped({libs!r})
rensa.cuda.device_count()
print(json.dumps([before, mapped({libs!r})]))
""".format(libs=CUDA_LIBS)
    before, after = last_json_line(run(code))
    assert before == []
    assert any(name.startswith('librensa_runtime_cuda') for name in after), after


@pytest.mark.skipif(shutil.which('nm') is None, reason='needs nm (binutils)')
def test_extensions_share_one_runtime():
    # Each extension takes the C++ modules from librensa_runtime*.so beside it: a copy of their
    # code in an extension would be a second copy of their state (device context, caches).
    folder = os.path.dirname(rensa._core.__file__)
    extensions = glob.glob(os.path.join(folder, '_*.so'))
    assert extensions
    for path in extensions:
        own = 'rensa::distributed::' if os.path.basename(path).startswith('_distributed') else None
        symbols = subprocess.run(['nm', '-DC', '--defined-only', path], capture_output=True,
                                 text=True, check=True).stdout.splitlines()
        strong = [line for line in symbols if line.split(' ', 2)[1:2] in (['T'], ['D'], ['B'])]
        copies = [line for line in strong
                  if ' rensa::' in line and not (own and ' ' + own in line)]
        assert not copies, '{} defines {}'.format(os.path.basename(path), copies[:5])


@pytest.mark.skipif(shutil.which('nm') is None or shutil.which('readelf') is None, reason='needs binutils')
def test_runtimes_share_one_copy_of_the_modules():
    # librensa_runtime_cuda.so loads librensa_runtime.so for core and holds the CUDA backend only;
    # each extension keeps every runtime it links (python/CMakeLists.txt, --no-as-needed).
    folder = os.path.dirname(rensa._core.__file__)

    def needed(path):
        out = subprocess.run(['readelf', '-d', path], capture_output=True, text=True, check=True).stdout
        return [line.split('[', 1)[1].rstrip(']') for line in out.splitlines() if '(NEEDED)' in line]

    cuda_runtime = os.path.join(folder, 'librensa_runtime_cuda.so')
    if os.path.exists(cuda_runtime):
        assert 'librensa_runtime.so' in needed(cuda_runtime)
        symbols = subprocess.run(['nm', '-DC', '--defined-only', cuda_runtime], capture_output=True,
                                 text=True, check=True).stdout.splitlines()
        core = [line for line in symbols if ' rensa::ops::' in line]
        assert not core, 'librensa_runtime_cuda.so holds its own copy of core: {}'.format(core[:5])
        distributed = glob.glob(os.path.join(folder, '_distributed*.so'))
        for path in distributed:
            assert 'librensa_runtime_cuda.so' in needed(path), needed(path)


def test_import_keeps_the_crash_handler():
    code = """import ctypes, faulthandler
libc = ctypes.CDLL(None)
def segv_handler():
    action = ctypes.create_string_buffer(512)  # struct sigaction: the handler comes first
    assert libc.sigaction(11, None, action) == 0
    return ctypes.c_void_p.from_buffer(action).value
faulthandler.enable()
before = segv_handler()
import rensa
print(before == segv_handler())
"""
    r = run(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == 'True', 'import rensa replaced the SIGSEGV handler'


@pytest.mark.parametrize('enable_first', [True, False])
def test_faulthandler_traceback_after_import(enable_first):
    steps = ['import faulthandler', 'faulthandler.enable()', 'import rensa']
    if not enable_first:
        steps = ['import rensa', 'import faulthandler', 'faulthandler.enable()']
    r = run('\n'.join(steps + ['import ctypes', 'ctypes.string_at(0)']))
    assert r.returncode != 0
    assert 'Fatal Python error: Segmentation fault' in r.stderr, r.stderr
    assert 'most recent call first' in r.stderr and 'string_at' in r.stderr, r.stderr
    assert 'Caught signal' not in r.stderr, r.stderr  # UCX's handler, which MPICH loads
