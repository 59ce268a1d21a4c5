"""Sphinx directives of the rensa docs: the generated API pages.

``.. rensa-cpp-api:: <module>`` inserts the C++ reference of a module, generated from its
headers by docs/tools/cpp_api.py (the RST is also written to <build>/docs/cpp_api/<module>.rst
to read it as text). ``.. rensa-python-api::`` inserts the Python reference: one section per
public module of the installed package, found at build time (pkgutil, so a new module such as
rensa.onnx appears without a change here), with an autodoc entry for each public callable
that no earlier module documented (the order and the rule of tests/docs/test_docstrings.py).
"""
import importlib
import inspect
import os
import pathlib
import pkgutil
import re

from docutils.parsers.rst import Directive, directives
from docutils.statemachine import StringList
from sphinx.ext.napoleon import Config as NapoleonConfig
from sphinx.ext.napoleon.docstring import GoogleDocstring

import cpp_api

HERE = pathlib.Path(__file__).resolve().parent
SOURCE_ROOT = HERE.parent.parent


class CppApi(Directive):
    required_arguments = 1

    def run(self):
        module = self.arguments[0]
        if module not in cpp_api.MODULES:
            raise self.error('rensa-cpp-api: unknown module %r; expected one of %s' % (module, cpp_api.MODULES))
        text, headers = cpp_api.module_page(SOURCE_ROOT, module, with_title=False)
        env = self.state.document.settings.env
        for rel in headers:
            env.note_dependency(str(SOURCE_ROOT / rel))
        out = os.environ.get('RENSA_DOCS_GENERATED')
        if out:
            pathlib.Path(out, 'cpp_api').mkdir(parents=True, exist_ok=True)
            pathlib.Path(out, 'cpp_api', module + '.rst').write_text(text, encoding='utf-8')
        self.state_machine.insert_input(StringList(text.splitlines(), source='<cpp_api %s>' % module),
                                        '<cpp_api %s>' % module)
        return []


def public_modules():
    """rensa and its public modules in pkgutil's order (packages before their submodules)."""
    import rensa
    out = [rensa]
    for info in pkgutil.walk_packages(rensa.__path__, 'rensa.'):
        parts = info.name.split('.')[1:]
        if any(p.startswith('_') or p.startswith('lib') for p in parts):
            continue
        module = importlib.import_module(info.name)
        if all(module is not m for m in out):  # rensa.backends.cuda is rensa.cuda
            out.append(module)
    return out


def public_callables(modules):
    """[(module, [(name, object)], [(name, where documented)])]: each public callable once, under
    the first module that exports it (its __all__, else its public names), leaving out re-exports
    from outside rensa; a module's names documented under an earlier module are its aliases."""
    documented, out = {}, []
    for mod in modules:
        names = getattr(mod, '__all__', None) or [n for n in dir(mod) if not n.startswith('_')]
        entries, aliases = [], []
        for name in names:
            obj = getattr(mod, name, None)
            if inspect.ismodule(obj) or not callable(obj):
                continue
            if not (getattr(obj, '__module__', '') or '').startswith('rensa'):
                continue
            if id(obj) in documented:
                aliases.append((name, documented[id(obj)]))
                continue
            documented[id(obj)] = '%s.%s' % (mod.__name__, name)
            entries.append((name, obj))
        out.append((mod, entries, aliases))
    return out


def _entry_rst(full, obj):
    if inspect.isclass(obj):
        kind = 'autoexception' if issubclass(obj, BaseException) else 'autoclass'
        return ['.. %s:: %s' % (kind, full), '   :members:', '   :undoc-members:', '']
    if inspect.isroutine(obj):
        return ['.. autofunction:: ' + full, '']
    return ['.. autodata:: ' + full, '   :annotation:', '']


