"""docs/tools/rensa_sphinx.py: what the docs build does to docstrings and the Python API list."""
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / 'docs' / 'tools'))
rensa_sphinx = pytest.importorskip('rensa_sphinx')  # needs Sphinx (docs/requirements.txt)


def test_bars_of_prose_become_text():
    lines = ['Elementwise absolute error |x0 - x1| and the norm ||x||.', 'Keeps ``a|b|c``.', 'Example::', '',
             '    y = |x|', 'Back to |prose|.', '| a line block |', '>>> a | b']
    assert rensa_sphinx.escape_bars(lines) == [
        'Elementwise absolute error \\|x0 - x1\\| and the norm \\|\\|x\\|\\|.', 'Keeps ``a|b|c``.', 'Example::', '',
        '    y = |x|', 'Back to \\|prose\\|.', '| a line block |', '>>> a | b']


def test_escaped_bars_parse_without_warnings():
    docutils = pytest.importorskip('docutils.core')
    text = '\n'.join(rensa_sphinx.escape_bars(['The error |x - y| is small.', '', 'And ||x|| too.']))
    tree = docutils.publish_doctree(text, settings_overrides={'report_level': 2, 'halt_level': 2})
    assert '|x - y|' in tree.astext() and '||x||' in tree.astext()


def test_public_callables_once_under_the_first_module():
    import types

    def f():
        """f."""

    f.__module__ = 'rensa.a'

    class C:
        """C."""

    C.__module__ = 'rensa.a'
    first = types.ModuleType('rensa.a')
    first.f, first.C, first.sqrt = f, C, __import__('math').sqrt  # sqrt: not rensa's, left out
    second = types.ModuleType('rensa.b')
    second.__all__ = ['f', 'g']
    second.f = f

    def g():
        """g."""

    g.__module__ = 'rensa.b'
    second.g = g
    got = [(m.__name__, [n for n, _ in entries], aliases)
           for m, entries, aliases in rensa_sphinx.public_callables([first, second])]
    assert got == [('rensa.a', ['C', 'f'], []), ('rensa.b', ['g'], [('f', 'rensa.a.f')])]
