"""ExecuTorch's Inspector reads pterun's ETDump files (no ETRecord)."""
import os
import warnings

import numpy as np
import pytest

from etdump_helpers import PROGRAMS, program_info, run, delegate_lib

import executorch.devtools.inspector as inspector
ITERATIONS = 3


def load(path, debug_buffer=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return inspector.Inspector(etdump_path=str(path), debug_buffer_path=debug_buffer and str(debug_buffer))


def operator_names(info):
    return {o["name"] for o in info["operators"]}


@pytest.fixture(scope="module")
def mlp_etdump(tmp_path_factory):
    d = tmp_path_factory.mktemp("mlp")
    run("run", os.path.join(PROGRAMS, "mlp.pte"), "--input", os.path.join(PROGRAMS, "mlp_input.npy"),
        "--iterations", ITERATIONS, "--etdump", d / "mlp.etdp", "--quiet")
    return d / "mlp.etdp"


def test_file_is_a_size_prefixed_etdump(mlp_etdump):
    from executorch.devtools.etdump.serialize import deserialize_from_etdump_flatcc

    data = mlp_etdump.read_bytes()
    assert int.from_bytes(data[:4], "little") == len(data) - 4
    assert data[8:12] == b"ED00"
    et = deserialize_from_etdump_flatcc(data)
    assert et.version == 0
    assert [r.name for r in et.run_data] == ["Default"] + ["Execute"] * ITERATIONS


def test_blocks_names_and_counts(mlp_etdump):
    info = program_info(os.path.join(PROGRAMS, "mlp.pte"))
    ins = load(mlp_etdump)
    blocks = {b.name: b for b in ins.event_blocks}
    assert set(blocks) == {"Default", "Execute"}
    assert [e.name for e in blocks["Default"].events] == ["Program::load", "Program::load_method", "Method::init"]
    execute = blocks["Execute"].events
    names = [e.name for e in execute]
    # Identical executes are grouped: one Event per signature, one sample per execute.
    assert names.count("Method::execute") == 1
    assert names.count("OPERATOR_CALL") == info["instructions"]
    op_events = [e for e in execute if e.name not in ("Method::execute", "OPERATOR_CALL")]
    assert len(op_events) == info["instructions"]
    assert {e.name for e in op_events} == operator_names(info)
    for e in execute:
        assert len(e.perf_data.raw) == ITERATIONS
        assert all(t >= 0 for t in e.perf_data.raw)
    calls = [e for e in execute if e.name == "OPERATOR_CALL"]
    assert sorted(e._instruction_id for e in calls) == list(range(info["instructions"]))
    assert min(ev.perf_data.raw[0] for ev in execute if ev.name == "Method::execute") > 0


def test_times_nest_inside_their_parent(mlp_etdump):
    ins = load(mlp_etdump)
    execute = [b for b in ins.event_blocks if b.name == "Execute"][0].events
    root = [e for e in execute if e.name == "Method::execute"][0]
    # Inspector keeps raw start times (ns) and scaled durations (ms).
    for run_i in range(ITERATIONS):
        r_start = root.start_time[run_i]
        r_end = r_start + root.perf_data.raw[run_i] * 1e6
        prev_end = r_start
        for e in execute:
            if e is root:
                continue
            s = e.start_time[run_i]
            end = s + e.perf_data.raw[run_i] * 1e6
            assert r_start <= s and end <= r_end + 1  # ms -> ns rounding
        calls = sorted((e for e in execute if e.name == "OPERATOR_CALL"), key=lambda e: e._instruction_id)
        for c in calls:  # instructions run one after another
            assert c.start_time[run_i] >= prev_end - 1
            prev_end = c.start_time[run_i] + c.perf_data.raw[run_i] * 1e6


def test_tabular_output(mlp_etdump):
    import io

    ins = load(mlp_etdump)
    buf = io.StringIO()
    ins.print_data_tabular(file=buf)
    out = buf.getvalue()
    assert "aten::addmm.out" in out and "Method::execute" in out
    assert "OPERATOR_CALL" not in out  # Inspector hides these rows, as for ExecuTorch's files
    df = ins.to_dataframe()
    assert len(df) > 0


def test_delegate_events(tmp_path):
    path = tmp_path / "delegated.etdp"
    run("run", os.path.join(PROGRAMS, "delegated.pte"), "--library", delegate_lib(), "--iterations", 2,
        "--etdump", path, "--quiet")
    execute = [b for b in load(path).event_blocks if b.name == "Execute"][0].events
    names = [e.name for e in execute]
    assert names.count("DELEGATE_CALL") == 2
    assert names.count("OPERATOR_CALL") == 1
    delegated = [e for e in execute if e.is_delegated_op]
    # The demo payload's debug handles, as Inspector names delegate events.
    assert sorted(e.delegate_debug_identifier for e in delegated) == [1, 3]
    calls = {e._instruction_id: e for e in execute if e.name == "DELEGATE_CALL"}
    for e in delegated:
        parent = calls[e._instruction_id]
        for i in range(2):
            assert parent.start_time[i] <= e.start_time[i]
            assert e.perf_data.raw[i] <= parent.perf_data.raw[i] + 1e-6


def test_debug_buffer_and_run_outputs(tmp_path):
    d = tmp_path / "tensors"
    path = tmp_path / "mlp.etdp"
    run("run", os.path.join(PROGRAMS, "mlp.pte"), "--input", os.path.join(PROGRAMS, "mlp_input.npy"),
        "--etdump", path, "--debug-tensors", d, "--quiet")
    ins = load(path, d / "debug_buffer.bin")
    block = [b for b in ins.event_blocks if b.name == "Execute"][0]
    expected = np.load(os.path.join(PROGRAMS, "mlp_expected.npy"))
    assert len(block.run_output) == 1
    np.testing.assert_allclose(block.run_output[0].numpy(), expected, rtol=1e-4, atol=1e-5)
    # Each operator event carries its output, equal to the .npy file of that instruction.
    import json

    index = json.loads((d / "index.json").read_text())
    files = {e["instruction"]: e["file"] for e in index["values"] if not e["program_output"]}
    ops = [e for e in block.events if e.name not in ("Method::execute", "OPERATOR_CALL")]
    assert len(ops) == len(files)
    for e in ops:
        assert len(e.debug_data) == 1
        np.testing.assert_array_equal(e.debug_data[0].numpy(), np.load(d / files[e._instruction_id]))
