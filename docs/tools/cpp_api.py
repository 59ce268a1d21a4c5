#!/usr/bin/env python3
"""The C++ API reference of the docs, read from the headers' own comments.

The headers use plain `//` comments (docs/style.md): a file comment under `#pragma once`, and a
comment above (or at the end of the line of) a declaration. Doxygen reads neither, so this
script does, with the standard library only. For each public header of a module (every `.h`
of the module's folder, less `detail/` folders, `detail.h` files and the native backend's
internals in core/native) it emits the file comment, then each documented declaration at
namespace scope or in a public section of a class: the declaration in a `code-block:: c++`
(captioned with its scope), followed by its comment.

Run: python3 docs/tools/cpp_api.py --source . --out build/docs/cpp_api  (one <module>.rst each);
the docs build calls `module_page` itself (the rensa-cpp-api directive of docs/tools/rensa_sphinx.py).
"""
# Note [C++ API pages]: a header comment is prose written for a code editor, not RST, and one
# stray `*` or a trailing `::` would break the docs build (warnings are errors there). The
# comment text is therefore re-set, never passed through: paragraphs are joined and every
# character that RST reads as markup is escaped, lines starting with `- ` become bullet items,
# and lines indented by four spaces or more (code in a comment) become literal blocks. A
# declaration's code block uses `:force:` so that Pygments cannot fail on unusual C++.

import argparse
import pathlib
import re
import sys

MODULES = ['core', 'autograd', 'serializers', 'functions', 'links', 'optimizers', 'training', 'distributed', 'cuda']
TITLES = {
    'core': 'core: arrays, dtypes, devices, array routines',
    'autograd': 'autograd: Variable, FunctionNode, backward',
    'serializers': 'serializers: NPZ files',
    'functions': 'functions: differentiable functions',
    'links': 'links: parameterised layers and models',
    'optimizers': 'optimizers: update rules and hooks',
    'training': 'training: datasets, iterators, Trainer, extensions',
    'distributed': 'distributed: communicators and multi-node training',
    'cuda': 'cuda: the CUDA backend',
}


def public_headers(source, module):
    """The public headers of a module, sorted, as paths relative to the source root."""
    root = pathlib.Path(source)
    out = []
    for path in sorted((root / module).rglob('*.h')):
        rel = path.relative_to(root)
        parts = rel.parts
        if 'detail' in parts[:-1] or rel.name == 'detail.h':
            continue
        if module == 'core' and len(parts) > 2 and parts[1] == 'native':
            continue
        out.append(rel)
    return out


# --- Lexing: code without comments and literals, and the comments by line.

def _split_line(line, in_block):
    """(scan, show, comment, in_block) of one line: its code with the inside of string and char
    literals blanked (`scan`, for finding braces and semicolons) and as written (`show`, the same
    length), its `//` comment text (None without one), and whether a /* */ comment stays open."""
    scan, show, i, n = [], [], 0, len(line)
    while i < n:
        if in_block:
            end = line.find('*/', i)
            if end < 0:
                return ''.join(scan), ''.join(show), None, True
            i, in_block = end + 2, False
            continue
        c = line[i]
        if line.startswith('//', i):
            return ''.join(scan), ''.join(show), line[i + 2:], False
        if line.startswith('/*', i):
            in_block, i = True, i + 2
            continue
        if c in '"\'':
            j = i + 1
            while j < n and line[j] != c:
                j += 2 if line[j] == '\\' else 1
            literal = line[i:j + 1]
            scan.append(c + '_' * max(len(literal) - 2, 0) + (c if len(literal) > 1 else ''))
            show.append(literal)
            i = j + 1
            continue
        scan.append(c)
        show.append(c)
        i += 1
    return ''.join(scan), ''.join(show), None, in_block


def _comment_text(raw):
    return raw[1:] if raw.startswith(' ') else raw


def file_comment(lines):
    """The comment block under `#pragma once` (before any code), as lines."""
    out, started = [], False
    for line in lines:
        s = line.strip()
        if s.startswith('//'):
            out.append(_comment_text(s[2:]))
            started = True
        elif s.startswith('#pragma') or (not s and not started):
            continue
        else:
            break
    return out


# --- Parsing: documented declarations with their scope.

_TYPE_HEAD = re.compile(r'^(template\s*<.*>\s*)?(class|struct|union|enum(\s+class)?)\s+(\w+)')
_NAMESPACE = re.compile(r'^(inline\s+)?namespace\s*([\w:]*)\s*$')
_ACCESS = re.compile(r'^(public|private|protected)\s*:$')


