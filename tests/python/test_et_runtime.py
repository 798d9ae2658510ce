"""pterun.runtime against what ExecuTorch's own tests of executorch.runtime
check (1.5.1, runtime/test/test_runtime.py, test_runtime_xnnpack.py and
extension/pybindings/test/test_backend_pybinding.py): each test names the
one of theirs it stands for. Written afresh; only the import differs."""
import io

import pytest

import et_programs as P
from et_programs import torch

from pterun.runtime import MethodMeta, Runtime, Verification


def test_smoke():  # test_smoke
    buf, (x, y) = P.add()
    rt = Runtime.get()
    assert Runtime.get() is rt
    out = rt.load_program(buf, verification=Verification.Minimal).load_method("forward").execute((x, y))
    assert isinstance(out, list) and torch.allclose(out[0], x + y)


def test_module_with_multiple_method_names():  # test_module_with_multiple_method_names
    buf, (x, y) = P.two_methods()
    p = Runtime.get().load_program(buf, verification=Verification.Minimal)
    assert p.method_names == {"forward", "forward2"}
    assert torch.allclose(p.load_method("forward").execute((x, y))[0], x + y)
    assert torch.allclose(p.load_method("forward2").execute((x, y))[0], x + y + 1)
    assert p.load_method("forward") is p.load_method("forward")  # (ours) methods are kept


def test_print_operator_names():  # test_print_operator_names
    names = Runtime.get().operator_registry.operator_names
    assert isinstance(names, set) and "aten::add.out" in names


def _check_add(program):
    x = torch.arange(4.0).reshape(2, 2)
    assert torch.equal(program.load_method("forward").execute((x, x))[0], x + x)


def test_load_program_with_path(tmp_path):  # test_load_program_with_path
    f = tmp_path / "add.pte"
    f.write_bytes(P.add()[0])
    rt = Runtime.get()
    _check_add(rt.load_program(str(f)))
    _check_add(rt.load_program(f))
    with open(f, "rb") as fh:
        _check_add(rt.load_program(fh.read()))


def test_load_program_with_file_like_objects(tmp_path):  # test_load_program_with_file_like_objects
    buf = P.add()[0]
    rt = Runtime.get()
    _check_add(rt.load_program(io.BytesIO(buf)))
    _check_add(rt.load_program(bytes(buf)))
    _check_add(rt.load_program(bytearray(buf)))
    _check_add(rt.load_program(memoryview(buf)))  # (ours) the issue asks for memoryview too
    f = tmp_path / "add.pte"
    f.write_bytes(buf)
    with open(f, "rb") as fh:  # (ours) an open file
        _check_add(rt.load_program(fh))


def test_buffer_is_copied():  # (ours) the caller may reuse its buffer after loading
    b = bytearray(P.add()[0])
    p = Runtime.get().load_program(b)
    b[:] = bytes(len(b))
    _check_add(p)


def test_load_program_rejects_other_types():  # (ours)
    with pytest.raises(TypeError):
        Runtime.get().load_program(42)
    with pytest.raises(RuntimeError):
        Runtime.get().load_program(b"\0" * 64)


def test_data_path(tmp_path):  # (ours) load_program's data_path, as a path and from a buffer
    pte, ptd, inputs, eager = P.linear_external()
    (tmp_path / "m.ptd").write_bytes(ptd)
    rt = Runtime.get()
    for src in (pte, io.BytesIO(pte)):
        p = rt.load_program(src, data_path=tmp_path / "m.ptd")
        assert torch.allclose(p.load_method("forward").execute(inputs)[0], eager(inputs[0]))
    with pytest.raises(RuntimeError):
        rt.load_program(pte).load_method("forward")


def test_metadata():  # (ours) Program.metadata and Method.metadata are MethodMeta
    p = Runtime.get().load_program(P.add()[0])
    meta = p.metadata("forward")
    assert isinstance(meta, MethodMeta) and meta.num_inputs() == 2
    t = meta.input_tensor_meta(0)
    assert (t.sizes(), t.dtype(), t.nbytes(), t.is_memory_planned()) == ((2, 2), 6, 16, True)
    assert str(p.load_method("forward").metadata) == str(meta)


