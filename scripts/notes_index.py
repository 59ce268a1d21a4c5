#!/usr/bin/env python3
"""The Notes index of docs/design.md: every `Note [Title]` defined in the code, with its files.

A note is defined by a comment that starts with it, `// Note [Title]: ...` or
`# Note [Title]: ...`, or by one that names it after a full stop in the same comment line
(`// oneDNN convolutions. Note [oneDNN plans]: ...`), a parenthesis allowed before the colon
(`// Note [Simulated nodes] (testing only): ...`). `See Note [Title]`, `(Note [Title] in
x.h)` and `Note [Title]: see x.h` only cite it. A title defined in several files (a header
and the source that continues it) lists them all. Citations are also read from Markdown files.

    notes_index.py [ROOT]            prints the index (a Markdown table)
    notes_index.py --write [ROOT]    rewrites the index between the markers of docs/design.md
    notes_index.py --check [ROOT]    exits 1 when docs/design.md's index is not the current one,
                                     or when a cited note is defined nowhere
    notes_index.py --self-test       proves that --check fails on a stale index and a dangling citation
"""

import os
import re
import subprocess
import sys
import tempfile

DOC = os.path.join("docs", "design.md")
BEGIN = "<!-- notes-index:begin (scripts/notes_index.py --write) -->"
END = "<!-- notes-index:end -->"
# Files that hold code or build logic define notes; Markdown files only cite them.
EXTENSIONS = (".h", ".cc", ".cu", ".cuh", ".cpp", ".hpp", ".py", ".cmake", ".sh", "CMakeLists.txt")
CITING_EXTENSIONS = EXTENSIONS + (".md",)
# This script's own text names example notes.
SELF = os.path.join("scripts", "notes_index.py")
DEFINITION_RE = re.compile(r"(?:(?://+|#+)\s*|(?://|#).*?[.;]\s+)Note \[([^\]]+)\](?: \([^)]*\))?:(?!\s*[Ss]ee\b)")
CITATION_RE = re.compile(r"Note\s+\[([^\]]+)\]")


def source_files(root):
    """Files git does not ignore when root is a git checkout, else every file under root."""
    if not os.path.exists(os.path.join(root, ".git")):
        return sorted(n for n in walk(root) if n.endswith(CITING_EXTENSIONS))
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard"], check=True, capture_output=True, text=True).stdout
        names = out.splitlines()
    except (OSError, subprocess.CalledProcessError):
        names = walk(root)
    return sorted(n for n in names if n.endswith(CITING_EXTENSIONS))


def walk(root):
    names = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith((".", "build"))]
        names += [os.path.relpath(os.path.join(dirpath, f), root) for f in filenames]
    return names


def scan(root):
    """Returns (definitions: title -> sorted files, citations: title -> first 'file:line')."""
    definitions, citations = {}, {}
    for name in source_files(root):
        path = os.path.join(root, name)
        if name == SELF or not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        # A citation may wrap ("Note [Lazy\n// native libraries]"): join comment continuations.
        joined = re.sub(r"\n\s*(?://+|#+) ?", " ", text)
        for m in CITATION_RE.finditer(joined):
            title = " ".join(m.group(1).split())
            if re.search("[A-Za-z]", title):  # not a placeholder such as Note [...]
                citations.setdefault(title, name)
        if not name.endswith(EXTENSIONS):
            continue
        for line in text.splitlines():
            for m in DEFINITION_RE.finditer(line):
                definitions.setdefault(m.group(1), set()).add(name)
    return {title: sorted(files) for title, files in definitions.items()}, citations


def render(definitions):
    rows = ["| Note | defined in |", "|---|---|"]
    for title in sorted(definitions, key=str.lower):
        files = ", ".join(f"`{f}`" for f in definitions[title])
        rows.append(f"| [{title}] | {files} |")
    return "\n".join(rows) + "\n"


def current_index(doc_text):
    start, end = doc_text.find(BEGIN), doc_text.find(END)
    if start < 0 or end < start:
        return None
    return doc_text[start + len(BEGIN):end].strip("\n") + "\n"


def check(root):
    definitions, citations = scan(root)
    problems = []
    doc_path = os.path.join(root, DOC)
    try:
        with open(doc_path, encoding="utf-8") as f:
            index = current_index(f.read())
    except OSError:
        index = None
    if index is None:
        problems.append(f"{DOC}: no Notes index between {BEGIN} and {END}")
    elif index != render(definitions):
        problems.append(f"{DOC}: the Notes index is stale; run `python3 scripts/notes_index.py --write`")
    for title, where in sorted(citations.items()):
        if title not in definitions:
            problems.append(f"{where}: cites Note [{title}], which no file defines")
    return problems


def write(root, quiet=False):
    definitions, _ = scan(root)
    doc_path = os.path.join(root, DOC)
    with open(doc_path, encoding="utf-8") as f:
        text = f.read()
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        print(f"{DOC}: add the markers {BEGIN} and {END} first")
        return 1
    text = text[:start + len(BEGIN)] + "\n" + render(definitions) + text[end:]
    with open(doc_path, "w", encoding="utf-8") as f:
        f.write(text)
    if not quiet:
        print(f"{DOC}: {len(definitions)} notes")
    return 0


def self_test():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "core"))
        os.makedirs(os.path.join(root, "docs"))
        with open(os.path.join(root, "core", "a.h"), "w") as f:
            f.write("// Note [First]: defined here.\n// See Note [First]: cited.\n")
        with open(os.path.join(root, DOC), "w") as f:
            f.write(f"# design\n{BEGIN}\n{END}\n")
        if not check(root):
            return fail("an empty index was accepted")
        write(root, quiet=True)
        if check(root):
            return fail("a freshly written index was rejected: " + "; ".join(check(root)))
        with open(os.path.join(root, "core", "b.cc"), "w") as f:
            f.write("int x;  // Note [Second]: a new note the index lacks.\n")
        if not any("stale" in p for p in check(root)):
            return fail("a new note did not make the index stale")
        write(root, quiet=True)
        with open(os.path.join(root, "core", "c.cc"), "w") as f:
            f.write("// As Note [Missing] says.\n")
        if not any("Note [Missing]" in p for p in check(root)):
            return fail("a citation of an undefined note was accepted")
    print("self-test: a stale index and a dangling citation are rejected; a current index passes")
    return 0


def fail(message):
    print("self-test:", message)
    return 1


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    flags = {a for a in argv if a.startswith("--")}
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    if "--self-test" in flags:
        return self_test()
    if "--write" in flags:
        return write(root)
    if "--check" in flags:
        problems = check(root)
        for p in problems:
            print(p)
        if not problems:
            print(f"{DOC}: the Notes index is current and every cited note is defined")
        return 1 if problems else 0
    sys.stdout.write(render(scan(root)[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