class _Scope:
    def __init__(self, kind, name, public, default_access='public'):
        self.kind, self.name, self.public, self.access = kind, name, public, default_access

    def documented(self):
        return self.public and (self.kind == 'namespace' or self.access == 'public')


class _Parser:
    """A line-by-line reader of one header: a scope stack (namespaces, classes with their access),
    the comment block waiting for a declaration, the statement being read, and the depth of a body
    it skips (function bodies, enumerators, brace initialisers)."""

    def __init__(self):
        self.entries = []
        self.stack = [_Scope('namespace', '', True)]
        self.comment, self.stmt, self.stmt_comment, self.trailing = [], '', [], None
        self.skip, self.skipped, self.resume_stmt = 0, '', False
        self.in_block = self.in_define = False

    def line(self, line):
        code, shown, self.trailing, self.in_block = _split_line(line, self.in_block)
        if self.in_define:
            self.in_define = line.rstrip().endswith('\\')
            return
        if not self.skip and not self.stmt and self.between_statements(line, code.strip()):
            return
        for ch, shown_ch in zip(code, shown):
            if self.skip:
                self.skip_char(ch)
            elif ch == '{':
                self.open_brace()
            elif ch == '}':
                if len(self.stack) > 1:
                    self.stack.pop()
                self.stmt, self.stmt_comment = '', []
            elif ch == ';':
                self.add(' '.join(self.stmt.split()) + ';')
                self.stmt, self.stmt_comment = '', []
            else:
                if not self.stmt.strip() and not ch.isspace():
                    self.stmt_comment, self.comment = self.comment, []
                self.stmt += shown_ch
        self.stmt = self.stmt + ' ' if self.stmt.strip() else ''
        if not self.stmt and not self.skip:
            self.comment = []

    def between_statements(self, line, stripped):
        """Comment lines, blank lines, preprocessor lines and access specifiers; True when taken."""
        if not stripped:
            if self.trailing is not None:
                self.comment.append(_comment_text(self.trailing.rstrip()))
            else:
                self.comment = []
            return True
        if stripped.startswith('#'):
            if stripped.startswith('#define') and self.comment and self.stack[-1].documented():
                self.entries.append((_scope_name(self.stack), stripped.rstrip('\\').rstrip(), self.comment))
            self.in_define = line.rstrip().endswith('\\')
            self.comment = []
            return True
        m = _ACCESS.match(stripped)
        if m and self.stack[-1].kind == 'class':
            self.stack[-1].access = m.group(1)
            self.comment = []
            return True
        return False

    def skip_char(self, ch):
        if ch == '{':
            self.skip += 1
        elif ch == '}':
            self.skip -= 1
            if self.skip == 0 and self.resume_stmt:
                self.stmt += '{}' if not self.skipped.strip() else '{...}'
                self.resume_stmt = False
        else:
            self.skipped += ch

    def open_brace(self):
        """A '{' after the statement read so far: a namespace, a class, an enum, a function body
        or a brace initialiser."""
        self.skipped = ''
        head = ' '.join(self.stmt.split())
        ns, ty = _NAMESPACE.match(head), _TYPE_HEAD.match(head)
        if ns or head.startswith('extern "'):
            name = ns.group(2) if ns else ''
            public = self.stack[-1].public and (not ns or name not in ('detail', ''))
            self.stack.append(_Scope('namespace', name, public))
        elif ty and '(' not in head[ty.end():].split(':')[0]:
            documented = self.stack[-1].documented()
            self.add(head, definition=True)
            if ty.group(2).startswith('enum'):
                self.skip = 1
            else:
                default = 'private' if ty.group(2) == 'class' else 'public'
                self.stack.append(_Scope('class', ty.group(4), documented, default))
        elif '(' in head and not head.endswith('='):
            self.add(head + ';')
            self.skip = 1
        else:  # a brace initialiser (`Shape s{1, 2};`, `= {...}`): the statement goes on after it
            self.skip, self.resume_stmt = 1, True
            return
        self.stmt, self.stmt_comment, self.comment = '', [], []

    def add(self, decl, definition=False):
        """Records `decl` when it is documented: a public scope and a comment above or behind it
        (a class definition's head is never a forward declaration)."""
        comment = self.stmt_comment or ([_comment_text(self.trailing.strip())] if self.trailing is not None else [])
        noise = not definition and _is_noise(decl.rstrip(';'))
        if decl.strip(' ;') and comment and self.stack[-1].documented() and not noise:
            self.entries.append((_scope_name(self.stack), decl, comment))


