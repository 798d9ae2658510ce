"""`pterun run` with ExecuTorch executor_runner's flag names (its gflags,
examples/portable/executor_runner/executor_runner.cpp): --model_path,
--data_path, --inputs (a comma list of raw tensor files), --output_file
(<base>-<i>.bin), --num_executions, --method_name, --etdump_path,
--cpu_threads, --print_output, --bundleio_rtol/--bundleio_atol, as
--flag VALUE or --flag=VALUE. What executor_runner has and pterun does not
(--server_mode, the Arm VGF dumps) is refused by name."""
import os
import subprocess

import numpy as np
import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BPTE = os.path.join(REPO, "tests", "bundled_program")


def run(cli, *args, ok=True):
    r = subprocess.run([cli, "run", *args], capture_output=True, text=True, timeout=120)
    if ok:
        assert r.returncode == 0, r.stderr
    return r


def _raw(tmp_path, npy, name):
    p = tmp_path / name
    np.load(npy).tofile(p)
    return str(p)


def test_inputs_and_output_file(pterun_cli, zoo, tmp_path):
    case = os.path.join(zoo, "models", "add")
    a = _raw(tmp_path, os.path.join(case, "inputs", "0.npy"), "a.bin")
    b = _raw(tmp_path, os.path.join(case, "inputs", "1.npy"), "b.bin")
    run(pterun_cli, f"--model_path={case}/model.pte", "--inputs", f"{a},{b}", "--output_file", str(tmp_path / "out"))
    # the same bytes as pterun's own flags give
    run(pterun_cli, f"{case}/model.pte", "--input", f"{case}/inputs/0.npy", "--input", f"{case}/inputs/1.npy",
        "--output-dir", str(tmp_path / "npy"))
    expected = np.load(tmp_path / "npy" / "output_0.npy")
    got = np.fromfile(tmp_path / "out-0.bin", dtype=expected.dtype)
    assert got.size == expected.size and np.array_equal(got, expected.reshape(-1))


def test_npy_in_inputs_list(pterun_cli, zoo, tmp_path):
    case = os.path.join(zoo, "models", "add")
    r = run(pterun_cli, "--model_path", f"{case}/model.pte", f"--inputs={case}/inputs/0.npy,{case}/inputs/1.npy")
    assert "output 0:" in r.stdout


def test_wrong_inputs(pterun_cli, zoo, tmp_path):
    case = os.path.join(zoo, "models", "add")
    a = _raw(tmp_path, os.path.join(case, "inputs", "0.npy"), "a.bin")
    r = run(pterun_cli, "--model_path", f"{case}/model.pte", "--inputs", a, ok=False)
    assert r.returncode == 1 and "takes 2 inputs, 1 were given" in r.stderr
    short = tmp_path / "short.bin"
    short.write_bytes(b"\0" * 3)
    r = run(pterun_cli, "--model_path", f"{case}/model.pte", "--inputs", f"{short},{a}", ok=False)
    assert r.returncode == 1 and "the file holds 3" in r.stderr


def test_num_executions_method_name_cpu_threads(pterun_cli, zoo):
    model = os.path.join(zoo, "models", "mlp", "model.pte")
    r = run(pterun_cli, "--model_path", model, "--num_executions=4", "--method_name", "forward", "--cpu_threads", "1")
    assert "method 'forward'" in r.stdout and "4 iteration(s)" in r.stdout
    r = run(pterun_cli, "--model_path", model, "--method_name=nope", ok=False)
    assert r.returncode == 1 and "nope" in r.stderr
    r = run(pterun_cli, "--model_path", model, "--cpu_threads", "many", ok=False)
    assert r.returncode == 2 and "--cpu_threads" in r.stderr


def test_print_output(pterun_cli, zoo):
    model = os.path.join(zoo, "models", "mlp", "model.pte")  # output float32 [4, 10]
    full = run(pterun_cli, "--model_path", model, "--print_output", "all").stdout
    line = next(l for l in full.splitlines() if l.startswith("output 0:"))
    values = line.split("] [", 1)[1]
    assert values.count(",") == 39 and "..." not in values
    summary = run(pterun_cli, "--model_path", model, "--print_output=summary").stdout
    assert "..." in next(l for l in summary.splitlines() if l.startswith("output 0:"))
    assert "output 0" not in run(pterun_cli, "--model_path", model, "--print_output", "none").stdout
    assert run(pterun_cli, "--model_path", model, "--print_output", "most", ok=False).returncode == 2


def test_data_path_and_etdump_path(pterun_cli, zoo, tmp_path):
    case = os.path.join(zoo, "models", "external_weights")
    run(pterun_cli, "--model_path", f"{case}/model.pte", "--data_path", f"{case}/model.ptd",
        f"--etdump_path={tmp_path}/run.etdp")
    assert (tmp_path / "run.etdp").stat().st_size > 0
    assert run(pterun_cli, "--model_path", f"{case}/model.pte", ok=False).returncode == 1


def test_bundled_model(pterun_cli):
    r = run(pterun_cli, "--model_path", os.path.join(BPTE, "bad.bpte"), ok=False)
    assert r.returncode == 1 and "case 1: output 0 element 4" in r.stdout
    run(pterun_cli, "--model_path", os.path.join(BPTE, "bad.bpte"), "--bundleio_atol", "0.6")
    run(pterun_cli, "--model_path", os.path.join(BPTE, "good.bpte"), "--bundleio_rtol=0", "--bundleio_atol=0")


@pytest.mark.parametrize("flag", ["--server_mode", "--vgf_input_dump_dir=x", "--dump_vgf_inputs_and_exit"])
def test_unsupported_refused(pterun_cli, zoo, flag):
    r = run(pterun_cli, "--model_path", os.path.join(zoo, "models", "mlp", "model.pte"), flag, ok=False)
    assert r.returncode == 2 and "not supported" in r.stderr
