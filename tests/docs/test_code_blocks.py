"""The code on the documentation's pages runs (issue 25).

Every `.. code-block:: python` of docs/**/*.rst runs: a page's blocks in order, in one
namespace, in a fresh Python process started in an empty folder, with the rensa of
PYTHONPATH (the CTest test sets it to the build tree). A block that must not run here carries
the RST comment `.. docs-test: skip (<reason>)` on the line before its directive; the reason is
printed as the skip reason. C++ is shown only through `literalinclude` of compiled files
(examples/tutorial/tutorial.cc, built and run by the "docs: tutorial.cc" test), so a C++
`code-block` on a page fails this test too.
"""
import os
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest

DOCS = pathlib.Path(__file__).resolve().parents[2] / 'docs'
DIRECTIVE = re.compile(r'^(\s*)\.\. code-block::\s*(\S+)\s*$')
SKIP = re.compile(r'^\s*\.\. docs-test: skip \((.+)\)\s*$')


def pages():
    return sorted(p for p in DOCS.rglob('*.rst') if 'tools' not in p.relative_to(DOCS).parts)


def code_blocks(text):
    """[(language, first line number, code, skip reason or None)] of an RST text."""
    lines = text.splitlines()
    out, i = [], 0
    while i < len(lines):
        m = DIRECTIVE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, language = len(m.group(1)), m.group(2)
        skip = SKIP.match(lines[i - 1]) if i > 0 else None
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or lines[j].strip().startswith(':')) and (
                not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent):
            if lines[j].strip() and not lines[j].strip().startswith(':'):
                break
            j += 1
        body, start = [], j
        while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent):
            body.append(lines[j])
            j += 1
        out.append((language, start + 1, textwrap.dedent('\n'.join(body)).strip('\n') + '\n',
                    skip.group(1) if skip else None))
        i = j
    return out


RUNNER = '''
import sys
namespace = {'__name__': '__main__'}
for name, line, code in BLOCKS:
    try:
        exec(compile('\\n' * (line - 1) + code, name, 'exec'), namespace)
    except BaseException:
        print('block at %s:%d failed' % (name, line), file=sys.stderr)
        raise
'''


def run_blocks(name, blocks, tmp_path):
    """Runs the Python blocks of one page; returns the CompletedProcess."""
    script = 'BLOCKS = %r\n%s' % ([(name, line, code) for _, line, code, _ in blocks], RUNNER)
    env = dict(os.environ, MPLBACKEND='Agg')
    return subprocess.run([sys.executable, '-c', script], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)


def pages_with_blocks():
    return [p for p in pages() if '.. code-block::' in p.read_text(encoding='utf-8')]


def skipped_blocks():
    return [(page, line, reason) for page in pages_with_blocks()
            for language, line, _, reason in code_blocks(page.read_text(encoding='utf-8')) if reason]


@pytest.mark.parametrize('page', pages_with_blocks(), ids=lambda p: str(p.relative_to(DOCS)))
def test_python_blocks_run(page, tmp_path):
    blocks = code_blocks(page.read_text(encoding='utf-8'))
    cxx = [line for language, line, _, _ in blocks if language in ('c++', 'cpp')]
    assert not cxx, '%s: C++ code-blocks at lines %s: show compiled code with literalinclude' % (page.name, cxx)
    runnable = [b for b in blocks if b[0] == 'python' and b[3] is None]
    if not runnable:
        pytest.skip('no Python block to run here')
    result = run_blocks(str(page.relative_to(DOCS.parent)), runnable, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


# One skipped test per exempt block, so that `pytest -rs` (the CTest test) lists each with its reason.
@pytest.mark.parametrize('page,line,reason', skipped_blocks(),
                         ids=lambda v: str(v.relative_to(DOCS)) if isinstance(v, pathlib.Path) else str(v))
def test_exempt_block(page, line, reason):
    pytest.skip('%s:%d not run: %s' % (page.relative_to(DOCS.parent), line, reason))


def test_a_wrong_block_fails(tmp_path):
    text = ('Page\n====\n\n.. code-block:: python\n\n   x = 1\n\ntext\n\n'
            '.. docs-test: skip (needs mpiexec)\n.. code-block:: python\n\n   import nothing_here\n\n'
            '.. code-block:: python\n   :caption: second\n\n   assert x == 2, "x is %d" % x\n')
    blocks = code_blocks(text)
    assert [(b[0], b[1], b[3]) for b in blocks] == [('python', 6, None), ('python', 13, 'needs mpiexec'),
                                                    ('python', 18, None)]
    result = run_blocks('page.rst', [b for b in blocks if b[3] is None], tmp_path)
    assert result.returncode != 0
    assert 'block at page.rst:18 failed' in result.stderr and 'x is 1' in result.stderr
