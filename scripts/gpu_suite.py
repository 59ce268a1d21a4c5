#!/usr/bin/env python3
"""Runs one Catch2 test program for scripts/gpu-check.sh and says what happened.

    gpu_suite.py run --name NAME --exe EXE --limit S --logs DIR [--isolate S] [--no-gpu] [--list-only]
    gpu_suite.py memcheck --exe EXE --sanitizer PATH --limit S --logs DIR [--filter SPEC]

The program writes Catch2's XML report (-r xml, --durations yes) to DIR/NAME.xml, which
is read even when the run was cut short (a time cap, a crash): every case ends up passed,
failed, skipped (it printed RENSA_SKIPPED) or unfinished. A readable log of the failures
goes to DIR/NAME.log. One device fault is sticky, so after a failed run each failing or
unfinished case runs again alone with CUDA_LAUNCH_BLOCKING=1 (--isolate S, in S seconds
at most), which tells the faulting case from the ones its fault poisoned and names the
kernel at its own launch. `memcheck` runs the cases under compute-sanitizer with
RENSA_CUDA_EXACT_ALLOC=1 (exact-size blocks, so an access past an array's end is past its
cudaMalloc block); after a case with errors it starts again from the next one, until every
case ran or the time is spent.

Prints the rows of gpu-check's summary table on stdout, one per line, as
"ROW|step|result|detail". Exit status: 0 passed (or skipped), 1 failed, 2 only the time
cap was hit (nothing failed: a slow suite is not a failing one).
"""

import argparse
import dataclasses
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

SKIP_MARK = "RENSA_SKIPPED"


@dataclasses.dataclass
class Case:
    name: str
    status: str = "unfinished"  # passed, failed, skipped, unfinished
    failures: list = dataclasses.field(default_factory=list)  # "file:line: what" lines
    seconds: float = 0.0


@dataclasses.dataclass
class Report:
    cases: list  # in the order they ran
    complete: bool  # the report's closing tag was read

    def count(self, status):
        return sum(1 for c in self.cases if c.status == status)

    def names(self, *statuses):
        return [c.name for c in self.cases if c.status in statuses]


def _text(element):
    return " ".join((element.text or "").split())


def _where(element):
    return f"{element.get('filename', '?')}:{element.get('line', '?')}"


def _failures(case_element):
    """The failed expressions, exceptions and fatal conditions under a TestCase element."""
    out = []
    for e in case_element.iter():
        if e.tag == "Expression" and e.get("success") == "false":
            original = _text(e.find("Original")) if e.find("Original") is not None else ""
            expanded = _text(e.find("Expanded")) if e.find("Expanded") is not None else ""
            out.append(f"{_where(e)}: {e.get('type', 'CHECK')}({original}) with {expanded}")
        elif e.tag == "Exception":
            out.append(f"{_where(e)}: exception: {_text(e)}")
        elif e.tag == "FatalErrorCondition":
            out.append(f"{_where(e)}: fatal: {_text(e)}")
    return list(dict.fromkeys(out))  # a section's rerun repeats the checks before it


def parse_report(text):
    """Reads Catch2's XML report, complete or cut off anywhere (a crash, a time cap)."""
    parser = ET.XMLPullParser(events=("start", "end"))
    cases, complete, current = [], False, None
    try:
        parser.feed(text)
        for event, element in parser.read_events():
            if element.tag == "TestCase" and event == "start":
                current = Case(name=element.get("name", "?"))
                cases.append(current)
            elif element.tag == "TestCase" and event == "end":
                result = element.find("OverallResult")
                failures = _failures(element)
                if result is None:
                    current.status = "unfinished"
                elif result.get("success") != "true":
                    current.status = "failed"
                else:
                    out = "".join(result.find("StdOut").itertext()) if result.find("StdOut") is not None else ""
                    current.status = "skipped" if SKIP_MARK in out and not failures else "passed"
                    failures = [] if current.status != "failed" else failures  # expected failures ([!shouldfail])
                if result is not None:
                    current.seconds = float(result.get("durationInSeconds", "0") or 0)
                current.failures = failures if current.status == "failed" else []
                current = None
            elif element.tag == "Catch" and event == "end":
                complete = True
    except ET.ParseError:
        pass  # a report cut off mid-element: what was read stands
    for case in cases:
        if case.status == "failed" and any(": fatal: SIGTERM" in f or ": fatal: SIGKILL" in f for f in case.failures):
            case.status = "unfinished"  # killed at the time cap, not a test failure
    return Report(cases=cases, complete=complete)


def test_spec(names):
    """A Catch2 test spec selecting exactly `names` (commas, brackets, quotes, stars escaped)."""
    return ",".join(re.sub(r'([\\,\[\]"*~])', r"\\\1", n) for n in names)