def test_backend_name_list():  # test_backend_pybinding.py: test_backend_name_list
    names = Runtime.get().backend_registry.registered_backend_names
    assert len(names) >= 1 and "XnnpackBackend" in names


def test_backend_is_available():  # test_backend_pybinding.py: test_backend_is_available
    reg = Runtime.get().backend_registry
    assert reg.is_available(backend_name="XnnpackBackend")
    assert not reg.is_available(backend_name="NonExistBackend")


# test_runtime_xnnpack.py's seven models, each small and seeded. The lowered
# program must hold an XNNPACK delegate, so a partitioner that took nothing
# (the portable kernels running it all) does not pass as the backend's test.
class _Add(torch.nn.Module):
    def forward(self, x, y):
        return x + y


class _ClassifierHead(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = torch.nn.AdaptiveAvgPool2d(1)
        self.fc = torch.nn.Linear(12, 5)

    def forward(self, x):
        return self.fc(self.pool(x).flatten(1))


def _seeded(make):
    def build():
        torch.manual_seed(0)
        return make()
    return build


def _conv_bn():
    m = torch.nn.Sequential(torch.nn.Conv2d(3, 6, 3, padding=1), torch.nn.BatchNorm2d(6), torch.nn.ReLU())
    with torch.no_grad():  # non-trivial running statistics, so folding them wrongly shows
        m[1].running_mean.uniform_(-0.5, 0.5)
        m[1].running_var.uniform_(0.5, 2.0)
        m[1].weight.uniform_(0.5, 1.5)
        m[1].bias.uniform_(-0.5, 0.5)
    return m


_XNN_CASES = {  # test name: (model, input shapes, tolerance)
    "add": (_Add, [(2, 3), (2, 3)], 1e-4),
    "linear": (_seeded(lambda: torch.nn.Linear(10, 6)), [(3, 10)], 1e-4),
    "conv2d_relu": (_seeded(lambda: torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.ReLU())),
                    [(1, 3, 8, 8)], 1e-3),
    "mlp": (_seeded(lambda: torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))),
            [(2, 8)], 1e-3),
    "conv_bn": (_seeded(_conv_bn), [(1, 3, 6, 6)], 1e-3),
    "depthwise_separable_conv": (_seeded(lambda: torch.nn.Sequential(
        torch.nn.Conv2d(8, 8, 3, padding=1, groups=8), torch.nn.ReLU(),
        torch.nn.Conv2d(8, 12, 1), torch.nn.ReLU())), [(1, 8, 6, 6)], 1e-3),
    "classifier_head": (_seeded(_ClassifierHead), [(1, 12, 5, 5)], 1e-3),
}


@pytest.mark.parametrize("name", list(_XNN_CASES))
def test_xnnpack(name, tmp_path, monkeypatch):  # test_runtime_xnnpack.py: the test_<name> of each case
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import EdgeCompileConfig, to_edge_transform_and_lower
    from torch.export import export

    model, shapes, tol = _XNN_CASES[name]
    m = model().eval()
    torch.manual_seed(1)
    inputs = tuple(torch.randn(*s) for s in shapes)
    with torch.no_grad():
        et = to_edge_transform_and_lower(export(m, inputs, strict=True),
                                         compile_config=EdgeCompileConfig(_check_ir_validity=False),
                                         partitioner=[XnnpackPartitioner()]).to_executorch()
        delegates = [d.id for d in et.executorch_program.execution_plan[0].delegates]
        assert delegates and set(delegates) == {"XnnpackBackend"}
        (tmp_path / "m.pte").write_bytes(et.buffer)
        expected = m(*inputs)
        # (ours) again with the delegate on pterun's own kernels wherever it
        # has them: the variable is read when a delegate is initialised.
        for native in ("0", "1"):
            monkeypatch.setenv("PTERUN_XNNPACK_NATIVE", native)
            method = Runtime.get().load_program(tmp_path / "m.pte", verification=Verification.Minimal) \
                .load_method("forward")
            assert method is not None
            out = method.execute(inputs)
            assert len(out) == 1
            torch.testing.assert_close(out[0], expected, atol=tol, rtol=tol)