def parse(text):
    """(file comment lines, [(scope, declaration, comment lines)]) of one header's text."""
    lines = text.splitlines()
    parser = _Parser()
    for line in lines:
        parser.line(line)
    return file_comment(lines), parser.entries


def _is_noise(head):
    """Declarations not worth a reference entry: forward declarations, friends, static_asserts."""
    return (re.match(r'^(class|struct)\s+\w+$', head) is not None or head.startswith('friend ') or
            head.startswith('static_assert') or head.startswith('using namespace'))


def _scope_name(stack):
    return '::'.join(s.name for s in stack[1:] if s.name)


# --- Emitting RST.

_INLINE = re.compile(r'([\\`*_|])')
_ENUMERATOR = re.compile(r'^(\(?[\w#]{1,4}[.)]|\()(\s|$)')


def escape(text):
    """`text` as RST inline text that renders as written: markup characters escaped, and a
    start that RST would read as a block construct (list, enumerator, field, directive,
    transition, ...) escaped too."""
    lead = text[:1]
    text = _INLINE.sub(r'\\\1', text)
    if lead and not (lead.isalnum() or lead in '"(\'\\`*_|'):
        text = '\\' + text
    elif _ENUMERATOR.match(text):
        k = _ENUMERATOR.match(text).end(1) - 1
        text = text[:k] + '\\' + text[k:]
    if text.endswith('::'):
        text = text[:-1] + '\\:'
    return text


def comment_rst(lines):
    """A comment's lines as RST blocks: paragraphs, bullet items and literal blocks."""
    blocks, para, code, kind = [], [], [], None

    def flush():
        nonlocal para, code, kind
        if para:
            text = escape(' '.join(para))
            blocks.append('- ' + text if kind == 'bullet' else text)
        if code:
            while code and not code[-1].strip():
                code.pop()
            blocks.append('::\n\n' + '\n'.join('    ' + c for c in code))
        para, code, kind = [], [], None

    for line in lines:
        line = line.rstrip()
        if not line.strip():
            if code:
                code.append('')
            else:
                flush()
            continue
        if line.startswith('    ') and not (kind == 'bullet' and line.startswith('    ') and not code and para):
            if para:
                flush()
            code.append(line)
            continue
        if code:
            flush()
        s = line.strip()
        if s.startswith(('- ', '* ')):
            flush()
            kind, para = 'bullet', [s[2:]]
        else:
            para.append(s)
    flush()
    return '\n\n'.join(blocks)


def code_block(decl, caption):
    out = ['.. code-block:: c++', '   :force:']
    if caption:
        out.append('   :caption: ' + _INLINE.sub(r'\\\1', caption))
    out.append('')
    out.extend('   ' + line for line in _wrap_decl(decl))
    return '\n'.join(out)


def _wrap_decl(decl, width=110):
    """A long declaration broken after its commas into lines of at most `width` characters where
    it can be (a single piece longer than that stays whole), continued with an indent."""
    if len(decl) <= width:
        return [decl]
    pieces = re.split(r'(?<=,) ', decl)
    lines = [pieces[0]]
    for piece in pieces[1:]:
        if len(lines[-1]) + 1 + len(piece) <= width:
            lines[-1] += ' ' + piece
        else:
            lines.append('    ' + piece)
    return lines


def header_rst(rel_path, text):
    """The RST section of one header."""
    comment, entries = parse(text)
    title = str(rel_path)
    out = [title, '-' * len(title), '']
    if comment:
        out += [comment_rst(comment), '']
    for scope, decl, lines in entries:
        out += [code_block(decl, scope), '']
        body = comment_rst(lines)
        if body:
            out += [body, '']
    return '\n'.join(out)


def module_page(source, module, with_title=True):
    """The RST page of one module: every public header, in path order. Returns (text, headers)."""
    headers = public_headers(source, module)
    out = []
    if with_title:
        title = TITLES.get(module, module)
        out += ['=' * len(title), title, '=' * len(title), '']
    out += ['The public headers of ``%s/``, with the comments they carry (see docs/design.md for the '
            'architecture). Include them by their path from the repository root, as listed.' % module, '']
    for rel in headers:
        out.append(header_rst(rel, (pathlib.Path(source) / rel).read_text(encoding='utf-8')))
    return '\n'.join(out) + '\n', headers


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--source', default='.', help='the repository root')
    ap.add_argument('--out', required=True, help='folder for <module>.rst')
    ap.add_argument('modules', nargs='*', default=MODULES)
    args = ap.parse_args(argv)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for module in args.modules:
        text, headers = module_page(args.source, module)
        (out / (module + '.rst')).write_text(text, encoding='utf-8')
        print('%s: %d headers' % (module, len(headers)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
