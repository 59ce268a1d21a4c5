"""pytest setup for tests/python: rensa is imported from the build tree.

CTest sets PYTHONPATH to <build>/python. Run by hand with
``PYTHONPATH=build/python .venv/bin/python -m pytest tests/python``.
"""
import os
import sys

import numpy
import pytest

if 'rensa' not in sys.modules and not any(os.path.isdir(os.path.join(p, 'rensa')) for p in sys.path if p):
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'build', 'python'))


@pytest.fixture
def rng():
    """A numpy generator with a fixed seed, so failures reproduce."""
    return numpy.random.default_rng(0)
