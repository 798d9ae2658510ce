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


class _Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))

    def forward(self, x):
        return self.net(x)


class _ConvRelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x))


@pytest.mark.parametrize("model,shape", [(_Mlp, (2, 8)), (_ConvRelu, (1, 3, 8, 8))],
                         ids=["mlp", "conv2d_relu"])
def test_xnnpack(model, shape, tmp_path):  # test_runtime_xnnpack.py: test_mlp, test_conv2d_relu
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import EdgeCompileConfig, to_edge_transform_and_lower
    from torch.export import export

    m = model().eval()
    x = torch.randn(*shape)
    with torch.no_grad():
        et = to_edge_transform_and_lower(export(m, (x,), strict=True),
                                         compile_config=EdgeCompileConfig(_check_ir_validity=False),
                                         partitioner=[XnnpackPartitioner()]).to_executorch()
        (tmp_path / "m.pte").write_bytes(et.buffer)
        out = Runtime.get().load_program(tmp_path / "m.pte", verification=Verification.Minimal) \
            .load_method("forward").execute((x,))
        assert torch.allclose(out[0], m(x), atol=1e-4)
