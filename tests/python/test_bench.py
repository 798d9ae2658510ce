"""Keeps the benchmark (bench/run.py) from rotting: one quick run on mlp
through every runtime that is available. It checks that the run completes
without errors (wrong outputs, crashes) and writes its three results files;
it never checks speed."""
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_bench_quick(pterun_cli, tmp_path):
    r = subprocess.run([sys.executable, os.path.join(REPO, "bench", "run.py"), "--quick", "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=600, cwd=REPO)
    assert r.returncode == 0, r.stderr[-4000:]
    for f in ("results.md", "results.json"):
        assert (tmp_path / f).is_file(), f
    text = (tmp_path / "results.json").read_text()
    assert REPO not in text, "results.json names folders of this machine"
    res = json.loads(text)
    assert res["errors"] == []
    for key in ("nondelegated_vs_executorch", "delegated_vs_executorch", "best_vs_eager"):
        assert key in res
    mlp = res["models"]["mlp"]["threads"]["1"]
    assert mlp["latency"]["nondelegated"]["pterun-c"]["median_us"] > 0
    allocs = mlp["allocations"]["nondelegated"]["pterun-c"]
    assert allocs["allocations"] == 0, "pterun allocated on the heap during execute"
    tr = res["tracer_overhead"]
    assert tr["off"]["ns_per_instruction"] > 0 and tr["on"]["ns_per_instruction"] > 0
    assert "Profiler cost" in (tmp_path / "results.md").read_text()
    if res["warnings"] and any("matplotlib" in w for w in res["warnings"]):
        return
    assert (tmp_path / "results.png").is_file()
