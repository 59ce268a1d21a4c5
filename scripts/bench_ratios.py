#!/usr/bin/env python3
"""Runs bench_core once and prints each routine beside its baseline from that same run.

usage: scripts/bench_ratios.py BUILD_DIR [extra benchmark flags]
Targets (issue: foundation): add time <= 1.5x memcpy time of the same 64 MiB;
sum bandwidth >= 70% of memcpy's; ops::matmul >= 95% of cblas_sgemm at 1024 and 2048.
"""

import json
import subprocess
import sys


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    cmd = [f"{build}/benchmarks/bench_core", "--benchmark_format=json",
           "--benchmark_repetitions=5", "--benchmark_report_aggregates_only=true"] + sys.argv[2:]
    data = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    med = {b["run_name"].replace("/real_time", ""): b for b in data["benchmarks"]
           if b.get("aggregate_name") == "median"}

    def t(name):
        return med[name]["real_time"]

    def gbs(name):
        return med[name]["bytes_per_second"] / 1e9

    ok = True

    def report(label, value, target, passed):
        nonlocal ok
        ok &= passed
        print(f"{label:<44} {value:>8.3f}   target {target:<10} {'met' if passed else 'NOT MET'}")

    print(f"median of 5 repetitions, {data['context']['num_cpus']} CPUs")
    print(f"memcpy 64 MiB: {t('BM_memcpy'):.2f} ms ({gbs('BM_memcpy'):.1f} GB/s read+write)")
    print(f"add:           {t('BM_add'):.2f} ms ({gbs('BM_add'):.1f} GB/s)")
    print(f"exp:           {t('BM_exp'):.2f} ms ({gbs('BM_exp'):.1f} GB/s)")
    print(f"sum:           {t('BM_sum'):.2f} ms ({gbs('BM_sum'):.1f} GB/s read)")
    report("add time / memcpy time", t("BM_add") / t("BM_memcpy"), "<= 1.5", t("BM_add") / t("BM_memcpy") <= 1.5)
    report("sum GB/s / memcpy GB/s", gbs("BM_sum") / gbs("BM_memcpy"), ">= 0.70",
           gbs("BM_sum") / gbs("BM_memcpy") >= 0.70)
    for n in (256, 1024, 2048):
        blas = med[f"BM_sgemm_openblas/{n}"]["GFLOP/s"]
        mine = med[f"BM_sgemm_ops_matmul/{n}"]["GFLOP/s"]
        target = n >= 1024
        label = f"sgemm {n}: ops::matmul {mine:.1f} / OpenBLAS {blas:.1f} GFLOP/s"
        if target:
            report(label, mine / blas, ">= 0.95", mine / blas >= 0.95)
        else:
            print(f"{label:<44} {mine / blas:>8.3f}   (no target)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
