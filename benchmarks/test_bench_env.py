"""Tests of benchmarks/bench_env.py, the part every side-by-side runner shares:
    python3 -m pytest benchmarks/test_bench_env.py
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_env  # noqa: E402


def test_best_setting_picks_the_faster_median():
    per = {"as shipped": [10.0, 30.0, 20.0], "GOMP_SPINCOUNT=0": [25.0, 24.0, 1.0]}
    assert bench_env.best_setting(per) == ("GOMP_SPINCOUNT=0", 24.0, {"as shipped": 20.0, "GOMP_SPINCOUNT=0": 24.0})
    assert bench_env.best_setting(per, higher_is_better=False)[:2] == ("as shipped", 20.0)


def test_compare_sides_faster_against_faster_and_per_round():
    a = {"as shipped": [100.0, 300.0], "GOMP_SPINCOUNT=0": [200.0, 100.0]}
    b = {"as shipped": [50.0, 50.0], "GOMP_SPINCOUNT=0": [100.0, 25.0]}
    c = bench_env.compare_sides(a, b)
    assert c["a_setting"] == "as shipped" and c["b_setting"] == "GOMP_SPINCOUNT=0"
    assert c["ratio"] == pytest.approx(200.0 / 62.5)
    # per round: max(100, 200) / max(50, 100), max(300, 100) / max(50, 25)
    assert c["rounds"] == pytest.approx([2.0, 6.0])
    t = bench_env.compare_sides({"x": [2.0, 4.0]}, {"x": [1.0, 1.0]}, higher_is_better=False)
    assert t["ratio"] == pytest.approx(3.0) and t["rounds"] == pytest.approx([2.0, 4.0])


def test_child_env_sets_threads_and_the_setting_only():
    os.environ["GOMP_SPINCOUNT"] = "123"
    try:
        shipped = bench_env.child_env(1, "as shipped")
        spin0 = bench_env.child_env(2, "GOMP_SPINCOUNT=0", {"X": "y"})
    finally:
        del os.environ["GOMP_SPINCOUNT"]
    assert shipped["OMP_NUM_THREADS"] == "1" and "GOMP_SPINCOUNT" not in shipped
    assert spin0["OMP_NUM_THREADS"] == "2" and spin0["GOMP_SPINCOUNT"] == "0" and spin0["X"] == "y"


def test_run_json_child_reads_the_last_line_and_peak_rss():
    result, rss = bench_env.run_json_child(
        [sys.executable, "-c", "print('noise'); print('{\"images_per_s\": 5.0}')"], dict(os.environ), "ok")
    assert result == {"images_per_s": 5.0} and rss > 0


def test_run_json_child_fails_loudly():
    with pytest.raises(SystemExit, match="crashing side failed with exit code 3"):
        bench_env.run_json_child([sys.executable, "-c", "import sys; sys.exit(3)"], dict(os.environ), "crashing side")
    with pytest.raises(SystemExit, match="printed no JSON"):
        bench_env.run_json_child([sys.executable, "-c", "print('no json')"], dict(os.environ), "quiet side")


def test_cpu_info_names_the_model_and_every_flag():
    info = bench_env.cpu_info()
    assert info["model"] and info["cpus"] >= 1
    assert set(info["isa"]) == set(bench_env.ISA_FLAGS)
