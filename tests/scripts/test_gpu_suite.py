#!/usr/bin/env python3
"""Tests of scripts/gpu_suite.py, the test runner of scripts/gpu-check.sh (stdlib only).

data/catch2_results.xml and data/catch2_sigterm.xml are Catch2 2.13's own XML reports of a
small program (passing, failing, throwing, skipping and [!shouldfail] cases; a case killed
by SIGTERM); data/memcheck_excerpt.txt is compute-sanitizer's output from the first GPU
run. With RENSA_CATCH_EXE set (CTest sets it to rensa_core_tests), the test spec is also
checked against a real Catch2 program.
"""

import os
import stat
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))

import gpu_suite  # noqa: E402


def data(name):
    with open(os.path.join(HERE, "data", name), encoding="utf-8") as f:
        return f.read()


class ParseReport(unittest.TestCase):
    def test_every_status(self):
        report = gpu_suite.parse_report(data("catch2_results.xml"))
        self.assertTrue(report.complete)
        status = {c.name: c.status for c in report.cases}
        self.assertEqual(status, {
            "passes, with a comma": "passed",
            'fails [x] "quoted"': "failed",
            "throws": "failed",
            "skips": "skipped",
            "should fail": "passed",  # [!shouldfail]: its failure is expected
        })
        fails = report.cases[1].failures
        self.assertEqual(len(fails), 2, fails)  # the section's rerun of the first CHECK is not repeated
        self.assertIn("CHECK(x == 3) with 2 == 3", fails[0])
        self.assertIn("REQUIRE(x == 4) with 2 == 4", fails[1])
        self.assertIn("exception: cudaMalloc on cuda:0: unspecified launch failure", report.cases[2].failures[0])
        self.assertEqual(report.cases[4].failures, [])

    def test_cut_off_report(self):
        text = data("catch2_results.xml")
        cut = text[:text.index("<Exception")]  # the program died inside "throws"
        report = gpu_suite.parse_report(cut)
        self.assertFalse(report.complete)
        self.assertEqual([c.status for c in report.cases], ["passed", "failed", "unfinished"])
        self.assertEqual(gpu_suite.run_result(report, -11, False), "FAILED")

    def test_sigterm_at_the_cap_is_unfinished(self):
        report = gpu_suite.parse_report(data("catch2_sigterm.xml"))
        self.assertEqual([(c.name, c.status) for c in report.cases], [("slow", "unfinished")])
        self.assertEqual(gpu_suite.run_result(report, None, False), "time cap")

    def test_empty_report(self):
        report = gpu_suite.parse_report("")
        self.assertEqual(report.cases, [])
        self.assertEqual(gpu_suite.run_result(report, 0, False), "FAILED")


class RunResult(unittest.TestCase):
    def report(self, *statuses, complete=True):
        return gpu_suite.Report(cases=[gpu_suite.Case(name=str(i), status=s) for i, s in enumerate(statuses)],
                                complete=complete)

    def test_results(self):
        self.assertEqual(gpu_suite.run_result(self.report("passed", "skipped"), 0, False), "ok")
        self.assertEqual(gpu_suite.run_result(self.report("passed", "skipped"), 0, True), "skipped: no GPU")
        self.assertEqual(gpu_suite.run_result(self.report("passed", "failed"), 1, False), "FAILED")
        self.assertEqual(gpu_suite.run_result(self.report("passed", "unfinished", complete=False), None, False),
                         "time cap")
        # A failure before the cap is still a failure.
        self.assertEqual(gpu_suite.run_result(self.report("failed", "unfinished", complete=False), None, False),
                         "FAILED")
        # All cases passed but the program crashed on the way out.
        self.assertEqual(gpu_suite.run_result(self.report("passed"), -6, False), "FAILED")


class TestSpec(unittest.TestCase):
    names = ["convolution ops: oneDNN-sized grouped, strided, dilated, cover_all",
             "convolution ops match naive loops: 2-D cover_all, one channel"]

    def test_escapes(self):
        self.assertEqual(gpu_suite.test_spec(['a, b [c] "d" *e', "f"]), r'a\, b \[c\] \"d\" \*e,f')

    @unittest.skipUnless(os.environ.get("RENSA_CATCH_EXE"), "RENSA_CATCH_EXE not set")
    def test_selects_exactly_the_names(self):
        proc = subprocess.run([os.environ["RENSA_CATCH_EXE"], gpu_suite.test_spec(self.names),
                               "--list-test-names-only"], capture_output=True, text=True)
        self.assertEqual(sorted(line for line in proc.stdout.splitlines() if line.strip()), sorted(self.names))


class SanitizerFindings(unittest.TestCase):
    def test_kernel_named_and_out_of_memory_left_out(self):
        found = gpu_suite.sanitizer_findings(data("memcheck_excerpt.txt"))
        self.assertEqual(len(found), 2, found)
        self.assertTrue(found[0].startswith("Invalid __global__ read of size 4 bytes at void "
                                            "rensa::cuda::<unnamed>::scatter_add_kernel<bool>("), found[0])
        self.assertIn("cudaErrorLaunchFailure", found[1])
        self.assertFalse(any("out of memory" in f for f in found))


# A stand-in for a Catch2 program: "a faults" fails in every run; "b poisoned" fails only
# in a run where "a faults" ran before it (a sticky fault), as on a GPU.
FAKE = textwrap.dedent('''\
    #!{python}
    import os, sys
    args = sys.argv[1:]
    out = args[args.index("-o") + 1]
    names = ["a faults", "b poisoned", "c fine"]
    specs = [a for a in args if not a.startswith("-") and a != out and a not in ("xml", "yes")]
    if specs:
        names = [n for n in names if n in specs[0].split(",")]
    case = '<TestCase name="{{}}"><OverallResult success="{{}}"/></TestCase>'
    ok = {{n: n == "c fine" or (n == "b poisoned" and "a faults" not in names) for n in names}}
    with open(out, "w") as f:
        f.write("<Catch><Group>" + "".join(case.format(n, str(ok[n]).lower()) for n in names) + "</Group></Catch>")
    sys.exit(sum(not v for v in ok.values()))
''')


class RunAndIsolate(unittest.TestCase):
    def test_rows_tell_the_faulting_case_from_the_poisoned_one(self):
        with tempfile.TemporaryDirectory() as tmp:
            exe = os.path.join(tmp, "fake_catch")
            with open(exe, "w", encoding="utf-8") as f:
                f.write(FAKE.format(python=sys.executable))
            os.chmod(exe, os.stat(exe).st_mode | stat.S_IEXEC)
            proc = subprocess.run([sys.executable, gpu_suite.__file__, "run", "--name", "fake", "--exe", exe,
                                   "--limit", "60", "--logs", tmp, "--isolate", "60"],
                                  capture_output=True, text=True)
            rows = [line.split("|") for line in proc.stdout.splitlines() if line.startswith("ROW|")]
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertEqual(rows[0][1:3], ["tests fake", "FAILED"])
        self.assertIn("passed 1, failed 2, skipped 0", rows[0][3])
        self.assertEqual([r[1:3] for r in rows[1:]], [["  a faults", "FAILED"], ["  b poisoned", "failed"]])
        self.assertIn("alone with CUDA_LAUNCH_BLOCKING=1 too", rows[1][3])
        self.assertIn("passes alone", rows[2][3])


if __name__ == "__main__":
    unittest.main()
