"""The conformance zoo through pterun: every case within tolerance (ints and
bools exact), every operator case really contains its operator, and the
operator coverage the runtime promises."""
import glob
import json
import os
import subprocess
import sys

from conftest import REPO


def test_every_zoo_case_passes(pterun_cli, zoo, tmp_path):
    report = tmp_path / "report.json"
    r = subprocess.run([sys.executable, os.path.join(REPO, "tools", "conformance.py"), "--pterun", pterun_cli,
                        "--json", str(report), "-q", zoo], capture_output=True, text=True, timeout=3000)
    print(r.stdout[-3000:])
    results = json.load(open(report))["results"]
    failed = [(x["case"], x["error"]) for x in results if not x["ok"]]
    assert not failed, "\n".join(f"{c}: {e}" for c, e in failed)
    assert len(results) >= 100, len(results)


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
