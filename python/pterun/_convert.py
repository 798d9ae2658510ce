"""Values across the Python boundary, for every API of the package.

The extension speaks buffers: an input tensor is a buffer whose format names
its dtype, or (raw bytes, dtype code, shape) for dtypes no buffer format
spells (bfloat16, float8, bits16); an output tensor is (bytearray, dtype code,
shape). This module turns numpy arrays, torch tensors and DLPack producers
into the first and the second into numpy arrays or torch tensors. torch is
imported only when a torch tensor is met or asked for."""
from __future__ import annotations

import sys
from typing import Any, Optional

import numpy as _np

# pte dtype codes (ExecuTorch ScalarType) -> numpy dtypes numpy can hold
NP_DTYPES = {
    0: _np.uint8, 1: _np.int8, 2: _np.int16, 3: _np.int32, 4: _np.int64, 5: _np.float16,
    6: _np.float32, 7: _np.float64, 9: _np.complex64, 10: _np.complex128, 11: _np.bool_,
    27: _np.uint16, 28: _np.uint32, 29: _np.uint64,
}

# pte dtype codes -> torch dtype attribute names (the quantized codes 12-14, 16
# and 17 are left out: torch keeps those in quantized tensors, not as bytes)
_TORCH_NAMES = {
    0: "uint8", 1: "int8", 2: "int16", 3: "int32", 4: "int64", 5: "float16", 6: "float32", 7: "float64",
    8: "complex32", 9: "complex64", 10: "complex128", 11: "bool", 15: "bfloat16", 22: "bits16",
    23: "float8_e5m2", 24: "float8_e4m3fn", 25: "float8_e5m2fnuz", 26: "float8_e4m3fnuz",
    27: "uint16", 28: "uint32", 29: "uint64",
}

_torch_tables: Optional[tuple] = None


def torch_or_none() -> Any:
    """torch if it imports (already imported or importable), else None."""
    mod = sys.modules.get("torch")
    if mod is not None:
        return mod
    try:
        import torch
    except ImportError:
        return None
    return torch


def _tables(torch: Any) -> tuple:
    global _torch_tables
    if _torch_tables is None:
        to_torch = {c: getattr(torch, n) for c, n in _TORCH_NAMES.items() if hasattr(torch, n)}
        _torch_tables = (to_torch, {d: c for c, d in to_torch.items()})
    return _torch_tables


def torch_dtype(code: int) -> Any:
    torch = torch_or_none()
    return None if torch is None else _tables(torch)[0].get(code)


def _is_torch_tensor(x: Any) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


def _from_torch(x: Any, index: int) -> Any:
    import torch
    if x.device.type != "cpu":
        # Only host memory can be read in place; naming the device tells the
        # caller to move it rather than leaving a crash or a bare failure.
        if x.device.type != "cuda":
            raise _error()(f"input {index} is on device {x.device}: only CPU and CUDA tensors are accepted "
                           "(CUDA ones are copied to the host)")
        x = x.cpu()
    code = _tables(torch)[1].get(x.dtype)
    if code is None:
        raise _error()(f"input {index}: dtype {x.dtype} has no pterun equivalent")
    t = x.detach().contiguous()
    raw = t.reshape(-1).view(torch.uint8).numpy()
    return (raw, code, tuple(t.shape))


def _error() -> Any:
    from ._pterun import Error
    return Error


def to_input(x: Any, index: int = 0, sequences: bool = True) -> Any:
    """numpy arrays and buffer objects pass through (made contiguous); torch
    tensors go as raw bytes with their dtype code, so every dtype crosses;
    other DLPack producers are viewed through numpy. Lists and tuples become
    arrays unless `sequences` is False (ExecuTorch's API refuses them)."""
    if isinstance(x, (bool, int, float)) or x is None:
        return x
    if _is_torch_tensor(x):
        return _from_torch(x, index)
    if isinstance(x, _np.ndarray):
        arr = x
    elif hasattr(x, "__dlpack__"):
        try:
            arr = _np.from_dlpack(x)
        except (TypeError, RuntimeError, BufferError):
            arr = _np.asarray(x)
    elif isinstance(x, (list, tuple)) and not sequences:
        raise _error()(f"input {index}: a {type(x).__name__} is not a tensor (pass an array or a tensor)")
    else:
        arr = _np.asarray(x)
    if not arr.flags.c_contiguous:
        arr = _np.ascontiguousarray(arr)
    return arr


def _to_torch(data: bytearray, code: int, shape: tuple) -> Any:
    import torch
    dt = _tables(torch)[0].get(code)
    if dt is None:
        raise _error()(f"output dtype code {code} has no torch equivalent")
    if len(data) == 0:
        return torch.empty(shape, dtype=dt)
    return torch.frombuffer(data, dtype=torch.uint8).view(dt).reshape(shape)


def from_output(o: Any, want_torch: bool) -> Any:
    """One output of the extension as numpy (want_torch False) or torch. A
    numpy output whose dtype numpy cannot hold (bfloat16, float8, ...) comes
    back as a torch tensor when torch imports."""
    if not (isinstance(o, tuple) and len(o) == 3 and isinstance(o[0], bytearray)):
        return o
    data, code, shape = o
    if want_torch:
        return _to_torch(data, code, shape)
    dtype = NP_DTYPES.get(code)
    if dtype is not None:
        return _np.frombuffer(data, dtype=dtype).reshape(shape)
    if torch_or_none() is not None:
        return _to_torch(data, code, shape)
    raise _error()(f"output dtype code {code} has no numpy equivalent (install torch to receive it)")
