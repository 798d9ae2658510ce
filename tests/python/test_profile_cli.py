"""`pterun run --profile` and `--debug-tensors`."""
import json
import os
import re

import numpy as np

from etdump_helpers import PROGRAMS, program_info, run, delegate_lib


def parse_table(out):
    lines = out.splitlines()
    head = next(i for i, l in enumerate(lines) if l.startswith("operator"))
    rows = []
    for l in lines[head + 1:]:
        m = re.match(r"^\s*(\S+)\s+(OPERATOR|DELEGATE|MOVE|JUMP|FREE|BACKEND)\s+(\d+)\s+([\d.]+)\s+([\d.]+)"
                     r"\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)%$", l)
        if m:
            rows.append({"name": m[1], "kind": m[2], "count": int(m[3]), "total": float(m[4]),
                         "share": float(m[8])})
    return lines[:head], rows


def test_profile_table(tmp_path):
    program = os.path.join(PROGRAMS, "mlp.pte")
    out = run("run", program, "--input", os.path.join(PROGRAMS, "mlp_input.npy"), "--iterations", 5,
              "--warmup", 2, "--profile").stdout
    head, rows = parse_table(out)
    assert any(l.startswith("5 execute(s)") for l in head)  # warmup runs are not profiled
    info = program_info(program)
    assert {r["name"] for r in rows} == {o["name"] for o in info["operators"]}
    assert sum(r["count"] for r in rows) == 5 * info["instructions"]
    totals = [r["total"] for r in rows]
    assert totals == sorted(totals, reverse=True)
    assert 0 < sum(r["share"] for r in rows) <= 100.5
    assert "instructions cover" in out


def test_profile_table_with_delegate(tmp_path):
    out = run("run", os.path.join(PROGRAMS, "delegated.pte"), "--library", delegate_lib(),
              "--iterations", 3, "--profile").stdout
    _, rows = parse_table(out)
    kinds = {r["kind"]: r for r in rows}
    assert kinds["DELEGATE"]["name"] == "BackendWithCompilerDemo" and kinds["DELEGATE"]["count"] == 6
    assert kinds["BACKEND"]["count"] == 6 and rows[-1]["kind"] == "BACKEND"
    assert "inside delegates" in out


def test_debug_tensors(tmp_path):
    d = tmp_path / "t"
    program = os.path.join(PROGRAMS, "mlp.pte")
    run("run", program, "--input", os.path.join(PROGRAMS, "mlp_input.npy"), "--iterations", 3,
        "--debug-tensors", d, "--quiet")
    index = json.loads((d / "index.json").read_text())
    info = program_info(program)
    assert index["method"] == "forward" and index["dropped_values"] == 0
    ops = [e for e in index["values"] if not e["program_output"]]
    assert [e["instruction"] for e in ops] == list(range(info["instructions"]))
    for e in ops:
        path = d / e["file"]
        assert path.exists() and e["file"].startswith(f"{e['instruction']}_")
        assert list(np.load(path).shape) == e["shape"]
    by_op = {e["instruction"]: np.load(d / e["file"]) for e in ops}
    # Where they should: the last instruction's output is the method's output,
    # which matches eager PyTorch; relu's output is relu of addmm's.
    expected = np.load(os.path.join(PROGRAMS, "mlp_expected.npy"))
    out = np.load(d / "output_0.npy")
    np.testing.assert_array_equal(by_op[info["instructions"] - 1], out)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)
    relu = [e["instruction"] for e in ops if e["op"] == "aten::relu.out"][0]
    np.testing.assert_array_equal(by_op[relu], np.maximum(by_op[relu - 1], 0))
