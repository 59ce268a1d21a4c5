"""docs/tools/cpp_api.py: the C++ API reference generated from the headers' comments."""
import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / 'docs' / 'tools'))
import cpp_api  # noqa: E402

HEADER = '''#pragma once
// A small header: the file comment,
// on two lines.

#include <vector>

namespace rensa {

// Options of frob().
struct FrobOptions {
    // How many times; *must* be > 0.
    int times = 1;
    int undocumented = 2;
};

// Frobs `x` (see frob.md):
//     y = frob(x);
// - first item
// - second_item_
double frob(double x, const FrobOptions& options = {});

class Widget {
public:
    Widget() = default;  // an empty widget
    // The size, in bytes.
    int size() const { return size_; }
    // Its label; the braces in the literal open no scope.
    std::string label = "w{x";

private:
    // Not documented: private.
    int size_ = 0;
};

namespace detail {
// Internal: left out.
int helper();
}  // namespace detail

}  // namespace rensa
'''


def test_parse_finds_the_documented_declarations():
    comment, entries = cpp_api.parse(HEADER)
    assert comment == ['A small header: the file comment,', 'on two lines.']
    got = [(scope, decl) for scope, decl, _ in entries]
    assert got == [
        ('rensa', 'struct FrobOptions'),
        ('rensa::FrobOptions', 'int times = 1;'),
        ('rensa', 'double frob(double x, const FrobOptions& options = {});'),
        ('rensa::Widget', 'Widget() = default;'),
        ('rensa::Widget', 'int size() const;'),
        ('rensa::Widget', 'std::string label = "w{x";'),
    ]
    assert entries[4][2] == ['The size, in bytes.']
    assert entries[3][2] == ['an empty widget']


def test_comments_are_escaped_and_code_becomes_literal():
    _, entries = cpp_api.parse(HEADER)
    rst = cpp_api.comment_rst(entries[2][2])
    assert 'Frobs \\`x\\` (see frob.md):' in rst  # backquotes escaped; the trailing ':' kept
    assert '::\n\n        y = frob(x);' in rst  # the indented line is a literal block
    assert '- second\\_item\\_' in rst
    assert cpp_api.escape('*must* be') == '\\*must\\* be'
    assert cpp_api.escape('1. not a list') == '1\\. not a list'
    assert cpp_api.escape('---- not a transition').startswith('\\-')
    assert cpp_api.escape('ends with::').endswith(':\\:')


def test_the_rst_of_a_header_parses_without_warnings():
    docutils = pytest.importorskip('docutils.core')
    rst = cpp_api.header_rst('rensa/frob.h', HEADER).replace('.. code-block:: c++\n   :force:', '.. code::')
    rst = '\n'.join(l for l in rst.splitlines() if not l.startswith('   :caption:'))
    out = docutils.publish_doctree(rst, settings_overrides={'report_level': 2, 'halt_level': 2})
    assert 'frob' in out.astext()


def test_every_module_page_is_produced(tmp_path):
    assert cpp_api.main(['--source', str(ROOT), '--out', str(tmp_path)]) == 0
    for module in cpp_api.MODULES:
        text = (tmp_path / (module + '.rst')).read_text()
        headers = cpp_api.public_headers(ROOT, module)
        assert headers, module
        for rel in headers:
            assert str(rel) in text
            assert 'detail' not in rel.parts[:-1]
    core = (tmp_path / 'core.rst').read_text()
    assert '\ncore/native/' not in core  # no section of a native-backend header
    assert 'Array reshape(' in core


def test_long_declarations_break_between_arguments():
    decl = ('[[nodiscard]] static Array from_host(const void* data, const Shape& shape, Dtype dtype, '
            'Device device = default_device(), int64_t a_long_argument_name_to_pass_the_width = 0);')
    lines = cpp_api._wrap_decl(decl)
    assert len(lines) == 2 and all(len(line) <= 110 for line in lines)
    assert ' '.join(line.strip() for line in lines) == decl  # no token is cut
