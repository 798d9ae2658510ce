"""ETDump through pterun.runtime and pterun.portable_lib, as ExecuTorch's
(1.5.1) `load_program(..., enable_etdump=True, debug_buffer_size=N)` and
`write_etdump_result_to_file`: the files are read by ExecuTorch's own
Inspector (no ETRecord). What is checked is what ExecuTorch's files hold for
the same program: one Execute block per run with the operators' events and,
with a debug buffer, each operator's output."""
import warnings

import pytest

import et_programs as P
from et_programs import torch

from pterun import portable_lib
from pterun.runtime import Runtime

inspector = pytest.importorskip("executorch.devtools.inspector")


def _inspect(etdump, debug=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return inspector.Inspector(etdump_path=str(etdump), debug_buffer_path=debug and str(debug))


def _execute_blocks(ins):
    return [b for b in ins.event_blocks if b.name == "Execute"]


def _op_events(block):
    return [e for e in block.events if e.name not in ("Method::execute", "OPERATOR_CALL")]


def _expected():
    x, y = P.mul_add_relu()[1]
    return [x * y, x * y + x, torch.relu(x * y + x)]


def test_runtime_etdump_with_debug_buffer(tmp_path):
    buf, (x, y) = P.mul_add_relu()
    program = Runtime.get().load_program(buf, enable_etdump=True, debug_buffer_size=1 << 20)
    method = program.load_method("forward")
    for _ in range(2):
        assert torch.equal(method.execute((x, y))[0], torch.relu(x * y + x))
    etdump, debug = tmp_path / "run.etdp", tmp_path / "debug.bin"
    program.write_etdump_result_to_file(str(etdump), str(debug))
    assert etdump.stat().st_size > 0 and debug.stat().st_size > 0
    ins = _inspect(etdump, debug)
    # the method's load, as in ExecuTorch's Default block
    default = [e.name for b in ins.event_blocks if b.name == "Default" for e in b.events]
    assert {"Program::load_method", "Method::init"} <= set(default), default
    (block,) = _execute_blocks(ins)
    ops = _op_events(block)
    assert [e.name for e in ops] == ["aten::mul.out", "aten::add.out", "aten::relu.out"]
    for e in ops + [x for x in block.events if x.name == "Method::execute"]:
        assert len(e.perf_data.raw) == 2  # both runs
    # the debug buffer holds each operator's output, as ExecuTorch's does
    for e, want in zip(ops, _expected()):
        assert len(e.debug_data) == 1
        assert torch.equal(e.debug_data[0], want), e.name


def test_runtime_etdump_without_debug_buffer(tmp_path):
    buf, (x, y) = P.mul_add_relu()
    program = Runtime.get().load_program(buf, enable_etdump=True)
    program.load_method("forward").execute((x, y))
    etdump, debug = tmp_path / "run.etdp", tmp_path / "debug.bin"
    program.write_etdump_result_to_file(str(etdump), str(debug))
    assert not debug.exists()  # as in ExecuTorch: no buffer asked for, none written
    (block,) = _execute_blocks(_inspect(etdump))
    ops = _op_events(block)
    assert [e.name for e in ops] == ["aten::mul.out", "aten::add.out", "aten::relu.out"]
    assert all(not e.debug_data for e in ops)


def test_runtime_no_etdump_raises(tmp_path):
    program = Runtime.get().load_program(P.mul_add_relu()[0])
    with pytest.raises(RuntimeError, match="No etdump"):
        program.write_etdump_result_to_file(str(tmp_path / "a.etdp"), str(tmp_path / "a.bin"))
    assert not (tmp_path / "a.etdp").exists()


def test_portable_lib_module_etdump(tmp_path):
    buf, (x, y) = P.mul_add_relu()
    assert not portable_lib._load_for_executorch_from_buffer(buf).has_etdump()
    m = portable_lib._load_for_executorch_from_buffer(buf, enable_etdump=True, debug_buffer_size=1 << 16)
    assert m.has_etdump()
    m.forward((x, y))
    m.forward((x, y))  # Inspector wants the same debug data in every run
    etdump, debug = tmp_path / "m.etdp", tmp_path / "m.bin"
    m.write_etdump_result_to_file(str(etdump), str(debug))
    (block,) = _execute_blocks(_inspect(etdump, debug))
    ops = _op_events(block)
    assert [e.name for e in ops] == ["aten::mul.out", "aten::add.out", "aten::relu.out"]
    assert len(ops[0].perf_data.raw) == 2


def test_portable_lib_program_etdump_from_path(tmp_path):
    path = tmp_path / "p.pte"
    path.write_bytes(P.mul_add_relu()[0])
    p = portable_lib._load_program(str(path), enable_etdump=True)
    assert p.has_etdump()
    p.load_method("forward")(P.mul_add_relu()[1])
    p.write_etdump_result_to_file(str(tmp_path / "p.etdp"))
    (block,) = _execute_blocks(_inspect(tmp_path / "p.etdp"))
    assert "aten::add.out" in [e.name for e in block.events]


def test_negative_debug_buffer_size_refused():
    with pytest.raises(ValueError, match="debug_buffer_size"):
        Runtime.get().load_program(P.mul_add_relu()[0], enable_etdump=True, debug_buffer_size=-1)
