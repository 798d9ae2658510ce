"""The conformance zoo: its runner (make test-conformance runs every case,
within tolerance, ints and bools exact), every operator case really contains
its operator, and the operator coverage the runtime promises."""
import glob
import json
import os
import subprocess
import shutil
import sys

import numpy as np

from conftest import REPO


def test_runner_reports_every_case_in_order_and_names_a_failure(pterun_cli, zoo, tmp_path):
    """tools/conformance.py itself (make test-conformance runs it on the whole
    zoo): cases run --jobs at a time, the report keeps their order, a wrong
    expected output fails its case by name and the run."""
    names = ["add", "mlp", "small_cnn", "transformer_tiny", "two_methods_forward"]
    for n in names:
        shutil.copytree(os.path.join(zoo, "models", n), tmp_path / "cases" / n)
    bad = tmp_path / "cases" / "small_cnn" / "expected" / "0.npy"
    np.save(bad, np.load(bad) + 1.0)

    def run(jobs):
        report = tmp_path / f"report{jobs}.json"
        r = subprocess.run([sys.executable, os.path.join(REPO, "tools", "conformance.py"), "--pterun", pterun_cli,
                            "--no-executorch", "--jobs", str(jobs), "--json", str(report), str(tmp_path / "cases")],
                           capture_output=True, text=True, timeout=600)
        return r, json.load(open(report))["results"]

    for jobs in (1, 3):
        r, results = run(jobs)
        assert r.returncode == 1, r.stdout + r.stderr
        assert [os.path.basename(x["case"]) for x in results] == sorted(names), results
        assert [x["ok"] for x in results] == [n != "small_cnn" for n in sorted(names)], results
        assert "FAIL " in r.stdout and "small_cnn: output 0" in r.stdout, r.stdout
        assert "conformance: 4/5 cases passed" in r.stdout, r.stdout


def test_runner_fails_a_case_marked_exact_that_is_not_executorchs_bits(pterun_cli, tmp_path):
    """executorch_exact: a case whose outputs are ExecuTorch's bit for bit
    passes, one within its tolerance but not bit for bit fails by name (the
    GELU between dq_gelu_mlp's linears is each runtime's own), and without
    ExecuTorch's runtime the mark changes nothing."""
    quant = os.path.join(REPO, "tests", "backend_xnnpack", "cases", "quant")
    for n in ("dq_8da4w_g32_llm", "dq_gelu_mlp"):
        shutil.copytree(os.path.join(quant, n), tmp_path / "cases" / n)
        meta_path = tmp_path / "cases" / n / "case.json"
        meta = json.load(open(meta_path))
        meta["executorch_exact"] = True
        json.dump(meta, open(meta_path, "w"))

    def run(et_flag):
        return subprocess.run([sys.executable, os.path.join(REPO, "tools", "conformance.py"), "--pterun", pterun_cli,
                               et_flag, str(tmp_path / "cases")], capture_output=True, text=True, timeout=600)

    r = run("--executorch")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "PASS " in r.stdout and "dq_8da4w_g32_llm" in r.stdout.split("PASS ", 1)[1].splitlines()[0], r.stdout
    assert "dq_gelu_mlp: output 0: " in r.stdout and "not ExecuTorch's bit for bit" in r.stdout, r.stdout
    r = run("--no-executorch")
    assert r.returncode == 0 and "conformance: 2/2 cases passed" in r.stdout, r.stdout + r.stderr


def test_operator_cases_contain_their_operator(pterun_cli, zoo):
    ops = set()
    for case_json in glob.glob(os.path.join(zoo, "ops", "*", "case.json")):
        meta = json.load(open(case_json))
        r = subprocess.run([pterun_cli, "info", "--json", os.path.join(os.path.dirname(case_json), "model.pte")],
                           capture_output=True, text=True, check=True)
        info = json.loads(r.stdout)
        names = {o["name"] for m in info["methods"] for o in m["operators"]}
        assert meta["op"] in names, f"{case_json}: {meta['op']} not in {names}"
        ops.add(meta["op"])
    print(f"{len(ops)} distinct operators have their own zoo program")
    assert len(ops) >= 60, sorted(ops)


def test_tolerances_are_justified(zoo):
    for case_json in glob.glob(os.path.join(zoo, "**", "case.json"), recursive=True):
        meta = json.load(open(case_json))
        for key in ("method", "rtol", "atol", "description"):
            assert key in meta, f"{case_json} lacks {key}"
        if meta["rtol"] > 1e-4 or meta["atol"] > 1e-5:
            assert meta.get("tolerance_reason"), f"{case_json}: wider tolerance without a reason"
