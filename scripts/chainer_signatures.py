"""Writes tests/python/chainer_signatures.json: every public name of Chainer's
``chainer.functions`` and ``chainer.links`` with its signature, read from real Chainer.

Run it with the interpreter that has Chainer 7.8.1 (``.venv-chainermn/bin/python
scripts/chainer_signatures.py``); tests/python/test_issue23_signatures.py compares rensa's
names and signatures against the file it writes.

A public name is an attribute of the package that does not start with ``_`` and is not a
module. Its signature is the function's, or the class's ``__init__`` without ``self`` (and,
for a link, its ``forward``'s as ``forward``): each
parameter as ``[name, kind, default]``, its kind ``inspect.Parameter.kind``'s name, its
default the default's repr (absent when it has none); a default that is a function is
written ``<function NAME>``, so the file holds no memory addresses.
"""
import argparse
import inspect
import json
import os
import sys
import types

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
OUTPUT = os.path.join(ROOT, 'tests', 'python', 'chainer_signatures.json')


def default_repr(value):
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType)):
        return '<function %s>' % value.__name__
    return repr(value)


def signature_of(obj):
    if inspect.isclass(obj):
        params = list(inspect.signature(obj.__init__).parameters.values())[1:]  # without self
    else:
        params = list(inspect.signature(obj).parameters.values())
    out = []
    for p in params:
        entry = [p.name, p.kind.name]
        if p.default is not inspect.Parameter.empty:
            entry.append(default_repr(p.default))
        out.append(entry)
    return out


def signature_of_method(method):
    return signature_of(method)[1:]  # without self


def public_names(module):
    return sorted(n for n in dir(module)
                  if not n.startswith('_') and not isinstance(getattr(module, n), types.ModuleType))


def collect():
    import chainer
    import chainer.functions
    import chainer.links
    table = {'chainer_version': chainer.__version__}
    for key, module in (('functions', chainer.functions), ('links', chainer.links)):
        table[key] = {}
        for name in public_names(module):
            obj = getattr(module, name)
            table[key][name] = {
                'type': 'class' if inspect.isclass(obj) else 'function',
                'parameters': signature_of(obj),
            }
            if key == 'links' and inspect.isfunction(getattr(obj, 'forward', None)):
                table[key][name]['forward'] = signature_of_method(obj.forward)
    return table


def dump(table):
    """The table as JSON with one line per name, so that a diff shows which names changed."""
    lines = ['{', ' "chainer_version": %s,' % json.dumps(table['chainer_version'])]
    for i, key in enumerate(('functions', 'links')):
        entries = ['  %s: %s' % (json.dumps(name), json.dumps(entry, sort_keys=True))
                   for name, entry in sorted(table[key].items())]
        lines.append(' %s: {' % json.dumps(key))
        lines.append(',\n'.join(entries))
        lines.append(' }' + (',' if i == 0 else ''))
    lines.append('}')
    return '\n'.join(lines) + '\n'


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--output', default=OUTPUT)
    args = parser.parse_args()
    table = collect()
    with open(args.output, 'w') as f:
        f.write(dump(table))
    print('%s: %d functions, %d links (Chainer %s)' % (os.path.relpath(args.output, ROOT), len(
        table['functions']), len(table['links']), table['chainer_version']), file=sys.stderr)


if __name__ == '__main__':
    main()
