"""Every dtype pterun's programs take crosses the Python boundary both ways:
torch tensors through pterun.runtime / pterun.portable_lib, numpy arrays
through pterun.load where numpy can hold the dtype (bfloat16 and float8 come
back as torch tensors there). Each dtype runs an identity program (no kernel:
the boundary alone) and, where the exporter takes it, torch.cat (a kernel)."""
import numpy as np
import pytest

import et_programs as P
from et_programs import torch

from executorch.exir import to_edge
from torch.export import export

import pterun
from pterun import _convert
from pterun.runtime import Runtime

# the exporter takes identity for all of these; cat for those not marked
DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "bool", "bfloat16",
          "uint16", "uint32", "float8_e5m2", "float8_e4m3fn", "complex32", "complex64", "complex128"]
# torch's export refuses cat on the first three; the edge dialect's verifier on the complex ones
NO_CAT = {"uint32", "float8_e5m2", "float8_e4m3fn", "complex32", "complex64", "complex128"}
NO_NUMPY = {"bfloat16", "float8_e5m2", "float8_e4m3fn", "complex32"}  # numpy cannot hold these


class _Id(torch.nn.Module):
    def forward(self, x):
        return x


class _Cat(torch.nn.Module):
    def forward(self, x):
        return torch.cat([x, x])


def _sample(name):
    dt = getattr(torch, name)
    base = torch.tensor([[0.0, 1.0, 2.5], [-3.0, 4.0, 127.0]])
    if name == "bool":
        return base > 1
    if name.startswith("uint"):
        return base.abs().to(torch.int64).to(dt)
    if name.startswith("complex"):  # both parts vary (complex32 is made from complex64)
        return torch.complex(base, 0.5 - base).to(dt)
    return base.to(dt)


def _bits(t):
    return t.contiguous().reshape(-1).view(torch.uint8)


def _program(model, x, tmp_path):
    path = tmp_path / "m.pte"
    path.write_bytes(to_edge(export(model, (x,), strict=True)).to_executorch().buffer)
    return path


# cat only where the exporter takes it (NO_CAT: it refuses), so nothing is skipped
@pytest.mark.parametrize("name,op",
                         [(n, "identity") for n in DTYPES] + [(n, "cat") for n in DTYPES if n not in NO_CAT])
def test_torch_both_ways(name, op, tmp_path):
    model = _Id() if op == "identity" else _Cat()
    x = _sample(name)
    path = _program(model, x, tmp_path)
    out = Runtime.get().load_program(path).load_method("forward").execute((x,))[0]
    expected = model(x)
    assert out.dtype == x.dtype and out.shape == expected.shape
    assert torch.equal(_bits(out), _bits(expected))  # bitwise: NaN-free, exact
    # a non-contiguous input is made contiguous first
    xt = x.t().contiguous().t()
    assert not xt.is_contiguous()
    out2 = Runtime.get().load_program(path).load_method("forward").execute((xt,))[0]
    assert torch.equal(_bits(out2), _bits(expected))
    # numpy through pterun's own API, where numpy holds the dtype
    native = pterun.load(path).method("forward")
    if name in NO_NUMPY:
        got = native(x)  # torch in; numpy cannot hold the output, so torch out
        assert isinstance(got, torch.Tensor) and torch.equal(_bits(got), _bits(expected))
    else:
        got = native(x.numpy())
        assert isinstance(got, np.ndarray) and got.dtype == x.numpy().dtype
        assert np.array_equal(got, expected.numpy())


@pytest.mark.parametrize("name", ["uint64", "bits16", "float8_e5m2fnuz", "float8_e4m3fnuz"])
def test_conversion_round_trip(name):
    """Dtypes no exported program here can hold: the conversion both ways
    (raw bytes, the ScalarType code, the shape) is still exact."""
    dt = getattr(torch, name)
    x = torch.arange(6, dtype=torch.int16 if name == "bits16" else torch.float32).reshape(2, 3)
    x = x.view(dt) if name == "bits16" else x.to(dt)
    raw, code, shape = _convert.to_input(x)
    assert shape == (2, 3) and raw.dtype == np.uint8 and raw.nbytes == x.numel() * x.element_size()
    back = _convert.from_output((bytearray(raw.tobytes()), code, shape), want_torch=True)
    assert back.dtype == dt and torch.equal(_bits(back), _bits(x))


def test_bad_raw_input_rejected(tmp_path):
    """A (bytes, code, shape) input whose length does not match is refused by name."""
    x = _sample("float32")
    m = pterun.load(_program(_Id(), x, tmp_path)).method("forward")
    with pytest.raises(pterun.Error, match="bytes for a float32 tensor"):
        m._m.execute([(bytearray(8), 6, (2, 3))])
    with pytest.raises(pterun.Error, match="unknown dtype code"):
        m._m.execute([(bytearray(24), 99, (2, 3))])
