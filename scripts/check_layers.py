#!/usr/bin/env python3
"""Checks the include graph against the layer table of docs/design.md ("Modules and layers").

The table between the markers `<!-- layers:begin` and `<!-- layers:end -->` is the one place
that says which module may include which: its "module" column names the module (backticked),
its "may include" column the modules it may include besides itself (backticked; "—" for none,
"any" for the leaf folders: tests, benchmarks, examples, ...). The layers must not form a
cycle. Exits 1 listing every violation as `file:line: includes "x" (module a may not use
module b)`.

`--self-test` builds a small tree (a docs/design.md with a table, a core file that includes a
higher layer) and checks that the lint rejects it (and accepts the same tree without that line),
and that a table with a cycle or without its markers is refused.
"""

import os
import re
import sys
import tempfile

DOC = os.path.join("docs", "design.md")
BEGIN = "<!-- layers:begin"
END = "<!-- layers:end -->"
SOURCE_EXTENSIONS = (".h", ".cc", ".cu", ".cuh", ".cpp", ".hpp")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
NAME_RE = re.compile(r"`([A-Za-z0-9_]+)/?`")


class TableError(Exception):
    pass


def cells(row):
    return [c.strip() for c in row.strip().strip("|").split("|")]


def read_layers(root):
    """Returns (allowed: module -> set of modules, leaves: set of folders) from docs/design.md."""
    path = os.path.join(root, DOC)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise TableError(f"{DOC}: cannot read it ({e.strerror})")
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise TableError(f"{DOC}: no layer table between {BEGIN} ... --> and {END}")
    rows = [line for line in text[start:end].splitlines() if line.startswith("|")]
    if len(rows) < 3:
        raise TableError(f"{DOC}: the layer table has no rows")
    header = [h.lower() for h in cells(rows[0])]
    if "module" not in header or "may include" not in header:
        raise TableError(f"{DOC}: the layer table needs the columns 'module' and 'may include', has {header}")
    module_col, include_col = header.index("module"), header.index("may include")
    allowed, leaves = {}, set()
    for row in rows[2:]:
        row_cells = cells(row)
        if len(row_cells) != len(header):
            raise TableError(f"{DOC}: layer table row has {len(row_cells)} cells, expected {len(header)}: {row}")
        modules = NAME_RE.findall(row_cells[module_col])
        may = row_cells[include_col]
        if not modules:
            raise TableError(f"{DOC}: layer table row names no module: {row}")
        for module in modules:
            if module in allowed or module in leaves:
                raise TableError(f"{DOC}: module {module} has two rows in the layer table")
            if may.lower() == "any":
                leaves.add(module)
            else:
                allowed[module] = set(NAME_RE.findall(may))
    for module, targets in allowed.items():
        unknown = targets - set(allowed)
        if unknown:
            raise TableError(f"{DOC}: module {module} may include {sorted(unknown)}, which the table does not list")
    check_acyclic(allowed)
    return allowed, leaves


def check_acyclic(allowed):
    state = {}

    def visit(module, path):
        if state.get(module) == "done":
            return
        if state.get(module) == "open":
            raise TableError(f"{DOC}: the layer table has a cycle: {' -> '.join(path + [module])}")
        state[module] = "open"
        for target in sorted(allowed[module] - {module}):
            visit(target, path + [module])
        state[module] = "done"

    for module in sorted(allowed):
        visit(module, [])


def has_sources(folder):
    for _, _, filenames in os.walk(folder):
        if any(name.endswith(SOURCE_EXTENSIONS) for name in filenames):
            return True
    return False


def check_tree(root, allowed, leaves):
    violations = []
    for entry in sorted(os.listdir(root)):
        folder = os.path.join(root, entry)
        if entry.startswith((".", "build")) or not os.path.isdir(folder) or entry in allowed or entry in leaves:
            continue
        if has_sources(folder):
            violations.append(f"{entry}/: holds C++ sources but has no row in the layer table of {DOC}")
    for module, may in allowed.items():
        module_dir = os.path.join(root, module)
        if not os.path.isdir(module_dir):
            continue
        for dirpath, _, filenames in os.walk(module_dir):
            for name in sorted(filenames):
                if not name.endswith(SOURCE_EXTENSIONS):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for lineno, line in enumerate(f, 1):
                        m = INCLUDE_RE.match(line)
                        if not m or "/" not in m.group(1):
                            continue
                        target = m.group(1).split("/", 1)[0]
                        if target == module:
                            continue
                        rel = os.path.relpath(path, root)
                        if target in allowed and target not in may:
                            violations.append(f'{rel}:{lineno}: includes "{m.group(1)}" '
                                              f"(module {module} may not use module {target})")
                        elif target in leaves:
                            violations.append(f'{rel}:{lineno}: includes "{m.group(1)}" '
                                              f"(module {module} may not use the {target} folder)")
    return violations


def lint(root):
    """Violations of the tree at root against its own docs/design.md (a table error is one)."""
    try:
        allowed, leaves = read_layers(root)
    except TableError as e:
        return [str(e)]
    return check_tree(root, allowed, leaves)


TEST_TABLE = """# design
<!-- layers:begin (read by scripts/check_layers.py) -->
| layer | module | may include |
|---|---|---|
| 0 | `core` | — |
| 1 | `autograd` | `core` |
| leaf | `tests` | any |
<!-- layers:end -->
"""


def write(root, relpath, text):
    path = os.path.join(root, relpath)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def self_test():
    with tempfile.TemporaryDirectory() as root:
        write(root, DOC, TEST_TABLE)
        write(root, "core/array.h", '#include "core/dtype.h"\n#include "autograd/variable.h"\n')
        write(root, "autograd/variable.h", '#include "core/array.h"\n')
        write(root, "tests/test_array.cc", '#include "autograd/variable.h"\n')
        found = lint(root)
        if len(found) != 1 or "module core may not use module autograd" not in found[0]:
            return fail(f"the violation was not reported: {found}")
        write(root, "core/array.h", '#include "core/dtype.h"\n')
        if lint(root):
            return fail(f"a clean tree was rejected: {lint(root)}")
        write(root, "extras/x.cc", '#include "core/array.h"\n')
        if not any("extras/: holds C++ sources" in v for v in lint(root)):
            return fail("a source folder missing from the table was accepted")
        os.remove(os.path.join(root, "extras", "x.cc"))
        write(root, DOC, TEST_TABLE.replace("| 0 | `core` | — |", "| 0 | `core` | `autograd` |"))
        if not any("cycle" in v for v in lint(root)):
            return fail(f"a table with a cycle was accepted: {lint(root)}")
        write(root, DOC, "# design without a table\n")
        if not any("no layer table" in v for v in lint(root)):
            return fail("a design page without a table was accepted")
    print("self-test: a core file including an autograd header, a folder missing from the table, a cyclic "
          "table and a missing table are rejected; a clean tree passes")
    return 0


def fail(message):
    print("self-test:", message)
    return 1


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--self-test":
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    violations = lint(root)
    for v in violations:
        print(v)
    if violations:
        print(f"{len(violations)} problem(s) with the layers of {DOC}")
        return 1
    print(f"include graph follows the layers of {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
