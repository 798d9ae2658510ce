"""bench/report.py's real-size and selective-build sections, and run.py's
real-size ratios, on synthetic figures (no timing: nothing here is slow or
depends on the machine)."""
import copy
import json
import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "bench"))

import report  # noqa: E402
import run  # noqa: E402
from harness import EAGER, ET_C, ORT, PTERUN_C  # noqa: E402


def lat(ms_rounds, cpu_ms=None):
    ns = [x * 1e6 for x in ms_rounds]
    x = {"median_us": sorted(ns)[len(ns) // 2] / 1e3, "round_medians_ns": ns,
         "spread_us": {"min": min(ns) / 1e3, "max": max(ns) / 1e3}}
    x["cpu_per_call_us"] = None if cpu_ms is None else cpu_ms * 1e3
    return x


def model_thread(scale):
    latency = {"nondelegated": {PTERUN_C: lat([20 * scale] * 3, 19 * scale), ET_C: lat([40 * scale] * 3)},
               "delegated": {PTERUN_C: lat([30 * scale] * 3), ET_C: lat([15 * scale] * 3)},
               "eager": {EAGER: lat([25 * scale] * 3)}, "onnx": {ORT: lat([10 * scale] * 3)},
               "quantized": {PTERUN_C: lat([8 * scale] * 3, 6 * scale), ET_C: lat([10 * scale] * 3, 12 * scale)}}
    status = {f: {rt: "ok" for rt in by} for f, by in latency.items()}
    return {"status": status, "latency": latency}


@pytest.fixture()
def results():
    with open(os.path.join(REPO, "bench", "results.json")) as f:
        res = json.load(f)
    res.setdefault("warnings", [])
    m = {"description": "d", "bound": "conv", "flops": 2_000_000_000, "threads": {"1": model_thread(1.0),
                                                                                "2": model_thread(0.5)}}
    rs = {"models": {"resnet18": m}, "rounds": 3, "loadavg_start": [9.0], "loadavg_end": [8.0],
          "generator": {"transformers": "5.0.0rc1"}, "memory_baseline_kb": {"c_kb": 1000},
          "sgemm": {"1": {"peak_gflops": 100.0}, "2": {"peak_gflops": 200.0}},
          "availability": {rt: "ok" for rt in run.REAL_PEERS}}
    for mt in m["threads"].values():
        mt["ratios"] = run.derive_real_ratios(mt)
    run.real_roofline(rs)
    m["load"] = {"nondelegated": {PTERUN_C: {"total_ms": 2.0}, ET_C: {"total_ms": 4.0}}}
    m["memory"] = {"nondelegated": {PTERUN_C: {"peak_kb": 3048, "startup_kb": 1100},
                                    ET_C: {"peak_kb": 5096, "startup_kb": 1500}}}
    res["realsize"] = rs
    res["selective_build"] = {"date": "today", "rows": [{"program": "p.pte", "operators": 8,
                                                         "full_bytes": 4096, "selective_bytes": 1024}]}
    return res


def test_real_ratios_take_each_side_best_form(results):
    r = results["realsize"]["models"]["resnet18"]["threads"]["1"]["ratios"]
    # pterun best: own kernels 20 ms; ExecuTorch best: delegated 15 ms.
    assert r["best_vs_executorch"]["median"] == pytest.approx(20 / 15)
    assert r["best_vs_executorch"]["pterun_form"] == "nondelegated"
    assert r["best_vs_executorch"]["peer_form"] == "delegated"
    assert r["best_vs_onnxruntime"]["median"] == pytest.approx(2.0)
    assert r["best_vs_eager"]["median"] == pytest.approx(0.8)
    assert r["delegated_vs_executorch_delegated"]["median"] == pytest.approx(2.0)
    roof = results["realsize"]["models"]["resnet18"]["threads"]["1"]["roofline"]
    assert roof[PTERUN_C]["gflops"] == pytest.approx(100.0)  # 2 GFLOP in 20 ms
    assert roof[PTERUN_C]["fraction_of_peak"] == pytest.approx(1.0)
    assert roof[ORT]["fraction_of_peak"] == pytest.approx(2.0)
    assert results["realsize"]["models"]["resnet18"]["pterun_speedup"]["best"] == pytest.approx(2.0)


def test_report_leads_with_real_size_then_zoo_and_writes_selective(results):
    md = report.markdown(results)
    real, zoo = md.index("## Real-size models"), md.index("## Zoo models: per-call overhead")
    assert real < zoo < md.index("## Headline")
    assert "busy" in md[real:zoo]
    assert "| resnet18 | 20.0 / 19.0 | 30.0 | 40.0 | 15.0 | 10.0 | 25.0 |" in md
    assert "**1.33**" in md and "**2.00**" in md
    assert "100% (100.0)" in md  # 2 GFLOP in 20 ms = 100 GFLOP/s of a 100 GFLOP/s peak
    assert "| resnet18 | nondelegated | 2.0 | 4.0 | 0.50 |" in md
    assert "## Selective build" in md and "| p.pte | 8 | 4.0 KB | 1.0 KB | 3.0 KB (75%) |" in md


def test_report_without_real_size_is_the_zoo_report(results):
    res = copy.deepcopy(results)
    del res["realsize"], res["selective_build"]
    md = report.markdown(res)
    assert "## Real-size models" not in md and "## Selective build" not in md and "## Headline" in md


def test_a_form_too_slow_to_time_shows_its_single_call():
    mt = model_thread(1.0)
    del mt["latency"]["nondelegated"][ET_C]
    mt["status"]["nondelegated"][ET_C] = "not timed: one call took 9.5 s (over 1500 ms)"
    mt["single_call_us"] = {"nondelegated": {ET_C: 9.5e6}}
    assert report.real_cell(mt, "nondelegated", ET_C, report.Notes()) == "9500.0 (once) [not timed]"
    # ExecuTorch's best is then its delegated form.
    assert run.derive_real_ratios(mt)["best_vs_executorch"]["peer_form"] == "delegated"


def test_int8_form_has_its_own_ratios_and_table(results):
    r = results["realsize"]["models"]["resnet18"]["threads"]["1"]["ratios"]
    # The 8 ms int8 form is not pterun's "best form" (fp32 against fp32)...
    assert r["best_vs_executorch"]["pterun_form"] == "nondelegated"
    # ...it is compared with ExecuTorch's int8 and with pterun's fastest fp32 (20 ms).
    assert r["quantized_vs_executorch_quantized"]["median"] == pytest.approx(0.8)
    assert r["quantized_vs_pterun_fp32"]["median"] == pytest.approx(0.4)
    assert r["quantized_vs_pterun_fp32"]["fp32_form"] == "nondelegated"
    md = report.markdown(results)
    assert "### Quantized (int8) forms" in md
    # wall / CPU cells, int8 vs ExecuTorch int8 (wall, CPU 6/12), vs fp32 (wall, CPU 6/19), speed-up.
    assert "| resnet18 | 1 | 8.0 / 6.0 | 10.0 / 12.0 | **0.80** (0.80–0.80) | 0.50 | nondelegated | **0.40** (0.40–0.40) | 0.32 | 2.50× |" in md
