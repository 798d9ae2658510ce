"""The CLI contract: `pterun run model.pte [--data] [--method] --input N.npy ...
--output-dir D` writes D/output_N.npy; bad input gives a one-line message and a
non-zero status, never a crash."""
import json
import os
import subprocess

import numpy as np


def run(cli, *args, check=True):
    r = subprocess.run([cli, *args], capture_output=True, text=True, timeout=300)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def one_line_error(r, needle):
    assert r.returncode not in (0, -11, -6, 134, 139), f"status {r.returncode}"
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    assert len(lines) == 1, r.stderr
    assert needle in lines[0], lines[0]


def test_run_writes_outputs(pterun_cli, zoo, tmp_path):
    case = os.path.join(zoo, "models", "mlp")
    r = run(pterun_cli, "run", os.path.join(case, "model.pte"), "--input", os.path.join(case, "inputs", "0.npy"),
            "--output-dir", str(tmp_path), "--iterations", "5")
    out = np.load(tmp_path / "output_0.npy")
    np.testing.assert_allclose(out, np.load(os.path.join(case, "expected", "0.npy")), rtol=1e-4, atol=1e-5)
    assert "output 0: float32" in r.stdout
    assert "median" in r.stdout and "min" in r.stdout and "max" in r.stdout


def test_run_with_data_and_method(pterun_cli, zoo, tmp_path):
    case = os.path.join(zoo, "models", "external_weights")
    run(pterun_cli, "run", os.path.join(case, "model.pte"), "--data", os.path.join(case, "model.ptd"), "--method",
        "forward", "--input", os.path.join(case, "inputs", "0.npy"), "--output-dir", str(tmp_path))
    np.testing.assert_allclose(np.load(tmp_path / "output_0.npy"), np.load(os.path.join(case, "expected", "0.npy")),
                               rtol=1e-4, atol=1e-5)
    case = os.path.join(zoo, "models", "two_methods_encode")
    with open(os.path.join(case, "case.json")) as f:
        method = json.load(f)["method"]
    run(pterun_cli, "run", os.path.join(case, "model.pte"), "--method", method, "--input",
        os.path.join(case, "inputs", "0.npy"), "--output-dir", str(tmp_path / "e"))
    np.testing.assert_allclose(np.load(tmp_path / "e" / "output_0.npy"),
                               np.load(os.path.join(case, "expected", "0.npy")), rtol=1e-4, atol=1e-5)


def test_run_generates_inputs(pterun_cli, zoo):
    r = run(pterun_cli, "run", os.path.join(zoo, "models", "small_cnn", "model.pte"), "--iterations", "3")
    assert "output 0" in r.stdout


def test_info_json(pterun_cli, zoo):
    r = run(pterun_cli, "info", os.path.join(zoo, "models", "two_methods_forward", "model.pte"), "--json")
    info = json.loads(r.stdout)
    names = sorted(m["name"] for m in info["methods"])
    assert len(names) == 2
    m = info["methods"][0]
    assert m["inputs"][0]["kind"] == "Tensor" and m["operators"] and m["planned_bytes"] > 0
    assert all(op["registered"] for op in m["operators"])
    r = run(pterun_cli, "info", os.path.join(zoo, "xnnpack", "mlp", "model.pte"), "--json")
    dels = json.loads(r.stdout)["methods"][0]["delegates"]
    assert dels and dels[0]["backend"] == "XnnpackBackend"


def test_missing_file(pterun_cli, tmp_path):
    one_line_error(run(pterun_cli, "run", str(tmp_path / "nope.pte"), check=False), "nope.pte")


def test_corrupt_program(pterun_cli, zoo, tmp_path):
    data = bytearray(open(os.path.join(zoo, "models", "mlp", "model.pte"), "rb").read())
    bad = tmp_path / "bad.pte"
    bad.write_bytes(bytes(data[: len(data) // 3]))
    one_line_error(run(pterun_cli, "run", str(bad), check=False), "bad.pte")
    data[4:8] = b"XXXX"
    bad.write_bytes(bytes(data))
    one_line_error(run(pterun_cli, "info", str(bad), check=False), "not an ExecuTorch program")


def test_wrong_input(pterun_cli, zoo, tmp_path):
    case = os.path.join(zoo, "models", "mlp")
    x = np.load(os.path.join(case, "inputs", "0.npy"))
    np.save(tmp_path / "wrong.npy", np.zeros(x.shape[:-1] + (x.shape[-1] + 1,), np.float32))
    r = run(pterun_cli, "run", os.path.join(case, "model.pte"), "--input", str(tmp_path / "wrong.npy"), check=False)
    one_line_error(r, "input 0")
    np.save(tmp_path / "wrong.npy", x.astype(np.float64))
    r = run(pterun_cli, "run", os.path.join(case, "model.pte"), "--input", str(tmp_path / "wrong.npy"), check=False)
    one_line_error(r, "float64")
    (tmp_path / "garbage.npy").write_bytes(b"\x93NUMPY\x01\x00garbage")
    r = run(pterun_cli, "run", os.path.join(case, "model.pte"), "--input", str(tmp_path / "garbage.npy"), check=False)
    one_line_error(r, "garbage.npy")


def test_unknown_method_and_option(pterun_cli, zoo):
    r = run(pterun_cli, "run", os.path.join(zoo, "models", "mlp", "model.pte"), "--method", "nope", check=False)
    one_line_error(r, "'nope'")
    r = run(pterun_cli, "run", os.path.join(zoo, "models", "mlp", "model.pte"), "--bogus", check=False)
    assert r.returncode == 2  # a usage error: the message, then the usage (test_cli_usage.py)
    assert "--bogus" in r.stderr.splitlines()[0] and r.stderr.splitlines()[1].startswith("usage: pterun run")
