"""tools/debug_diverge.py finds the first operator where pterun and eager PyTorch differ."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from etdump_helpers import PROGRAMS, REPO, buggy_kernels_lib, make_case, pterun, delegate_lib

TOOL = os.path.join(REPO, "tools", "debug_diverge.py")
pytest.importorskip("torch")
pytest.importorskip("executorch")


def diverge(case, *extra):
    proc = subprocess.run([sys.executable, TOOL, str(case), "--pterun", pterun(), "--json", *map(str, extra)],
                          capture_output=True, text=True)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


@pytest.fixture
def mlp_case(tmp_path):
    return make_case(tmp_path / "mlp", os.path.join(PROGRAMS, "mlp.pte"),
                     [np.load(os.path.join(PROGRAMS, "mlp_input.npy"))],
                     [np.load(os.path.join(PROGRAMS, "mlp_expected.npy"))])


def test_agrees_with_eager(mlp_case):
    rc, r = diverge(mlp_case)
    assert rc == 0 and r["first"] is None
    assert r["checked"] == r["instructions"] == 6
    assert r["outputs"][0]["matches_eager"] and r["outputs"][0]["matches_expected"]


def test_finds_a_wrong_operator(mlp_case):
    # A kernel library whose relu adds 0.25: instruction 2 of the MLP.
    rc, r = diverge(mlp_case, "--library", buggy_kernels_lib())
    assert rc == 1
    first = r["first"]
    assert first["instruction"] == 2 and first["op"] == "aten::relu.out"
    assert abs(first["max_abs_diff"] - 0.25) < 1e-6
    assert first["local"]["matches_pterun"] is False  # the operator itself, not upstream drift
    assert {e["instruction"] for e in r["later"]} == {4, 5}  # everything downstream differs too
    assert not r["outputs"][0]["matches_expected"]


def test_tolerance_drift_is_told_apart(mlp_case):
    # With a zero tolerance the tiny float differences of addmm count: the
    # report says whether the operator disagrees on pterun's own inputs.
    rc, r = diverge(mlp_case, "--rtol", 0, "--atol", 0)
    if rc == 0:
        pytest.skip("pterun matches eager bit for bit on this machine")
    assert r["first"]["op"] in ("aten::addmm.out", "aten::sum.IntList_out")
    assert "matches_pterun" in r["first"]["local"]


def test_delegates_are_skipped_not_failed(tmp_path):
    x, y = np.random.RandomState(0).randn(2, 3, 4).astype(np.float32)
    case = make_case(tmp_path / "del", os.path.join(PROGRAMS, "delegated.pte"), [x, y],
                     [np.maximum(x + y, 0) + x])
    rc, r = diverge(case, "--library", delegate_lib())
    assert rc == 0, r
    assert r["delegates"] == [0, 2]
    assert r["checked"] == 1  # the relu between them
    assert r["outputs"][0]["matches_expected"]


def test_human_report(mlp_case):
    proc = subprocess.run([sys.executable, TOOL, str(mlp_case), "--pterun", pterun(), "--library",
                           buggy_kernels_lib()], capture_output=True, text=True)
    assert proc.returncode == 1
    assert "FIRST DIVERGENCE: instruction 2 aten::relu.out" in proc.stdout
    assert "pterun:" in proc.stdout and "eager:" in proc.stdout


def test_zoo_cases_when_present():
    zoo = os.environ.get("PTERUN_ZOO", os.path.join(REPO, "zoo"))
    case = os.path.join(zoo, "models", "mlp")
    if not os.path.exists(os.path.join(case, "model.pte")):
        pytest.skip("no zoo mlp case here")
    rc, r = diverge(case)
    assert rc == 0, r["first"]
