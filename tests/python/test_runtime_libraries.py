"""The runtime libraries of Note [Lazy native libraries] (python/CMakeLists.txt): one copy of
the modules' state. librensa_runtime_cuda.so must load librensa_runtime.so and hold none of
core's code itself; a second copy would give rensa._cuda its own device context and allocator."""
import os
import shutil
import subprocess

import pytest

import rensa

PACKAGE = os.path.dirname(rensa.__file__)
CUDA_RUNTIME = os.path.join(PACKAGE, 'librensa_runtime_cuda.so')


def _needed(path):
    out = subprocess.run(['readelf', '-d', path], check=True, capture_output=True, text=True).stdout
    return [line.split('[', 1)[1].rstrip(']') for line in out.splitlines() if '(NEEDED)' in line]


def _defined_dynamic_symbols(path):
    out = subprocess.run(['nm', '-D', '-C', '--defined-only', path], check=True, capture_output=True,
                         text=True).stdout
    return out.splitlines()


@pytest.fixture(autouse=True)
def _tools():
    if shutil.which('readelf') is None or shutil.which('nm') is None:
        pytest.skip('binutils (readelf, nm) not installed')


def test_extensions_load_the_runtime():
    for name in os.listdir(PACKAGE):
        if name.startswith('_') and name.endswith('.so'):
            needed = _needed(os.path.join(PACKAGE, name))
            # librensa_runtime*.so, or the modules' own libraries with RENSA_SHARED_MODULES
            assert any(n.startswith('librensa_') for n in needed), (name, needed)


def test_cuda_runtime_shares_core_with_the_runtime():
    if not os.path.exists(CUDA_RUNTIME):
        pytest.skip('built without the CUDA backend')
    assert 'librensa_runtime.so' in _needed(CUDA_RUNTIME)
    copied = [s for s in _defined_dynamic_symbols(CUDA_RUNTIME) if ' rensa::ops::' in s]
    assert not copied, 'librensa_runtime_cuda.so holds its own copy of core: ' + '\n'.join(copied[:5])