def run_capped(cmd, limit, env=None):
    """Runs cmd for at most `limit` seconds: then SIGTERM (Catch2 closes its report on it),
    and SIGKILL 10 s later. Returns (exit status, or None when the cap hit; output)."""
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                          env=env) as proc:
        try:
            out, _ = proc.communicate(timeout=max(limit, 1))
            return proc.returncode, out
        except subprocess.TimeoutExpired:
            proc.terminate()
            try:
                out, _ = proc.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, _ = proc.communicate()
            return None, out


def run_catch(exe, args, xml_path, limit, env=None, prefix=()):
    """Runs EXE with Catch2's XML report to xml_path for at most `limit` seconds.

    Returns (report, exit status or None when the time cap hit, console output)."""
    if os.path.exists(xml_path):
        os.remove(xml_path)
    try:
        rc, out = run_capped([*prefix, exe, *args, "-r", "xml", "-o", xml_path, "--durations", "yes"], limit, env)
    except OSError as e:
        return Report(cases=[], complete=False), 127, str(e)
    text = ""
    if os.path.exists(xml_path):
        with open(xml_path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    return parse_report(text), rc, out


def summary_detail(report, rc):
    detail = (f"passed {report.count('passed')}, failed {report.count('failed')}, "
              f"skipped {report.count('skipped')}")
    unfinished = report.count("unfinished")
    if rc is None:
        detail += f"; hit the time cap with {len(report.cases) - unfinished} cases done"
    elif unfinished or not report.complete:
        detail += f"; ended early (exit {rc}), last case unfinished"
    return detail


def isolate(exe, names, budget, logs, name):
    """Runs each case alone with CUDA_LAUNCH_BLOCKING=1; returns a row per case."""
    rows, start = [], time.monotonic()
    env = dict(os.environ, CUDA_LAUNCH_BLOCKING="1")
    for i, case in enumerate(names):
        left = budget - (time.monotonic() - start)
        if left < 5:
            rows.append((f"  {case}", "not rerun", "out of time"))
            continue
        report, rc, out = run_catch(exe, [test_spec([case])], os.path.join(logs, f"{name}-alone-{i}.xml"),
                                    min(left, 120), env=env)
        alone = report.cases[0] if report.cases else Case(name=case)
        if alone.status == "failed":
            first = alone.failures[0] if alone.failures else f"exit {rc}"
            rows.append((f"  {case}", "FAILED", f"alone with CUDA_LAUNCH_BLOCKING=1 too: {first}"))
        elif alone.status in ("passed", "skipped") and rc == 0:
            rows.append((f"  {case}", "failed", "passes alone: poisoned by an earlier case's fault"))
        else:
            tail = " | ".join(out.strip().splitlines()[-2:])
            rows.append((f"  {case}", "FAILED", f"alone: {alone.status}, exit {rc}: {tail}"))
    return rows


def write_log(path, report, out):
    with open(path, "w", encoding="utf-8") as f:
        f.write(out)
        for case in report.cases:
            if case.status in ("failed", "unfinished"):
                f.write(f"\n--- {case.status}: {case.name}\n")
                f.writelines(f"    {line}\n" for line in case.failures)


def list_cases(exe, limit):
    """Whether EXE starts (its libraries load) and how many cases it lists."""
    try:
        proc = subprocess.run([exe, "--list-test-names-only"], capture_output=True, text=True, timeout=limit)
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, f"does not start: {e}"
    listed = sum(1 for line in proc.stdout.splitlines() if line.strip())
    if proc.returncode < 0 or listed == 0:  # Catch2 exits with the number of cases it listed
        return False, f"does not start (exit {proc.returncode}): {(proc.stdout + proc.stderr).strip()[-200:]}"
    return True, f"starts and lists {listed} cases"


def run_result(report, rc, no_gpu):
    """The summary's result for one run: FAILED, time cap, skipped: no GPU or ok."""
    crashed = rc is not None and (not report.complete or (rc != 0 and report.count("failed") == 0))
    if report.count("failed") > 0 or crashed or not report.cases:
        return "FAILED"
    if rc is None:
        return "time cap"
    if no_gpu and report.count("skipped") > 0:
        return "skipped: no GPU"
    return "ok"


def command_run(args):
    if args.list_only:  # a machine without a GPU: the program must start and list its cases
        ok, detail = list_cases(args.exe, args.limit)
        print(f"ROW|tests {args.name}|{'skipped: no GPU' if ok else 'FAILED'}|{detail}")
        return 0 if ok else 1
    report, rc, out = run_catch(args.exe, args.filter or [], os.path.join(args.logs, f"{args.name}.xml"), args.limit)
    write_log(os.path.join(args.logs, f"{args.name}.log"), report, out)
    result = run_result(report, rc, args.no_gpu)
    detail = summary_detail(report, rc)
    if not report.cases:
        detail = f"no report (exit {rc}): " + " | ".join(out.strip().splitlines()[-3:])
    print(f"ROW|tests {args.name}|{result}|{detail}")
    # Unfinished cases count as bad unless the time cap cut them off.
    bad = [c for c in report.cases if c.status == "failed" or (c.status == "unfinished" and rc is not None)]
    if result == "FAILED" and args.isolate > 0 and bad:
        for row in isolate(args.exe, [c.name for c in bad], args.isolate, args.logs, args.name):
            print("ROW|" + "|".join(row))
    else:
        for case in bad:
            print(f"ROW|  {case.name}|FAILED|{case.failures[0] if case.failures else case.status}")
    return {"FAILED": 1, "time cap": 2}.get(result, 0)


SANITIZER_ERROR = re.compile(r"^=+ (Invalid|Uninitialized|Race|Barrier|Program hit|Leaked|Misaligned|Out-of-range)")
SANITIZER_WHERE = re.compile(r"^=+\s+at (.+?)(\+0x[0-9a-f]+)?(\s+in\s+.*)?$")


def sanitizer_findings(out):
    """The distinct errors compute-sanitizer reported: 'what at kernel' lines."""
    found, lines = [], out.splitlines()
    for i, line in enumerate(lines):
        if not SANITIZER_ERROR.match(line) or "Program hit" in line and "out of memory" in line:
            continue
        what = line.lstrip("= ").strip()
        for nxt in lines[i + 1:i + 4]:
            m = SANITIZER_WHERE.match(nxt)
            if m:
                what += " at " + m.group(1).strip()
                break
        if what not in found:
            found.append(what)
    return found


def command_memcheck(args):
    """Every case under compute-sanitizer's memcheck, restarting after each case with errors."""
    listing = subprocess.run([args.exe, "--list-test-names-only", *(args.filter or [])], capture_output=True,
                             text=True, timeout=60)
    remaining = [line for line in listing.stdout.splitlines() if line.strip()]
    total, clean, bad_rows, start, round_no = len(remaining), 0, [], time.monotonic(), 0
    env = dict(os.environ, RENSA_CUDA_EXACT_ALLOC="1")
    prefix = (args.sanitizer, "--tool", "memcheck", "--print-limit", "20")
    while remaining:
        left = args.limit - (time.monotonic() - start)
        if left < 10:
            break
        round_no += 1
        xml_path = os.path.join(args.logs, f"memcheck-{round_no}.xml")
        report, rc, out = run_catch(args.exe, [test_spec(remaining)], xml_path, left, env=env, prefix=prefix)
        with open(os.path.join(args.logs, f"memcheck-{round_no}.log"), "w", encoding="utf-8") as f:
            f.write(out)
        findings = sanitizer_findings(out)
        done = [c for c in report.cases if c.status != "unfinished"]
        first_bad = next((c for c in report.cases if c.status in ("failed", "unfinished")), None)
        if first_bad is None and rc == 0 and not findings:
            clean += len(done)
            remaining = []
            break
        if first_bad is None and rc is None:  # the time ran out between cases
            clean += len(done)
            remaining = remaining[len(done):]
            break
        ran_before = report.cases.index(first_bad) if first_bad else len(done)
        clean += ran_before
        culprit = first_bad.name if first_bad else "(after the last case)"
        if rc is None and first_bad is not None and first_bad.status == "unfinished":
            remaining = remaining[remaining.index(first_bad.name):] if first_bad.name in remaining else []
            break  # cut off by the time limit inside a case: no error seen
        detail = "; ".join(findings[:3]) if findings else "; ".join(first_bad.failures[:2] if first_bad else [])
        bad_rows.append((f"  {culprit}", "FAILED", f"memcheck: {detail or f'exit {rc}'}"))
        if first_bad is None or first_bad.name not in remaining:
            remaining = []
            break
        remaining = remaining[remaining.index(first_bad.name) + 1:]
    unrun = len(remaining)
    detail = f"{clean} of {total} cases clean, {len(bad_rows)} with errors"
    if unrun:
        detail += f", {unrun} not run (time cap)"
    result = "FAILED" if bad_rows else ("time cap" if unrun else "ok")
    print(f"ROW|memcheck {args.name}|{result}|{detail}")
    for row in bad_rows:
        print("ROW|" + "|".join(row))
    return 1 if bad_rows else (2 if unrun else 0)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    for name in ("run", "memcheck"):
        p = sub.add_parser(name)
        p.add_argument("--name", default="cuda")
        p.add_argument("--exe", required=True)
        p.add_argument("--limit", type=float, required=True, help="seconds for the whole command")
        p.add_argument("--logs", required=True)
        p.add_argument("--filter", nargs="*", help="Catch2 test spec arguments")
    run = sub.choices["run"]
    run.add_argument("--isolate", type=float, default=0, help="seconds for rerunning failing cases alone")
    run.add_argument("--no-gpu", action="store_true", help="a machine without a GPU: skips are expected")
    run.add_argument("--list-only", action="store_true", help="only check that the program starts")
    sub.choices["memcheck"].add_argument("--sanitizer", required=True)
    args = ap.parse_args(argv)
    os.makedirs(args.logs, exist_ok=True)
    return command_run(args) if args.command == "run" else command_memcheck(args)


if __name__ == "__main__":
    sys.exit(main())
