"""tools/debug_diverge.py finds the first operator where pterun and eager PyTorch differ."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from etdump_helpers import PROGRAMS, REPO, buggy_kernels_lib, make_case, pterun, delegate_lib

TOOL = os.path.join(REPO, "tools", "debug_diverge.py")
import executorch  # noqa: F401  (the tool needs the exporter package)
import torch  # noqa: F401


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
    if rc == 0:  # pterun matched eager bit for bit: nothing to tell apart
        assert r["first"] is None, r
        return
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


def zoo_dir():
    zoo = os.environ.get("PTERUN_ZOO", os.path.join(REPO, "zoo"))
    if not os.path.isdir(os.path.join(zoo, "models")):
        pytest.fail("no zoo here (set PTERUN_ZOO)")
    return zoo


def test_zoo_mlp_agrees_and_a_wrong_relu_is_found():
    case = os.path.join(zoo_dir(), "models", "mlp")
    rc, r = diverge(case)
    assert rc == 0, r["first"]
    rc, r = diverge(case, "--library", buggy_kernels_lib())
    assert rc == 1 and r["first"]["op"] == "aten::relu.out"


def test_zoo_models_interpreted_like_eager():
    """The tool's eager side reproduces every zoo model's expected outputs
    (whatever kernels this build has)."""
    sys.path.insert(0, os.path.join(REPO, "tools"))
    import debug_diverge as dd

    models = os.path.join(zoo_dir(), "models")
    checked = 0
    for name in sorted(os.listdir(models)):
        case = dd.load_case(os.path.join(models, name))
        if not case["expected"]:
            continue
        try:
            got = dd.interpret(case)
        except dd.Failure as e:
            if "delegate" in str(e):
                continue  # delegated programs need a runtime
            raise
        for k, path in enumerate(case["expected"]):
            np.testing.assert_allclose(got[k], np.load(path), rtol=max(case["rtol"], 1e-4),
                                       atol=max(case["atol"], 1e-5), err_msg=name)
        checked += 1
    assert checked > 0


def test_interpreter_reproduces_eager(tmp_path):
    """The tool's eager side alone, on programs beyond the portable kernels of
    this branch: convolutions, batch norm, pooling with indices, views that
    the exporter turns into shared memory, attention, layer norm, tensor lists
    and multi-output operators."""
    import torch
    from executorch.exir import to_edge_transform_and_lower

    sys.path.insert(0, os.path.join(REPO, "tools"))
    import debug_diverge as dd

    F = torch.nn.functional

    class CNN(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.c = torch.nn.Conv2d(3, 8, 3, padding=1)
            self.bn = torch.nn.BatchNorm2d(8)
            self.dw = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8)
            self.l = torch.nn.Linear(8 * 4 * 4, 5)

        def forward(self, x):
            y = F.max_pool2d(torch.relu(self.bn(self.c(x))), 2)
            y = F.avg_pool2d(F.relu6(self.dw(y)) + y, 2)
            return self.l(y.flatten(1))

    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.e = torch.nn.Embedding(20, 16)
            self.enc = torch.nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)

        def forward(self, t):
            return self.enc(self.e(t)).softmax(-1)

    class Lists(torch.nn.Module):
        def forward(self, x):
            a, b, c = torch.split(x, [1, 2, 3], dim=1)
            y = torch.cat([c, a * 2, b], dim=1)
            v, i = torch.max(y, dim=1)
            return y.permute(1, 0)[:, :2], v, i

    torch.manual_seed(0)
    for name, m, inputs in [("cnn", CNN(), (torch.randn(2, 3, 16, 16),)),
                            ("encoder", Encoder(), (torch.randint(0, 20, (2, 5)),)),
                            ("lists", Lists(), (torch.randn(4, 6),))]:
        m = m.eval()
        want = m(*inputs)
        want = list(want) if isinstance(want, tuple) else [want]
        program = to_edge_transform_and_lower(torch.export.export(m, inputs)).to_executorch()
        pte = tmp_path / f"{name}.pte"
        pte.write_bytes(program.buffer)
        case = make_case(tmp_path / name, pte, [t.numpy() for t in inputs], [w.detach().numpy() for w in want])
        got = dd.interpret(dd.load_case(case))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w.detach().numpy(), rtol=1e-4, atol=1e-5, err_msg=name)
        proc = subprocess.run([sys.executable, TOOL, str(case), "--eager-only"], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr


def test_multi_output_operator(tmp_path):
    # aten::max.dim_max writes two outputs (the test library provides its kernel).
    x = np.random.RandomState(1).randn(3, 5).astype(np.float32)
    case = make_case(tmp_path / "max", os.path.join(PROGRAMS, "multi_out.pte"), [x],
                     [x.max(axis=1), x.argmax(axis=1)])
    rc, r = diverge(case, "--library", delegate_lib())
    assert rc == 0, r
    assert r["checked"] == 2 and "notes" not in r
    assert all(o["matches_expected"] for o in r["outputs"])
