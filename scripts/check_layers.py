#!/usr/bin/env python3
"""Checks the include graph against DESIGN.md's layer table.

Each module may include only its own headers and those of the modules listed as
allowed below; the leaf folders (tests, benchmarks, examples, ...) may include any
module. Exits 1 listing every violation as `file:line: includes "x" (module a may
not use module b)`.

`--self-test` builds a small tree with a core file that includes a higher layer and
checks that the lint rejects it (and accepts the same tree without that line).
"""

import os
import re
import sys
import tempfile

# module -> modules it may include (besides itself). Mirrors DESIGN.md "Modules and layers".
ALLOWED = {
    "core": set(),
    "cuda": {"core"},
    "autograd": {"core"},
    "serializers": {"core"},
    "functions": {"autograd", "core"},
    "links": {"functions", "autograd", "serializers", "core"},
    "optimizers": {"links", "autograd", "serializers", "core", "functions"},
    "training": {"optimizers", "links", "functions", "autograd", "serializers", "core"},
    "distributed": {"training", "optimizers", "links", "functions", "autograd", "serializers", "core", "cuda"},
    "python": {"distributed", "training", "optimizers", "links", "functions", "autograd", "serializers", "core",
               "cuda"},
}
LEAVES = {"tests", "benchmarks", "examples", "scripts", "cmake"}
SOURCE_EXTENSIONS = (".h", ".cc", ".cu", ".cuh", ".cpp", ".hpp")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def check_tree(root):
    violations = []
    for module, allowed in ALLOWED.items():
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
                        if not m:
                            continue
                        target = m.group(1).split("/", 1)[0]
                        if "/" not in m.group(1) or target == module:
                            continue
                        if target in ALLOWED and target not in allowed:
                            rel = os.path.relpath(path, root)
                            violations.append(f'{rel}:{lineno}: includes "{m.group(1)}" '
                                              f"(module {module} may not use module {target})")
                        elif target in LEAVES:
                            rel = os.path.relpath(path, root)
                            violations.append(f'{rel}:{lineno}: includes "{m.group(1)}" '
                                              f"(module {module} may not use the {target} folder)")
    return violations


def self_test():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "core"))
        os.makedirs(os.path.join(root, "autograd"))
        bad = os.path.join(root, "core", "array.h")
        with open(bad, "w") as f:
            f.write('#include "core/dtype.h"\n#include "autograd/variable.h"\n')
        with open(os.path.join(root, "autograd", "variable.h"), "w") as f:
            f.write('#include "core/array.h"\n')
        found = check_tree(root)
        if len(found) != 1 or "module core may not use module autograd" not in found[0]:
            print("self-test: the violation was not reported:", found)
            return 1
        with open(bad, "w") as f:
            f.write('#include "core/dtype.h"\n')
        if check_tree(root):
            print("self-test: a clean tree was rejected")
            return 1
    print("self-test: a core file including an autograd header is rejected; a clean tree passes")
    return 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--self-test":
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    violations = check_tree(root)
    for v in violations:
        print(v)
    if violations:
        print(f"{len(violations)} include(s) break DESIGN.md's layers")
        return 1
    print("include graph follows DESIGN.md's layers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
