"""Every public name of the rensa package has a docstring (issue 25).

The rule: each public module (rensa and every module under it whose path has no part starting
with '_' or 'lib'); in each, the names of its __all__ (else its names without a leading '_')
that are callable and defined in rensa (re-exports of numpy or the standard library are not
ours), each object once; for a class, also its own public methods, properties and attribute
descriptors (plain constants are left out), where an override without a docstring inherits its
base's. A docstring counts when something is left after pybind11's generated signature lines
and its "Overloaded function." line. The failure lists every missing name.
"""
import collections
import importlib
import inspect
import pkgutil
import re

import rensa

# A pybind11 signature line: "name(args) -> result", or "1. name(args)" of an overload.
SIGNATURE = re.compile(r'^\s*(\d+\.\s*)?[A-Za-z_][\w.]*\(.*\)(\s*->\s*.+)?\s*$')


def docstring_text(doc):
    """The docstring less pybind11's signature lines and 'Overloaded function.'."""
    if not doc:
        return ''
    lines = [line for line in doc.splitlines() if not SIGNATURE.match(line) and line.strip() != 'Overloaded function.']
    return '\n'.join(lines).strip()


def doc_of(obj):
    if isinstance(obj, property):
        return obj.__doc__
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    return getattr(obj, '__doc__', None)


def public_modules():
    out = [rensa]
    for info in pkgutil.walk_packages(rensa.__path__, 'rensa.'):
        if any(part.startswith(('_', 'lib')) for part in info.name.split('.')[1:]):
            continue
        out.append(importlib.import_module(info.name))
    return out


def is_member_api(value):
    return (callable(value) or isinstance(value, (property, staticmethod, classmethod)) or
            type(value).__name__ in ('instancemethod', 'getset_descriptor'))


def member_doc(cls, name, value):
    """The docstring of a class member, or of the first base that defines it with one."""
    doc = doc_of(value)
    if docstring_text(doc):
        return doc
    for base in cls.__mro__[1:]:
        if name in vars(base) and docstring_text(doc_of(vars(base)[name])):
            return doc_of(vars(base)[name])
    return None


def missing_docstrings():
    seen, seen_members, missing = set(), set(), []
    for module in public_modules():
        names = getattr(module, '__all__', None) or [n for n in dir(module) if not n.startswith('_')]
        for name in names:
            obj = getattr(module, name, None)
            if inspect.ismodule(obj) or not callable(obj) or id(obj) in seen:
                continue
            if not (getattr(obj, '__module__', '') or '').startswith('rensa'):
                continue
            seen.add(id(obj))
            doc = doc_of(obj)
            if inspect.isclass(obj) and doc in (object.__doc__, type.__doc__):
                doc = None  # inherited from object / type: says nothing about the class
            if not docstring_text(doc):
                missing.append('%s.%s' % (module.__name__, name))
            if not inspect.isclass(obj):
                continue
            for attr, value in vars(obj).items():
                if attr.startswith('_') or (obj, attr) in seen_members or not is_member_api(value):
                    continue
                seen_members.add((obj, attr))
                if not docstring_text(member_doc(obj, attr, value)):
                    missing.append('%s.%s.%s' % (module.__name__, name, attr))
    return missing


def test_signature_lines_do_not_count():
    assert docstring_text('relu(x: rensa.Variable) -> rensa.Variable\n') == ''
    assert docstring_text('f(*args, **kwargs)\nOverloaded function.\n\n1. f(x: int) -> int\n\n2. f(x: str)\n') == ''
    assert docstring_text('relu(x) -> Variable\n\nRectified linear unit.') == 'Rectified linear unit.'


def test_every_public_name_has_a_docstring():
    missing = missing_docstrings()
    by_module = collections.Counter(name.rsplit('.', 1)[0] for name in missing)
    summary = '\n'.join('%5d %s' % (n, owner) for owner, n in by_module.most_common(30))
    assert not missing, '%d public names without a docstring:\n%s\n\nby owner:\n%s' % (
        len(missing), '\n'.join(missing), summary)
