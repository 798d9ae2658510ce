"""Shared data structures and deterministic input helpers for the zoo exporter.

Every case is described by a `Spec`.  A spec builds (lazily, after seeding)
one ExecuTorch program (one or more methods) and one or more case folders
that share that program.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch

F32 = torch.float32
F64 = torch.float64
I32 = torch.int32
I64 = torch.int64
BOOL = torch.bool

# Tolerance presets: (rtol, atol, reason)
TOL_DEFAULT = (1e-4, 1e-5, None)
TOL_EW = (1e-6, 1e-6, None)
TOL_TRANSC = (
    1e-5,
    1e-6,
    "transcendental function: libm / vectorised (SLEEF) implementations may "
    "differ by a few ULP, so a 1e-5 relative tolerance is used",
)


@dataclass
class CaseIO:
    """One case folder produced from a built program."""

    name: str
    method: str
    inputs: Tuple[torch.Tensor, ...]
    description: Optional[str] = None


@dataclass
class Built:
    """Result of Spec.build(): what to export and which cases to write."""

    # method name -> (module, example inputs, dynamic_shapes or None)
    methods: Dict[str, Tuple[torch.nn.Module, Tuple[torch.Tensor, ...], Any]]
    cases: List[CaseIO]


@dataclass
class Spec:
    group: str
    name: str
    build: Callable[[], Built]
    description: str
    case_names: List[str] = field(default_factory=list)
    op: Optional[str] = None
    rtol: float = 1e-4
    atol: float = 1e-5
    tolerance_reason: Optional[str] = None
    xnnpack: bool = False
    external: bool = False
    dynamic: bool = False
    preserve_ops: Sequence[Any] = ()
    remove_view_copy: bool = True
    seed_key: Optional[str] = None
    extra: Dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.case_names:
            self.case_names = [self.name]
        if self.seed_key is None:
            self.seed_key = self.name
        if (self.rtol > 1e-4 or self.atol > 1e-5) and not self.tolerance_reason:
            raise ValueError(f"{self.name}: loose tolerance needs a tolerance_reason")


def seed_for(key: str) -> int:
    return zlib.crc32(key.encode("utf-8")) & 0x7FFFFFFF


class FnModule(torch.nn.Module):
    """Wraps a plain function so it can be exported as a module."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args: torch.Tensor) -> Any:  # noqa: D401
        return self.fn(*args)


# ---------------------------------------------------------------------------
# Deterministic input helpers.  They use the global torch RNG, which the
# exporter seeds per spec before calling Spec.build().
# ---------------------------------------------------------------------------


def rn(*shape: int, dt: torch.dtype = F32, scale: float = 1.0) -> torch.Tensor:
    """Standard normal values."""
    return (torch.randn(*shape, dtype=F64) * scale).to(dt)


def uni(*shape: int, lo: float = 0.5, hi: float = 2.0, dt: torch.dtype = F32) -> torch.Tensor:
    """Uniform values in [lo, hi)."""
    return (torch.rand(*shape, dtype=F64) * (hi - lo) + lo).to(dt)


def nz(*shape: int, lo: float = 0.5, hi: float = 2.0, dt: torch.dtype = F32) -> torch.Tensor:
    """Values with magnitude in [lo, hi) and random sign (never zero)."""
    mag = torch.rand(*shape, dtype=F64) * (hi - lo) + lo
    sign = torch.where(torch.rand(*shape) < 0.5, -1.0, 1.0).to(F64)
    return (mag * sign).to(dt)


def ri(lo: int, hi: int, *shape: int, dt: torch.dtype = I64) -> torch.Tensor:
    """Random integers in [lo, hi)."""
    return torch.randint(lo, hi, shape, dtype=I64).to(dt)


def ri_nz(lo: int, hi: int, *shape: int, dt: torch.dtype = I64) -> torch.Tensor:
    """Random non-zero integers in [lo, hi)."""
    t = torch.randint(lo, hi, shape, dtype=I64)
    t = torch.where(t == 0, torch.ones_like(t), t)
    return t.to(dt)


def rb(*shape: int, p: float = 0.5) -> torch.Tensor:
    """Random booleans."""
    return torch.rand(*shape) < p


def distinct(*shape: int, dt: torch.dtype = F32) -> torch.Tensor:
    """Distinct values (no ties), well separated: a scaled random permutation."""
    n = 1
    for s in shape:
        n *= s
    perm = torch.randperm(n, dtype=I64).to(F64)
    vals = (perm - n / 2.0) * 0.37 + 0.1
    return vals.reshape(shape).to(dt)


def no_half(*shape: int, scale: float = 3.0, dt: torch.dtype = F32) -> torch.Tensor:
    """Random values whose fractional part is never close to .5 (rounding
    ties) nor to 0 (floor/ceil boundaries)."""
    x = torch.randn(*shape, dtype=F64) * scale
    frac = x - torch.floor(x)
    bad = ((frac - 0.5).abs() < 0.05) | (frac < 0.05) | (frac > 0.95)
    x = torch.where(bad, x + 0.21, x)
    return x.to(dt)


def small_ints_f(*shape: int, lo: int = -2, hi: int = 3, dt: torch.dtype = F32) -> torch.Tensor:
    """Floats holding small integers: gives exact ties for comparisons."""
    return torch.randint(lo, hi, shape).to(dt)


def scalar0(value: float, dt: torch.dtype = F32) -> torch.Tensor:
    return torch.tensor(value, dtype=dt)