def python_api_rst():
    """One section per public module: its docstring, the names it exports that no earlier module
    documented, and links to those documented elsewhere (``rensa.reporter.Reporter`` is
    ``rensa.Reporter``). Submodules below the first level appear only with names of their own."""
    lines = []
    for mod, entries, aliases in public_callables(public_modules()):
        title = mod.__name__
        top_level = title.count('.') <= 1 or hasattr(mod, '__path__')
        if not entries and not top_level:
            continue  # an implementation module whose names its package already shows
        lines += [title, '-' * len(title), '', '.. automodule:: ' + title, '']
        if aliases:
            links = ', '.join(':py:obj:`%s <%s>`' % (name, where) for name, where in sorted(aliases))
            lines += ['Also exported here, documented where first exported: %s.' % links, '']
        for name, obj in sorted(entries, key=lambda e: (not inspect.isclass(e[1]), e[0].lower())):
            lines += _entry_rst('%s.%s' % (title, name), obj)
    return '\n'.join(lines) + '\n'


class PythonApi(Directive):
    def run(self):
        try:
            text = python_api_rst()
        except Exception as e:  # an import error of a module: name it instead of a traceback
            raise self.error('rensa-python-api: %s: %s (is RENSA_DOCS_PYTHONPATH the build\'s python folder?)' %
                             (type(e).__name__, e))
        out = os.environ.get('RENSA_DOCS_GENERATED')
        if out:
            pathlib.Path(out).mkdir(parents=True, exist_ok=True)
            pathlib.Path(out, 'python_api.rst').write_text(text, encoding='utf-8')
        self.state_machine.insert_input(StringList(text.splitlines(), source='<python_api>'), '<python_api>')
        return []


# Google-style sections ("Args:", "Returns:", as Chainer's docstrings have) become fields, as
# sphinx.ext.napoleon does, but only for functions, methods and classes: napoleon would read the
# first line of a property's docstring as "type: description" and cut "The array (a numpy view
# for native arrays: writes go ...)" at its colon.
_GOOGLE = NapoleonConfig(napoleon_numpy_docstring=False)


def google_sections(app, what, name, obj, options, lines):
    if what in ('attribute', 'property', 'data', 'module'):
        return
    lines[:] = GoogleDocstring(lines, _GOOGLE, app, what, name, obj, options).lines()


_BARS = re.compile(r'(?<![\\|])\|(?=\S)([^|`]*?\S)\|(?![|_])')


def escape_bars(lines):
    """`|x - y|` and `||x||` (an absolute value, a norm, in a docstring's prose) as text, not as
    the substitution reference RST reads there: docstrings define no substitutions, so each such
    reference is an error. Left alone: literal blocks (after a line ending in '::', while indented), doctest
    lines, table and line-block lines (starting with '|' or '+'), and ``inline literals``."""
    out, literal_indent = [], None
    for line in lines:
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if literal_indent is not None and stripped and indent <= literal_indent:
            literal_indent = None
        if literal_indent is None and stripped and not stripped.startswith(('>>>', '...', '|', '+')):
            parts = line.split('``')
            line = '``'.join(_BARS.sub(r'\\|\1\\|', p.replace('||', r'\|\|')) if k % 2 == 0 else p
                             for k, p in enumerate(parts))
        if literal_indent is None and stripped.endswith('::'):
            literal_indent = indent
        out.append(line)
    return out


def plain_bars(app, what, name, obj, options, lines):
    lines[:] = escape_bars(lines)


def public_signature(app, what, name, obj, options, signature, return_annotation):
    """pybind11 names the types by their extension module: rensa._core.Variable is rensa.Variable."""
    fix = lambda text: text.replace('rensa._core.', 'rensa.') if text else text  # noqa: E731
    return fix(signature), fix(return_annotation)


def setup(app):
    directives.register_directive('rensa-cpp-api', CppApi)
    directives.register_directive('rensa-python-api', PythonApi)
    app.connect('autodoc-process-docstring', google_sections)
    app.connect('autodoc-process-signature', public_signature)
    app.connect('autodoc-process-docstring', plain_bars)
    return {'parallel_read_safe': True, 'parallel_write_safe': True}
