"""Operator cases: one small program per operator (group `ops`)."""

from __future__ import annotations

import os
from typing import Any, Callable, List, Optional, Sequence, Tuple

import torch
import torch.nn.functional as F

from zoo_common import (
    BOOL,
    F32,
    F64,
    I32,
    I64,
    TOL_DEFAULT,
    TOL_EW,
    TOL_TRANSC,
    Built,
    CaseIO,
    FnModule,
    Spec,
    distinct,
    no_half,
    nz,
    rb,
    ri,
    ri_nz,
    rn,
    scalar0,
    small_ints_f,
    uni,
)

aten = torch.ops.aten

_SPECS: List[Spec] = []
# What each case() was called with, for the dtype variants (_dtype_cases).
_CASE_ARGS: dict = {}

DT_NAME = {F32: "float32", F64: "float64", I32: "int32", I64: "int64", BOOL: "bool"}


def _sig(inputs: Sequence[torch.Tensor]) -> str:
    return ", ".join(f"{DT_NAME.get(t.dtype, str(t.dtype))}{list(t.shape)}" for t in inputs)


def case(
    name: str,
    fn: Callable[..., Any],
    inputs: Callable[[], Tuple[torch.Tensor, ...]],
    op: str,
    desc: str,
    tol: Tuple[float, float, Optional[str]] = TOL_EW,
    preserve: Sequence[Any] = (),
    remove_view_copy: bool = True,
    extra: Optional[dict] = None,
    module: Optional[Callable[[], torch.nn.Module]] = None,
) -> None:
    """Registers one operator case.

    `fn` is the function under test; alternatively pass `module`, a factory
    building an nn.Module (called after seeding, so its weights are
    deterministic), and `fn=None`.

    `inputs` is called after the RNG has been seeded for this case.
    `desc` is a short human description (the input signature is appended).
    """
    if any(s.name == name for s in _SPECS):
        raise ValueError(f"duplicate op case {name}")

    def build() -> Built:
        ins = tuple(inputs())
        full_desc = f"{desc} | inputs: {_sig(ins)}"
        mod = module() if module is not None else FnModule(fn)
        return Built(
            methods={"forward": (mod, ins, None)},
            cases=[CaseIO(name, "forward", ins, full_desc)],
        )

    _CASE_ARGS[name] = dict(fn=fn, inputs=inputs, op=op, desc=desc, tol=tol, preserve=preserve,
                            remove_view_copy=remove_view_copy, module=module)
    rtol, atol, reason = tol
    _SPECS.append(
        Spec(
            group="ops",
            name=name,
            build=build,
            description=desc,
            op=op,
            rtol=rtol,
            atol=atol,
            tolerance_reason=reason,
            preserve_ops=tuple(preserve),
            remove_view_copy=remove_view_copy,
            extra=dict(extra or {}),
        )
    )


# ---------------------------------------------------------------------------
# Binary arithmetic: add / sub / mul
# ---------------------------------------------------------------------------

def _binary_arith() -> None:
    ops = {
        "add": (torch.add, "aten::add.out", "+"),
        "sub": (torch.sub, "aten::sub.out", "-"),
        "mul": (torch.mul, "aten::mul.out", "*"),
    }
    for base, (f, op, sym) in ops.items():
        d = f"x {sym} y ({op})"
        case(f"{base}_f32", f, lambda: (rn(2, 3, 4), rn(2, 3, 4)), op, f"{d}, same shape")
        case(f"{base}_f32_broadcast", f, lambda: (rn(2, 3, 4), rn(3, 1)), op, f"{d}, broadcast [2,3,4] with [3,1]")
        case(f"{base}_f32_broadcast_rank", f, lambda: (rn(4), rn(2, 3, 4)), op, f"{d}, broadcast [4] with [2,3,4]")
        case(f"{base}_f32_broadcast_both", f, lambda: (rn(2, 1, 4), rn(3, 1)), op, f"{d}, both sides broadcast")
        case(f"{base}_f32_0d", f, lambda: (rn(2, 3), scalar0(1.75)), op, f"{d}, tensor with 0-d tensor")
        case(f"{base}_f32_0d_0d", f, lambda: (scalar0(-0.5), scalar0(1.25)), op, f"{d}, two 0-d tensors")
        case(f"{base}_f64", f, lambda: (rn(2, 3, 4, dt=F64), rn(2, 3, 4, dt=F64)), op, f"{d}, float64")
        case(f"{base}_i32", f, lambda: (ri(-100, 100, 2, 3, 4, dt=I32), ri(-100, 100, 2, 3, 4, dt=I32)), op, f"{d}, int32")
        case(f"{base}_i64", f, lambda: (ri(-1000, 1000, 2, 3, 4), ri(-1000, 1000, 3, 1)), op, f"{d}, int64 with broadcast")
        case(f"{base}_i64_f32_promote", f, lambda: (ri(-10, 10, 2, 3), rn(2, 3)), op, f"{d}, int64 with float32 -> float32")
        case(f"{base}_i32_i64_promote", f, lambda: (ri(-50, 50, 2, 3, dt=I32), ri(-50, 50, 2, 3)), op, f"{d}, int32 with int64 -> int64")
        case(f"{base}_f32_f64_promote", f, lambda: (rn(2, 3), rn(2, 3, dt=F64)), op, f"{d}, float32 with float64 -> float64")
        case(f"{base}_i64_0d_f32_promote", f, lambda: (ri(-10, 10, 2, 3), scalar0(0.25)), op,
             f"{d}, int64 tensor with 0-d float32 tensor -> float32 (0-d participates in promotion category)")
        case(f"{base}_f32_0d_f64", f, lambda: (rn(2, 3), scalar0(0.3, F64)), op,
             f"{d}, float32 tensor with 0-d float64 tensor -> float32 (0-d does not upcast same category)")
        if base != "sub":
            case(f"{base}_bool", f, lambda: (rb(2, 3), rb(2, 3)), op, f"{d}, bool with bool -> bool")
            case(f"{base}_bool_i32_promote", f, lambda: (rb(2, 3), ri(-5, 5, 2, 3, dt=I32)), op, f"{d}, bool with int32 -> int32")
        # tensor-scalar (python number) forms
        case(f"{base}_f32_scalar", lambda a, f=f: f(a, 2.5), lambda: (rn(2, 3, 4),), op, f"x {sym} 2.5 (python float)")
        case(f"{base}_i64_scalar_int", lambda a, f=f: f(a, 3), lambda: (ri(-100, 100, 2, 3),), op, f"x {sym} 3 (python int), int64 stays int64")
        case(f"{base}_i32_scalar_int", lambda a, f=f: f(a, 3), lambda: (ri(-100, 100, 2, 3, dt=I32),), op, f"x {sym} 3 (python int), int32 stays int32")
        case(f"{base}_i64_scalar_float", lambda a, f=f: f(a, 0.5), lambda: (ri(-100, 100, 2, 3),), op, f"x {sym} 0.5 (python float), int64 -> float32")
    case("add_f32_alpha", lambda a, b: torch.add(a, b, alpha=2.5), lambda: (rn(2, 3), rn(2, 3)), "aten::add.out", "x + 2.5*y (alpha)")
    case("add_i64_alpha", lambda a, b: torch.add(a, b, alpha=3), lambda: (ri(-20, 20, 2, 3), ri(-20, 20, 2, 3)), "aten::add.out", "x + 3*y (alpha), int64")
    case("sub_f32_alpha", lambda a, b: torch.sub(a, b, alpha=0.5), lambda: (rn(2, 3), rn(2, 3)), "aten::sub.out", "x - 0.5*y (alpha)")
    case("rsub_f32_scalar", lambda a: 1.5 - a, lambda: (rn(2, 3),), "aten::sub.out", "1.5 - x (python scalar on the left)")


# ---------------------------------------------------------------------------
# Division
# ---------------------------------------------------------------------------

def _division() -> None:
    op = "aten::div.out"
    case("div_f32", torch.div, lambda: (rn(2, 3, 4), nz(2, 3, 4)), op, "x / y")
    case("div_f32_broadcast", torch.div, lambda: (rn(2, 3, 4), nz(3, 1)), op, "x / y, broadcast [2,3,4] with [3,1]")
    case("div_f32_broadcast_rank", torch.div, lambda: (rn(4), nz(2, 3, 4)), op, "x / y, broadcast [4] with [2,3,4]")
    case("div_f32_0d", torch.div, lambda: (rn(2, 3), scalar0(-1.5)), op, "x / y, 0-d divisor")
    case("div_f64", torch.div, lambda: (rn(2, 3, 4, dt=F64), nz(2, 3, 4, dt=F64)), op, "x / y, float64")
    case("div_i64", torch.div, lambda: (ri(-100, 100, 2, 3), ri_nz(-9, 10, 2, 3)), op, "x / y true division, int64 -> float32")
    case("div_i32", torch.div, lambda: (ri(-100, 100, 2, 3, dt=I32), ri_nz(-9, 10, 2, 3, dt=I32)), op, "x / y true division, int32 -> float32")
    case("div_i64_f32_promote", torch.div, lambda: (ri(-100, 100, 2, 3), nz(2, 3)), op, "x / y, int64 / float32")
    case("div_f32_f64_promote", torch.div, lambda: (rn(2, 3), nz(2, 3, dt=F64)), op, "x / y, float32 / float64 -> float64")
    case("div_f32_scalar", lambda a: a / 4.0, lambda: (rn(2, 3, 4),), op, "x / 4.0 (python float)")
    case("div_i64_scalar", lambda a: a / 3, lambda: (ri(-100, 100, 2, 3),), op, "x / 3 (python int), int64 -> float32")
    mop = "aten::div.out_mode"
    for mode in ("trunc", "floor"):
        f = lambda a, b, m=mode: torch.div(a, b, rounding_mode=m)
        d = f"torch.div(x, y, rounding_mode='{mode}')"
        case(f"div_{mode}_f32", f, lambda: (rn(2, 3, 4, scale=5.0), nz(2, 3, 4)), mop, d)
        case(f"div_{mode}_f32_broadcast", f, lambda: (rn(2, 3, 4, scale=5.0), nz(4)), mop, d + ", broadcast")
        case(f"div_{mode}_f64", f, lambda: (rn(2, 3, 4, scale=5.0, dt=F64), nz(2, 3, 4, dt=F64)), mop, d + ", float64")
        case(f"div_{mode}_i64", f, lambda: (ri(-50, 50, 3, 4), ri_nz(-7, 8, 3, 4)), mop, d + ", int64 (negative operands)")
        case(f"div_{mode}_i32", f, lambda: (ri(-50, 50, 3, 4, dt=I32), ri_nz(-7, 8, 3, 4, dt=I32)), mop, d + ", int32 (negative operands)")
        case(f"div_{mode}_i64_f32_promote", f, lambda: (ri(-50, 50, 3, 4), nz(3, 4)), mop, d + ", int64 with float32")
    case("floor_divide_i64", torch.floor_divide, lambda: (ri(-50, 50, 3, 4), ri_nz(-7, 8, 3, 4)), mop,
         "torch.floor_divide(x, y), int64 (exports as div.out_mode floor)")


# ---------------------------------------------------------------------------
# pow
# ---------------------------------------------------------------------------

def _pow() -> None:
    tt = "aten::pow.Tensor_Tensor_out"
    ts = "aten::pow.Tensor_Scalar_out"
    case("pow_tt_f32", torch.pow, lambda: (uni(2, 3, 4), rn(2, 3, 4)), tt, "x ** y, positive base", TOL_TRANSC)
    case("pow_tt_f32_broadcast", torch.pow, lambda: (uni(2, 3, 4), rn(4)), tt, "x ** y, positive base, broadcast exponent", TOL_TRANSC)
    case("pow_tt_f64", torch.pow, lambda: (uni(2, 3, 4, dt=F64), rn(2, 3, 4, dt=F64)), tt, "x ** y, float64", TOL_TRANSC)
    case("pow_tt_i64", torch.pow, lambda: (ri(-4, 5, 2, 3), ri(0, 4, 2, 3)), tt, "x ** y, int64 with non-negative exponents")
    case("pow_tt_f32_i64_promote", torch.pow, lambda: (uni(2, 3), ri(0, 4, 2, 3)), tt, "x ** y, float32 base, int64 exponent", TOL_TRANSC)
    case("pow_ts_f32", lambda a: a ** 2.5, lambda: (uni(2, 3, 4),), ts, "x ** 2.5, positive base", TOL_TRANSC)
    case("pow_ts_f32_square", lambda a: a ** 2, lambda: (rn(2, 3, 4),), ts, "x ** 2 (python int exponent), negative bases allowed", TOL_TRANSC)
    case("pow_ts_f32_neg", lambda a: a ** -0.5, lambda: (uni(2, 3, 4),), ts, "x ** -0.5", TOL_TRANSC)
    case("pow_ts_f64", lambda a: a ** 1.5, lambda: (uni(2, 3, 4, dt=F64),), ts, "x ** 1.5, float64", TOL_TRANSC)
    case("pow_ts_i64", lambda a: a ** 3, lambda: (ri(-6, 7, 2, 3),), ts, "x ** 3, int64 stays int64")
    case("pow_ts_i64_float_exp", lambda a: a ** 0.5, lambda: (ri(0, 20, 2, 3),), ts, "x ** 0.5, int64 -> float32", TOL_TRANSC)
    case("pow_scalar_f32", lambda a: 2.0 ** a, lambda: (rn(2, 3, 4),), "aten::pow.Scalar_out", "2.0 ** x (scalar base)", TOL_TRANSC)


# ---------------------------------------------------------------------------
# Unary elementwise
# ---------------------------------------------------------------------------

def _unary() -> None:
    def u(name: str, fn, op: str, desc: str, gen=rn, tol=TOL_EW, ints: Sequence[torch.dtype] = (),
          int_gen=None, preserve: Sequence[Any] = (), f64: bool = True, shape=(2, 3, 4)) -> None:
        case(f"{name}_f32", fn, lambda: (gen(*shape),), op, desc, tol, preserve)
        if f64:
            case(f"{name}_f64", fn, lambda: (gen(*shape, dt=F64),), op, desc + ", float64", tol, preserve)
        for dt in ints:
            sfx = {I32: "i32", I64: "i64", BOOL: "bool"}[dt]
            g = int_gen or (lambda *s, dt=dt: ri(-20, 20, *s, dt=dt))
            it = tol
            case(f"{name}_{sfx}", fn, lambda g=g, dt=dt: (g(*shape, dt=dt),), op, desc + f", {DT_NAME[dt]} input", it, preserve)

    u("neg", torch.neg, "aten::neg.out", "-x", ints=(I32, I64))
    u("abs", torch.abs, "aten::abs.out", "abs(x)", ints=(I32, I64))
    u("sqrt", torch.sqrt, "aten::sqrt.out", "sqrt(x), positive inputs", gen=uni, ints=(I64, I32),
      int_gen=lambda *s, dt: ri(0, 50, *s, dt=dt))
    u("rsqrt", torch.rsqrt, "aten::rsqrt.out", "rsqrt(x), positive inputs", gen=uni, ints=(I64,),
      int_gen=lambda *s, dt: ri(1, 50, *s, dt=dt))
    u("exp", torch.exp, "aten::exp.out", "exp(x)", tol=TOL_TRANSC, ints=(I64,),
      int_gen=lambda *s, dt: ri(-5, 5, *s, dt=dt))
    u("log", torch.log, "aten::log.out", "log(x), positive inputs", gen=lambda *s, dt=F32: uni(*s, lo=0.05, hi=5.0, dt=dt),
      tol=TOL_TRANSC, ints=(I64,), int_gen=lambda *s, dt: ri(1, 50, *s, dt=dt))
    u("sin", torch.sin, "aten::sin.out", "sin(x)", tol=TOL_TRANSC, ints=(I32,))
    u("cos", torch.cos, "aten::cos.out", "cos(x)", tol=TOL_TRANSC, ints=(I32,))
    u("tanh", torch.tanh, "aten::tanh.out", "tanh(x)", tol=TOL_TRANSC, ints=(I64,),
      int_gen=lambda *s, dt: ri(-3, 4, *s, dt=dt))
    u("sigmoid", torch.sigmoid, "aten::sigmoid.out", "sigmoid(x)", tol=TOL_TRANSC, ints=(I64,),
      int_gen=lambda *s, dt: ri(-5, 6, *s, dt=dt))
    u("relu", torch.relu, "aten::relu.out", "relu(x)", ints=(I32, I64))
    u("gelu", F.gelu, "aten::gelu.out", "gelu(x, approximate='none') (erf form)", tol=TOL_TRANSC,
      gen=lambda *s, dt=F32: rn(*s, scale=2.0, dt=dt))
    u("gelu_tanh", lambda a: F.gelu(a, approximate="tanh"), "aten::gelu.out", "gelu(x, approximate='tanh')",
      tol=TOL_TRANSC, gen=lambda *s, dt=F32: rn(*s, scale=2.0, dt=dt))
    u("hardtanh", lambda a: F.hardtanh(a, -0.5, 0.75), "aten::hardtanh.out", "hardtanh(x, -0.5, 0.75)")
    u("relu6", F.relu6, "aten::hardtanh.out", "relu6(x) (exports as hardtanh(0, 6))",
      gen=lambda *s, dt=F32: rn(*s, scale=4.0, dt=dt), f64=False)
    case("hardtanh_i64", lambda a: F.hardtanh(a, -3, 4), lambda: (ri(-10, 10, 2, 3, 4),), "aten::hardtanh.out",
         "hardtanh(x, -3, 4), int64")
    u("clamp", lambda a: torch.clamp(a, -0.5, 0.5), "aten::clamp.out", "clamp(x, -0.5, 0.5)", ints=(I64, I32))
    u("clamp_min", lambda a: torch.clamp(a, min=0.25), "aten::clamp.out", "clamp(x, min=0.25)", f64=False)
    u("clamp_max", lambda a: torch.clamp(a, max=-0.25), "aten::clamp.out", "clamp(x, max=-0.25)", f64=False)
    case("clamp_i64_float_bounds", lambda a: torch.clamp(a, -2.5, 3.5), lambda: (ri(-10, 10, 2, 3),), "aten::clamp.out",
         "clamp(int64 x, -2.5, 3.5) -> float32 (float bounds promote)")
    case("clamp_tensor_f32", lambda a, lo, hi: torch.clamp(a, lo, hi), lambda: (rn(2, 3, 4), -uni(4), uni(3, 1)),
         "aten::clamp.Tensor_out", "clamp(x, min_tensor, max_tensor) with broadcasting")
    case("clamp_tensor_min_only_f32", lambda a, lo: torch.clamp(a, min=lo), lambda: (rn(2, 3, 4), rn(4)),
         "aten::clamp.Tensor_out", "clamp(x, min=tensor)")
    u("leaky_relu", lambda a: F.leaky_relu(a, 0.1), "aten::leaky_relu.out", "leaky_relu(x, 0.1)")
    u("leaky_relu_default", F.leaky_relu, "aten::leaky_relu.out", "leaky_relu(x) (slope 0.01)", f64=False)
    # hardswish / silu are decomposed by the default export; preserve them to get the real op.
    u("hardswish", F.hardswish, "aten::hardswish.out",
      "hardswish(x), exported with preserve_ops so aten::hardswish survives (not in ExecuTorch's portable kernel lib)",
      gen=lambda *s, dt=F32: rn(*s, scale=3.0, dt=dt), preserve=(aten.hardswish.default,))
    u("silu", F.silu, "aten::silu.out",
      "silu(x), exported with preserve_ops so aten::silu survives (not in ExecuTorch's portable kernel lib)",
      tol=TOL_TRANSC, gen=lambda *s, dt=F32: rn(*s, scale=3.0, dt=dt), preserve=(aten.silu.default,))
    case("hardswish_decomposed_f32", F.hardswish, lambda: (rn(2, 3, 4, scale=3.0),), "aten::clamp.out",
         "hardswish(x) with the default export: decomposes to add/clamp/mul/div")
    case("silu_decomposed_f32", F.silu, lambda: (rn(2, 3, 4, scale=3.0),), "aten::sigmoid.out",
         "silu(x) with the default export: decomposes to sigmoid * x", TOL_TRANSC)
    case("hardsigmoid_decomposed_f32", F.hardsigmoid, lambda: (rn(2, 3, 4, scale=3.0),), "aten::clamp.out",
         "hardsigmoid(x) with the default export: decomposes to add/clamp/div")
    # extras
    u("floor", torch.floor, "aten::floor.out", "floor(x), no values near integers", gen=no_half)
    u("ceil", torch.ceil, "aten::ceil.out", "ceil(x), no values near integers", gen=no_half)
    u("round", torch.round, "aten::round.out", "round(x), no values near .5", gen=no_half)
    u("trunc", torch.trunc, "aten::trunc.out", "trunc(x)", gen=no_half)
    u("sign", torch.sign, "aten::sign.out", "sign(x)", ints=(I64,))
    u("reciprocal", torch.reciprocal, "aten::reciprocal.out", "1/x, no zeros", gen=nz)
    u("erf", torch.erf, "aten::erf.out", "erf(x)", tol=TOL_TRANSC)
    u("log1p", torch.log1p, "aten::log1p.out", "log1p(x), x > -1", gen=lambda *s, dt=F32: uni(*s, lo=-0.5, hi=3.0, dt=dt), tol=TOL_TRANSC)
    u("expm1", torch.expm1, "aten::expm1.out", "expm1(x)", tol=TOL_TRANSC)
    u("log2", torch.log2, "aten::log2.out", "log2(x), positive inputs", gen=uni, tol=TOL_TRANSC, f64=False)
    u("log10", torch.log10, "aten::log10.out", "log10(x), positive inputs", gen=uni, tol=TOL_TRANSC, f64=False)
    u("tan", torch.tan, "aten::tan.out", "tan(x), |x| < 1.2", gen=lambda *s, dt=F32: uni(*s, lo=-1.2, hi=1.2, dt=dt), tol=TOL_TRANSC, f64=False)
    u("atan", torch.atan, "aten::atan.out", "atan(x)", tol=TOL_TRANSC, f64=False)
    u("asin", torch.asin, "aten::asin.out", "asin(x), |x| < 0.95", gen=lambda *s, dt=F32: uni(*s, lo=-0.95, hi=0.95, dt=dt), tol=TOL_TRANSC, f64=False)
    u("acos", torch.acos, "aten::acos.out", "acos(x), |x| < 0.95", gen=lambda *s, dt=F32: uni(*s, lo=-0.95, hi=0.95, dt=dt), tol=TOL_TRANSC, f64=False)
    u("sinh", torch.sinh, "aten::sinh.out", "sinh(x)", tol=TOL_TRANSC, f64=False)
    u("cosh", torch.cosh, "aten::cosh.out", "cosh(x)", tol=TOL_TRANSC, f64=False)
    u("elu", F.elu, "aten::elu.out", "elu(x)", tol=TOL_TRANSC)
    case("softplus_decomposed_f32", F.softplus, lambda: (rn(2, 3, 4, scale=3.0),), "aten::log1p.out",
         "softplus(x) with the default export: decomposes to exp/log1p/gt/where", TOL_TRANSC)
    case("mish_decomposed_f32", F.mish, lambda: (rn(2, 3, 4, scale=3.0),), "aten::tanh.out",
         "mish(x) with the default export: decomposes to exp/log1p/tanh/mul/where", TOL_TRANSC)
    case("isnan_f32", torch.isnan, lambda: (torch.tensor([1.0, float("nan"), -2.0, float("inf"), float("nan"), 0.0]),),
         "aten::isnan.out", "isnan(x) with NaN and inf values")
    case("isinf_f32", torch.isinf, lambda: (torch.tensor([1.0, float("nan"), -float("inf"), float("inf"), 3.0, 0.0]),),
         "aten::isinf.out", "isinf(x) with NaN and inf values")
    case("bitwise_not_i64", torch.bitwise_not, lambda: (ri(-100, 100, 2, 3),), "aten::bitwise_not.out", "~x, int64")
    case("bitwise_not_bool", torch.bitwise_not, lambda: (rb(2, 3),), "aten::bitwise_not.out", "~x, bool")


# ---------------------------------------------------------------------------
# Other binary ops (extras)
# ---------------------------------------------------------------------------

def _binary_extra() -> None:
    for name, f, op in (("maximum", torch.maximum, "aten::maximum.out"), ("minimum", torch.minimum, "aten::minimum.out")):
        case(f"{name}_f32", f, lambda: (rn(2, 3, 4), rn(2, 3, 4)), op, f"{name}(x, y)")
        case(f"{name}_f32_broadcast", f, lambda: (rn(2, 3, 4), rn(3, 1)), op, f"{name}(x, y), broadcast")
        case(f"{name}_i64", f, lambda: (ri(-50, 50, 2, 3), ri(-50, 50, 2, 3)), op, f"{name}(x, y), int64")
        case(f"{name}_i32_f32_promote", f, lambda: (ri(-5, 5, 2, 3, dt=I32), rn(2, 3, scale=3.0)), op, f"{name}(x, y), int32 with float32")
    for name, f, op in (("remainder", torch.remainder, "aten::remainder.Tensor_out"), ("fmod", torch.fmod, "aten::fmod.Tensor_out")):
        case(f"{name}_f32", f, lambda: (no_half(2, 3, 4, scale=5.0), nz(2, 3, 4, lo=0.7, hi=2.2)), op, f"{name}(x, y), signed operands")
        case(f"{name}_i64", f, lambda: (ri(-50, 50, 3, 4), ri_nz(-7, 8, 3, 4)), op, f"{name}(x, y), int64, signed operands")
        sop = op.replace("Tensor_out", "Scalar_out")
        case(f"{name}_f32_scalar", lambda a, f=f: f(a, 1.5), lambda: (no_half(2, 3, 4, scale=5.0),), sop, f"{name}(x, 1.5)")
        case(f"{name}_i64_scalar", lambda a, f=f: f(a, 3), lambda: (ri(-50, 50, 3, 4),), sop, f"{name}(x, 3), int64")
    for name, f, op in (("bitwise_and", torch.bitwise_and, "aten::bitwise_and.Tensor_out"),
                        ("bitwise_or", torch.bitwise_or, "aten::bitwise_or.Tensor_out"),
                        ("bitwise_xor", torch.bitwise_xor, "aten::bitwise_xor.Tensor_out")):
        case(f"{name}_i64", f, lambda: (ri(-100, 100, 2, 3), ri(-100, 100, 2, 3)), op, f"{name}(x, y), int64")
        case(f"{name}_i32_broadcast", f, lambda: (ri(0, 100, 2, 3, dt=I32), ri(0, 100, 3, dt=I32)), op, f"{name}(x, y), int32 broadcast")
        case(f"{name}_bool", f, lambda: (rb(2, 3), rb(2, 3)), op, f"{name}(x, y), bool")
    case("atan2_f32", torch.atan2, lambda: (nz(2, 3, 4), nz(2, 3, 4)), "aten::atan2.out", "atan2(y, x)", TOL_TRANSC)


# ---------------------------------------------------------------------------
# Comparison / logic
# ---------------------------------------------------------------------------

def _comparison() -> None:
    cmps = {"eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le, "gt": torch.gt, "ge": torch.ge}
    for n, f in cmps.items():
        top = f"aten::{n}.Tensor_out"
        sop = f"aten::{n}.Scalar_out"
        d = f"{n}(x, y)"
        case(f"{n}_f32", f, lambda: (small_ints_f(2, 3, 4), small_ints_f(2, 3, 4)), top, d + ", float32 with ties")
        case(f"{n}_f32_broadcast", f, lambda: (small_ints_f(2, 3, 4), small_ints_f(3, 1)), top, d + ", broadcast [2,3,4] with [3,1]")
        case(f"{n}_f32_broadcast_rank", f, lambda: (small_ints_f(4), small_ints_f(2, 3, 4)), top, d + ", broadcast [4] with [2,3,4]")
        case(f"{n}_f64", f, lambda: (small_ints_f(2, 3, 4, dt=F64), small_ints_f(2, 3, 4, dt=F64)), top, d + ", float64")
        case(f"{n}_i32", f, lambda: (ri(-2, 3, 2, 3, 4, dt=I32), ri(-2, 3, 2, 3, 4, dt=I32)), top, d + ", int32")
        case(f"{n}_i64", f, lambda: (ri(-2, 3, 2, 3, 4), ri(-2, 3, 2, 3, 4)), top, d + ", int64")
        case(f"{n}_bool", f, lambda: (rb(2, 3), rb(2, 3)), top, d + ", bool")
        case(f"{n}_i64_f32_promote", f, lambda: (ri(-2, 3, 2, 3), small_ints_f(2, 3) + 0.5 * (torch.rand(2, 3) < 0.3)), top,
             d + ", int64 with float32")
        case(f"{n}_f32_0d", f, lambda: (small_ints_f(2, 3), scalar0(1.0)), top, d + ", 0-d tensor on the right")
        case(f"{n}_scalar_f32", lambda a, f=f: f(a, 1.0), lambda: (small_ints_f(2, 3, 4),), sop, f"{n}(x, 1.0) python scalar")
        case(f"{n}_scalar_f32_frac", lambda a, f=f: f(a, 0.25), lambda: (rn(2, 3, 4),), sop, f"{n}(x, 0.25) python scalar")
        case(f"{n}_scalar_i64", lambda a, f=f: f(a, 1), lambda: (ri(-2, 3, 2, 3, 4),), sop, f"{n}(x, 1) int64 with python int")
        case(f"{n}_scalar_i32_float", lambda a, f=f: f(a, 0.5), lambda: (ri(-2, 3, 2, 3, 4, dt=I32),), sop,
             f"{n}(x, 0.5) int32 with python float")
    case("eq_scalar_bool", lambda a: a == True, lambda: (rb(2, 3),), "aten::eq.Scalar_out", "eq(x, True), bool")  # noqa: E712
    for n, f in (("logical_and", torch.logical_and), ("logical_or", torch.logical_or), ("logical_xor", torch.logical_xor)):
        op = f"aten::{n}.out"
        case(f"{n}_bool", f, lambda: (rb(2, 3, 4), rb(2, 3, 4)), op, f"{n}(x, y), bool")
        case(f"{n}_bool_broadcast", f, lambda: (rb(2, 3, 4), rb(3, 1)), op, f"{n}(x, y), bool broadcast")
        case(f"{n}_f32", f, lambda: (small_ints_f(2, 3, lo=-1, hi=2), small_ints_f(2, 3, lo=-1, hi=2)), op, f"{n}(x, y), float32 -> bool")
        case(f"{n}_i64_bool", f, lambda: (ri(-1, 2, 2, 3), rb(2, 3)), op, f"{n}(x, y), int64 with bool")
    case("logical_not_bool", torch.logical_not, lambda: (rb(2, 3, 4),), "aten::logical_not.out", "logical_not(x), bool")
    case("logical_not_f32", torch.logical_not, lambda: (small_ints_f(2, 3, lo=-1, hi=2),), "aten::logical_not.out", "logical_not(x), float32 -> bool")
    case("logical_not_i64", torch.logical_not, lambda: (ri(-1, 2, 2, 3),), "aten::logical_not.out", "logical_not(x), int64 -> bool")
    w = "aten::where.self_out"
    case("where_f32", torch.where, lambda: (rb(2, 3, 4), rn(2, 3, 4), rn(2, 3, 4)), w, "where(c, x, y)")
    case("where_f32_broadcast", torch.where, lambda: (rb(3, 1), rn(2, 3, 4), rn(4)), w, "where(c, x, y) all broadcast")
    case("where_i64", torch.where, lambda: (rb(2, 3), ri(-9, 9, 2, 3), ri(-9, 9, 2, 3)), w, "where(c, x, y), int64")
    case("where_bool", torch.where, lambda: (rb(2, 3), rb(2, 3), rb(2, 3)), w, "where(c, x, y), bool values")
    case("where_f32_f64_promote", torch.where, lambda: (rb(2, 3), rn(2, 3), rn(2, 3, dt=F64)), w, "where(c, x, y), float32/float64 -> float64")
    case("where_i64_f32_promote", torch.where, lambda: (rb(2, 3), ri(-9, 9, 2, 3), rn(2, 3)), w, "where(c, x, y), int64/float32 -> float32")
    case("where_scalar_other", lambda c, a: torch.where(c, a, 0.5), lambda: (rb(2, 3), rn(2, 3)), w, "where(c, x, 0.5) python scalar")
    case("where_from_compare", lambda a, b: torch.where(a > b, a, b), lambda: (rn(2, 3, 4), rn(2, 3, 4)), w, "where(x > y, x, y)")
    case("masked_fill_f32", lambda a, m: a.masked_fill(m, -1.5), lambda: (rn(2, 3, 4), rb(3, 4)), "aten::masked_fill.Scalar_out",
         "x.masked_fill(mask, -1.5), preserved op", preserve=(aten.masked_fill.Scalar,))
    case("masked_fill_decomposed_f32", lambda a, m: a.masked_fill(m, -1.5), lambda: (rn(2, 3, 4), rb(3, 4)), w,
         "x.masked_fill(mask, -1.5) with the default export (decomposes to where)")


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------

def _reductions() -> None:
    s = "aten::sum.IntList_out"
    T = TOL_DEFAULT
    case("sum_dim_f32", lambda a: torch.sum(a, 1), lambda: (rn(2, 3, 4),), s, "sum(x, dim=1)", T)
    case("sum_dim_keepdim_f32", lambda a: torch.sum(a, 1, keepdim=True), lambda: (rn(2, 3, 4),), s, "sum(x, dim=1, keepdim=True)", T)
    case("sum_dims_f32", lambda a: torch.sum(a, (0, 2)), lambda: (rn(2, 3, 4),), s, "sum(x, dim=(0,2))", T)
    case("sum_dims_keepdim_f32", lambda a: torch.sum(a, (0, 2), keepdim=True), lambda: (rn(2, 3, 4),), s, "sum(x, dim=(0,2), keepdim=True)", T)
    case("sum_lastdim_f32", lambda a: torch.sum(a, -1), lambda: (rn(3, 5, 7),), s, "sum(x, dim=-1)", T)
    case("sum_all_f32", lambda a: torch.sum(a), lambda: (rn(3, 4, 5),), s, "sum(x) over all elements -> 0-d", T)
    case("sum_dim_f64", lambda a: torch.sum(a, 2), lambda: (rn(2, 3, 4, dt=F64),), s, "sum(x, dim=2), float64", T)
    case("sum_dim_keepdim_f64", lambda a: torch.sum(a, 0, keepdim=True), lambda: (rn(2, 3, 4, dt=F64),), s, "sum(x, dim=0, keepdim=True), float64", T)
    case("sum_dim_i64", lambda a: torch.sum(a, 1), lambda: (ri(-100, 100, 2, 3, 4),), s, "sum(x, dim=1), int64")
    case("sum_dim_keepdim_i64", lambda a: torch.sum(a, -1, keepdim=True), lambda: (ri(-100, 100, 2, 3, 4),), s, "sum(x, dim=-1, keepdim=True), int64")
    case("sum_dim_i32", lambda a: torch.sum(a, 0), lambda: (ri(-100, 100, 2, 3, 4, dt=I32),), s, "sum(x, dim=0), int32 -> int64")
    case("sum_dim_bool", lambda a: torch.sum(a, 1), lambda: (rb(2, 5, 4),), s, "sum(x, dim=1), bool -> int64")
    case("sum_dim_dtype_f64", lambda a: torch.sum(a, 1, dtype=F64), lambda: (rn(2, 3, 4),), s, "sum(x, dim=1, dtype=float64)", T)
    m = "aten::mean.out"
    case("mean_dim_f32", lambda a: torch.mean(a, 1), lambda: (rn(2, 3, 4),), m, "mean(x, dim=1)", T)
    case("mean_dim_keepdim_f32", lambda a: torch.mean(a, -1, keepdim=True), lambda: (rn(2, 3, 4),), m, "mean(x, dim=-1, keepdim=True)", T)
    case("mean_dims_f32", lambda a: torch.mean(a, (2, 3)), lambda: (rn(1, 3, 5, 5),), m, "mean(x, dim=(2,3)) (spatial mean)", T)
    case("mean_dim_f64", lambda a: torch.mean(a, 0), lambda: (rn(2, 3, 4, dt=F64),), m, "mean(x, dim=0), float64", T)
    case("mean_all_f32", lambda a: torch.mean(a), lambda: (rn(3, 4, 5),), "aten::mean.dtype_out", "mean(x) over all elements", T)
    for n in ("amax", "amin"):
        f = getattr(torch, n)
        op = f"aten::{n}.out"
        case(f"{n}_dim_f32", lambda a, f=f: f(a, 1), lambda: (rn(2, 3, 4),), op, f"{n}(x, dim=1)")
        case(f"{n}_dim_keepdim_f32", lambda a, f=f: f(a, -1, keepdim=True), lambda: (rn(2, 3, 4),), op, f"{n}(x, dim=-1, keepdim=True)")
        case(f"{n}_dims_f32", lambda a, f=f: f(a, (0, 2)), lambda: (rn(2, 3, 4),), op, f"{n}(x, dim=(0,2))")
        case(f"{n}_dim_f64", lambda a, f=f: f(a, 0), lambda: (rn(2, 3, 4, dt=F64),), op, f"{n}(x, dim=0), float64")
        case(f"{n}_dim_i64", lambda a, f=f: f(a, 1), lambda: (ri(-100, 100, 2, 3, 4),), op, f"{n}(x, dim=1), int64")
        case(f"{n}_dim_i32", lambda a, f=f: f(a, 2), lambda: (ri(-100, 100, 2, 3, 4, dt=I32),), op, f"{n}(x, dim=2), int32")
        case(f"{n}_dim_bool", lambda a, f=f: f(a, 1), lambda: (rb(2, 3, 4),), op, f"{n}(x, dim=1), bool")
    for n in ("argmax", "argmin"):
        f = getattr(torch, n)
        op = f"aten::{n}.out"
        case(f"{n}_dim_f32", lambda a, f=f: f(a, 1), lambda: (distinct(2, 3, 4),), op, f"{n}(x, dim=1), distinct values")
        case(f"{n}_dim_keepdim_f32", lambda a, f=f: f(a, -1, keepdim=True), lambda: (distinct(2, 3, 4),), op, f"{n}(x, dim=-1, keepdim=True)")
        case(f"{n}_all_f32", lambda a, f=f: f(a), lambda: (distinct(3, 4),), op, f"{n}(x) over the flattened tensor -> 0-d int64")
        case(f"{n}_dim_f64", lambda a, f=f: f(a, 0), lambda: (distinct(2, 3, 4, dt=F64),), op, f"{n}(x, dim=0), float64")
        case(f"{n}_dim_i64", lambda a, f=f: f(a, 2), lambda: (distinct(2, 3, 4).to(I64) * 3,), op, f"{n}(x, dim=2), int64")
    case("any_dim_bool", lambda a: torch.any(a, 1), lambda: (rb(2, 3, 4, p=0.2),), "aten::any.out", "any(x, dim=1), bool")
    case("any_dim_keepdim_bool", lambda a: torch.any(a, -1, keepdim=True), lambda: (rb(2, 3, 4, p=0.2),), "aten::any.out", "any(x, dim=-1, keepdim=True)")
    case("any_dim_f32", lambda a: torch.any(a, 0), lambda: (small_ints_f(2, 3, 4, lo=0, hi=2) * (torch.rand(2, 3, 4) < 0.3),),
         "aten::any.out", "any(x, dim=0), float32 input (non-zero test)")
    case("any_dim_i64", lambda a: torch.any(a, 2), lambda: (ri(0, 2, 2, 3, 4) * (torch.rand(2, 3, 4) < 0.3),), "aten::any.out", "any(x, dim=2), int64 input")
    case("any_dims_bool", lambda a: torch.any(a, dim=(0, 2)), lambda: (rb(2, 3, 4, p=0.1),), "aten::any.dims_out", "any(x, dim=(0,2))")
    case("any_all_bool", lambda a: torch.any(a), lambda: (rb(3, 4, p=0.1),), "aten::any.all_out", "any(x) over all elements")
    case("max_dim_f32", lambda a: tuple(torch.max(a, 1)), lambda: (distinct(2, 3, 4),), "aten::max.dim_max", "torch.max(x, dim=1) -> (values, indices)")
    case("min_dim_keepdim_f32", lambda a: tuple(torch.min(a, -1, keepdim=True)), lambda: (distinct(2, 3, 4),), "aten::min.dim_min",
         "torch.min(x, dim=-1, keepdim=True) -> (values, indices)")
    case("prod_dim_f32", lambda a: torch.prod(a, 1), lambda: (uni(2, 4, 3, lo=0.5, hi=1.5),), "aten::prod.int_out", "prod(x, dim=1)", T)
    case("prod_dim_i64", lambda a: torch.prod(a, 1), lambda: (ri_nz(-4, 5, 2, 4, 3),), "aten::prod.int_out", "prod(x, dim=1), int64")
    case("var_dim_f32", lambda a: torch.var(a, 1), lambda: (rn(2, 5, 4),), "aten::var.correction_out", "var(x, dim=1) (unbiased, correction=1)", T)
    case("var_dim_keepdim_f32", lambda a: torch.var(a, -1, keepdim=True, correction=0), lambda: (rn(2, 5, 4),),
         "aten::var.correction_out", "var(x, dim=-1, keepdim=True, correction=0)", T)
    case("std_dim_f32", lambda a: torch.std(a, 1), lambda: (rn(2, 5, 4),), "aten::var.correction_out", "std(x, dim=1) (var + sqrt)", T)
    case("cumsum_f32", lambda a: torch.cumsum(a, 1), lambda: (rn(2, 5, 4),), "aten::cumsum.out", "cumsum(x, dim=1)", T)
    case("cumsum_i64", lambda a: torch.cumsum(a, -1), lambda: (ri(-10, 10, 2, 6),), "aten::cumsum.out", "cumsum(x, dim=-1), int64")
    case("topk_f32", lambda a: tuple(torch.topk(a, 3)), lambda: (distinct(2, 3, 6),), "aten::topk.values", "topk(x, 3) -> (values, indices), distinct values")
    case("topk_smallest_dim_f32", lambda a: tuple(torch.topk(a, 2, dim=1, largest=False)), lambda: (distinct(2, 5, 3),), "aten::topk.values",
         "topk(x, 2, dim=1, largest=False)")


# ---------------------------------------------------------------------------
# Matrix
# ---------------------------------------------------------------------------

def _matrix() -> None:
    T = TOL_DEFAULT
    case("mm_f32", torch.mm, lambda: (rn(3, 8), rn(8, 5)), "aten::mm.out", "mm(a, b)", T)
    case("mm_f64", torch.mm, lambda: (rn(4, 6, dt=F64), rn(6, 3, dt=F64)), "aten::mm.out", "mm(a, b), float64", T)
    case("mm_vecshape_f32", torch.mm, lambda: (rn(1, 16), rn(16, 1)), "aten::mm.out", "mm(a, b) [1,16]x[16,1]", T)
    case("addmm_f32", torch.addmm, lambda: (rn(5), rn(3, 8), rn(8, 5)), "aten::addmm.out", "addmm(bias[5], a, b)", T)
    case("addmm_full_bias_f32", torch.addmm, lambda: (rn(3, 5), rn(3, 8), rn(8, 5)), "aten::addmm.out", "addmm(c[3,5], a, b)", T)
    case("addmm_alpha_beta_f32", lambda c, a, b: torch.addmm(c, a, b, beta=0.5, alpha=2.0), lambda: (rn(1, 5), rn(3, 8), rn(8, 5)),
         "aten::addmm.out", "addmm(c, a, b, beta=0.5, alpha=2.0)", T)
    case("addmm_f64", torch.addmm, lambda: (rn(5, dt=F64), rn(3, 8, dt=F64), rn(8, 5, dt=F64)), "aten::addmm.out", "addmm, float64", T)
    case("linear_f32", F.linear, lambda: (rn(4, 16), rn(8, 16), rn(8)), "aten::addmm.out", "F.linear(x, W, b) -> permute + addmm", T)
    case("linear_3d_f32", F.linear, lambda: (rn(2, 5, 16), rn(8, 16), rn(8)), "aten::addmm.out", "F.linear on [2,5,16] -> view + addmm", T)
    case("linear_nobias_f32", lambda x, w: F.linear(x, w), lambda: (rn(4, 16), rn(8, 16)), "aten::mm.out", "F.linear(x, W) without bias -> mm", T)
    case("bmm_f32", torch.bmm, lambda: (rn(2, 3, 8), rn(2, 8, 5)), "aten::bmm.out", "bmm(a, b)", T)
    case("bmm_f64", torch.bmm, lambda: (rn(3, 4, 6, dt=F64), rn(3, 6, 2, dt=F64)), "aten::bmm.out", "bmm(a, b), float64", T)
    case("matmul_broadcast_f32", torch.matmul, lambda: (rn(2, 3, 8), rn(8, 5)), "aten::mm.out", "matmul([2,3,8], [8,5])", T)
    case("matmul_batched_f32", torch.matmul, lambda: (rn(2, 2, 3, 8), rn(2, 2, 8, 4)), "aten::bmm.out", "matmul 4-D batched -> view + bmm", T)


# ---------------------------------------------------------------------------
# NN
# ---------------------------------------------------------------------------

class _ConstConv(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


class _PatchConv(torch.nn.Module):
    """Non-overlapping patches (kernel == stride, no padding) with constant weights: ViT's patch
    embedding, here on sizes that do not divide (the last rows and columns are dropped)."""

    def __init__(self, cin: int, cout: int, k: Tuple[int, int], bias: bool, dims: int = 2) -> None:
        super().__init__()
        conv = torch.nn.Conv2d if dims == 2 else torch.nn.Conv1d
        self.conv = conv(cin, cout, k if dims == 2 else k[1], stride=k if dims == 2 else k[1], bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def _nn() -> None:
    T = TOL_DEFAULT
    c = "aten::convolution.out"
    img = lambda c=3, h=8, w=8, dt=F32: rn(1, c, h, w, dt=dt)
    case("conv2d_f32", lambda x, w, b: F.conv2d(x, w, b), lambda: (img(), rn(4, 3, 3, 3), rn(4)), c, "conv2d 3->4, k3, no padding", T)
    case("conv2d_nobias_f32", lambda x, w: F.conv2d(x, w), lambda: (img(), rn(4, 3, 3, 3)), c, "conv2d without bias", T)
    case("conv2d_stride_pad_f32", lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1), lambda: (img(h=9, w=9), rn(6, 3, 3, 3), rn(6)), c,
         "conv2d stride 2, padding 1, odd input", T)
    case("conv2d_asym_f32", lambda x, w, b: F.conv2d(x, w, b, stride=(1, 2), padding=(2, 0)), lambda: (img(h=7, w=10), rn(4, 3, 3, 2), rn(4)), c,
         "conv2d with asymmetric kernel/stride/padding", T)
    case("conv2d_grouped_f32", lambda x, w, b: F.conv2d(x, w, b, padding=1, groups=2), lambda: (img(c=4), rn(6, 2, 3, 3), rn(6)), c,
         "conv2d groups=2 (4->6 channels)", T)
    case("conv2d_depthwise_f32", lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1, groups=8), lambda: (img(c=8), rn(8, 1, 3, 3), rn(8)), c,
         "depthwise conv2d groups=8, stride 2", T)
    case("conv2d_depthwise_mult_f32", lambda x, w: F.conv2d(x, w, padding=1, groups=4), lambda: (img(c=4), rn(8, 1, 3, 3)), c,
         "depthwise conv2d with channel multiplier 2", T)
    case("conv2d_dilated_f32", lambda x, w, b: F.conv2d(x, w, b, padding=2, dilation=2), lambda: (img(h=10, w=10), rn(4, 3, 3, 3), rn(4)), c,
         "conv2d dilation 2", T)
    case("conv2d_pointwise_f32", lambda x, w, b: F.conv2d(x, w, b), lambda: (img(c=8), rn(16, 8, 1, 1), rn(16)), c, "1x1 conv2d", T)
    case("conv2d_batch2_f32", lambda x, w, b: F.conv2d(x, w, b, padding=1), lambda: (rn(2, 3, 6, 6), rn(4, 3, 3, 3), rn(4)), c,
         "conv2d with batch 2", T)
    case("conv2d_f64", lambda x, w, b: F.conv2d(x, w, b, padding=1), lambda: (img(dt=F64), rn(4, 3, 3, 3, dt=F64), rn(4, dt=F64)), c,
         "conv2d float64", T)
    case("conv2d_const_weights_f32", None, lambda: (img(),), c, "nn.Conv2d(3, 8, 3, padding=1): weights are program constants", T,
         module=_ConstConv)
    case("conv2d_patches_f32", None, lambda: (rn(2, 3, 18, 23),), c,
         "nn.Conv2d(3, 40, 4, stride=4), constant weights: non-overlapping patches (ViT's embedding), 18x23 input", T,
         module=lambda: _PatchConv(3, 40, (4, 4), True))
    case("conv2d_patches_rect_nobias_f32", None, lambda: (rn(1, 5, 9, 16),), c,
         "nn.Conv2d(5, 12, (3, 2), stride=(3, 2), bias=False), constant weights: rectangular patches", T,
         module=lambda: _PatchConv(5, 12, (3, 2), False))
    case("conv1d_patches_f32", None, lambda: (rn(2, 4, 27),), c,
         "nn.Conv1d(4, 9, 5, stride=5), constant weights: non-overlapping 1-D patches", T,
         module=lambda: _PatchConv(4, 9, (1, 5), True, dims=1))
    case("conv1d_f32", lambda x, w, b: F.conv1d(x, w, b), lambda: (rn(1, 3, 12), rn(4, 3, 3), rn(4)), c, "conv1d 3->4, k3", T)
    case("conv1d_stride_pad_f32", lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=2, dilation=2), lambda: (rn(2, 4, 15), rn(6, 4, 3), rn(6)), c,
         "conv1d stride 2, padding 2, dilation 2, batch 2", T)
    case("conv1d_depthwise_f32", lambda x, w: F.conv1d(x, w, padding=1, groups=4), lambda: (rn(1, 4, 10), rn(4, 1, 3)), c, "depthwise conv1d", T)
    case("conv_transpose2d_f32", lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
         lambda: (img(c=4, h=5, w=5), rn(4, 3, 3, 3), rn(3)), c, "conv_transpose2d stride 2 (convolution with transposed=True)", T)

    mp = "aten::max_pool2d_with_indices.out"
    case("max_pool2d_f32", lambda x: F.max_pool2d(x, 2), lambda: (img(),), mp, "max_pool2d k2 s2")
    case("max_pool2d_k3s2p1_f32", lambda x: F.max_pool2d(x, 3, 2, 1), lambda: (img(h=9, w=9),), mp, "max_pool2d k3 s2 p1")
    case("max_pool2d_ceil_f32", lambda x: F.max_pool2d(x, 3, 2, ceil_mode=True), lambda: (img(h=8, w=10),), mp, "max_pool2d k3 s2 ceil_mode")
    case("max_pool2d_dilation_f32", lambda x: F.max_pool2d(x, 2, 1, dilation=2), lambda: (img(h=7, w=7),), mp, "max_pool2d k2 s1 dilation 2")
    case("max_pool2d_indices_f32", lambda x: tuple(F.max_pool2d(x, 2, return_indices=True)), lambda: (distinct(1, 3, 6, 6),), mp,
         "max_pool2d k2 returning (values, int64 indices)")
    case("max_pool2d_i64", lambda x: F.max_pool2d(x, 2), lambda: (distinct(1, 2, 6, 6).to(I64),), mp, "max_pool2d on int64")
    ap = "aten::avg_pool2d.out"
    case("avg_pool2d_f32", lambda x: F.avg_pool2d(x, 2), lambda: (img(),), ap, "avg_pool2d k2 s2", T)
    case("avg_pool2d_pad_f32", lambda x: F.avg_pool2d(x, 3, 2, 1), lambda: (img(h=9, w=9),), ap, "avg_pool2d k3 s2 p1, count_include_pad=True", T)
    case("avg_pool2d_pad_exclude_f32", lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False), lambda: (img(h=9, w=9),), ap,
         "avg_pool2d k3 s2 p1, count_include_pad=False", T)
    case("avg_pool2d_ceil_f32", lambda x: F.avg_pool2d(x, 3, 2, ceil_mode=True), lambda: (img(h=8, w=10),), ap, "avg_pool2d k3 s2 ceil_mode", T)
    case("avg_pool2d_ceil_pad_exclude_f32", lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
         lambda: (img(h=8, w=8),), ap, "avg_pool2d k3 s2 p1 ceil_mode, count_include_pad=False", T)
    case("avg_pool2d_divisor_f32", lambda x: F.avg_pool2d(x, 2, divisor_override=3), lambda: (img(),), ap, "avg_pool2d k2 divisor_override=3", T)
    aap = "aten::_adaptive_avg_pool2d.out"
    case("adaptive_avg_pool2d_f32", lambda x: F.adaptive_avg_pool2d(x, (2, 3)), lambda: (img(),), aap, "adaptive_avg_pool2d to (2,3) from 8x8", T)
    case("adaptive_avg_pool2d_uneven_f32", lambda x: F.adaptive_avg_pool2d(x, (3, 3)), lambda: (img(h=7, w=10),), aap,
         "adaptive_avg_pool2d to (3,3) from 7x10 (overlapping windows)", T)
    case("adaptive_avg_pool2d_1x1_f32", lambda x: F.adaptive_avg_pool2d(x, 1), lambda: (img(),), "aten::mean.out",
         "adaptive_avg_pool2d to 1x1 (exports as mean over H,W)", T)
    ln = "aten::native_layer_norm.out"
    case("layer_norm_f32", lambda x, w, b: F.layer_norm(x, (16,), w, b), lambda: (rn(2, 5, 16, scale=2.0), rn(16), rn(16)), ln,
         "layer_norm over last dim with weight and bias", T)
    case("layer_norm_noaffine_f32", lambda x: F.layer_norm(x, (16,)), lambda: (rn(4, 16) + 3.0,), ln, "layer_norm without affine, mean offset 3", T)
    case("layer_norm_2d_f32", lambda x, w, b: F.layer_norm(x, (4, 8), w, b, eps=1e-3), lambda: (rn(2, 4, 8), rn(4, 8), rn(4, 8)), ln,
         "layer_norm over last two dims, eps=1e-3", T)
    case("layer_norm_f64", lambda x, w, b: F.layer_norm(x, (16,), w, b), lambda: (rn(3, 16, dt=F64), rn(16, dt=F64), rn(16, dt=F64)), ln,
         "layer_norm float64", T)
    bn = "aten::_native_batch_norm_legit_no_training.out"
    case("batch_norm_f32", lambda x, m, v, w, b: F.batch_norm(x, m, v, w, b, training=False, eps=1e-5),
         lambda: (rn(2, 4, 5, 5), rn(4), uni(4), rn(4), rn(4)), bn, "batch_norm (eval) with running stats, weight, bias", T)
    case("batch_norm_noaffine_f32", lambda x, m, v: F.batch_norm(x, m, v, training=False, eps=1e-3),
         lambda: (rn(1, 3, 4, 4), rn(3), uni(3)), bn, "batch_norm (eval) without affine, eps=1e-3", T)
    case("batch_norm_1d_f32", lambda x, m, v, w, b: F.batch_norm(x, m, v, w, b, training=False),
         lambda: (rn(4, 6), rn(6), uni(6), rn(6), rn(6)), bn, "batch_norm (eval) on [N, C] input", T)
    case("batch_norm_module_f32", None, lambda: (rn(1, 4, 6, 6),), bn, "nn.BatchNorm2d(4) in eval mode: stats are program constants", T,
         module=_bn_module)
    case("group_norm_f32", lambda x, w, b: F.group_norm(x, 2, w, b), lambda: (rn(2, 4, 3, 3), rn(4), rn(4)), "aten::native_group_norm.out",
         "group_norm with 2 groups", T)
    sm = "aten::_softmax.out"
    case("softmax_lastdim_f32", lambda x: F.softmax(x, -1), lambda: (rn(2, 3, 8, scale=3.0),), sm, "softmax over dim -1", T)
    case("softmax_dim1_f32", lambda x: F.softmax(x, 1), lambda: (rn(2, 5, 4, scale=3.0),), sm, "softmax over dim 1 (non-contiguous reduction)", T)
    case("softmax_f64", lambda x: F.softmax(x, -1), lambda: (rn(3, 7, dt=F64, scale=3.0),), sm, "softmax float64", T)
    case("softmax_large_f32", lambda x: F.softmax(x, -1), lambda: (rn(2, 6) * 30 + 50,), sm, "softmax with large logits (needs max subtraction)", T)
    lsm = "aten::_log_softmax.out"
    case("log_softmax_lastdim_f32", lambda x: F.log_softmax(x, -1), lambda: (rn(2, 3, 8, scale=3.0),), lsm, "log_softmax over dim -1", T)
    case("log_softmax_dim0_f32", lambda x: F.log_softmax(x, 0), lambda: (rn(4, 5, scale=3.0),), lsm, "log_softmax over dim 0", T)
    case("log_softmax_f64", lambda x: F.log_softmax(x, -1), lambda: (rn(3, 7, dt=F64),), lsm, "log_softmax float64", T)
    em = "aten::embedding.out"
    case("embedding_f32", lambda i, w: F.embedding(i, w), lambda: (ri(0, 10, 2, 5), rn(10, 8)), em, "embedding lookup, int64 ids [2,5]")
    case("embedding_i32_ids", lambda i, w: F.embedding(i, w), lambda: (ri(0, 10, 7, dt=I32), rn(10, 4)), em, "embedding lookup, int32 ids")
    case("embedding_module_f32", None, lambda: (ri(0, 20, 3, 4),), em, "nn.Embedding(20, 16): table is a program constant",
         module=_emb_module)
    pad = "aten::constant_pad_nd.out"
    case("constant_pad_1d_f32", lambda x: F.pad(x, (1, 2)), lambda: (rn(2, 3, 4),), pad, "pad last dim (1, 2) with zeros")
    case("constant_pad_2d_f32", lambda x: F.pad(x, (1, 2, 0, 1), value=0.5), lambda: (img(),), pad, "pad H,W (1,2,0,1) with 0.5")
    case("constant_pad_3d_i64", lambda x: F.pad(x, (0, 1, 1, 0, 2, 1), value=-7), lambda: (ri(-9, 9, 2, 3, 4),), pad, "pad three dims, int64, value -7")
    up = "aten::upsample_nearest2d.vec_out"
    case("upsample_nearest2d_scale2_f32", lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), lambda: (img(h=5, w=6),), up,
         "interpolate nearest scale_factor 2")
    case("upsample_nearest2d_size_f32", lambda x: F.interpolate(x, size=(12, 7), mode="nearest"), lambda: (img(h=5, w=6),), up,
         "interpolate nearest to size (12, 7) (non-integer ratios)")
    case("upsample_nearest2d_down_f32", lambda x: F.interpolate(x, size=(3, 4), mode="nearest"), lambda: (img(),), up,
         "interpolate nearest downsample 8x8 -> 3x4")
    case("upsample_bilinear2d_f32", lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"), lambda: (img(h=5, w=6),),
         "aten::upsample_bilinear2d.vec_out", "interpolate bilinear scale 2, align_corners=False", T)
    case("upsample_bilinear2d_align_f32", lambda x: F.interpolate(x, size=(9, 11), mode="bilinear", align_corners=True), lambda: (img(h=5, w=6),),
         "aten::upsample_bilinear2d.vec_out", "interpolate bilinear to (9,11), align_corners=True", T)


def _bn_module() -> torch.nn.Module:
    m = torch.nn.BatchNorm2d(4)
    with torch.no_grad():
        m.running_mean.copy_(torch.linspace(-0.5, 0.5, 4))
        m.running_var.copy_(torch.linspace(0.5, 2.0, 4))
        m.weight.copy_(torch.linspace(0.8, 1.2, 4))
        m.bias.copy_(torch.linspace(-0.1, 0.1, 4))
    return m


def _emb_module() -> torch.nn.Module:
    g = torch.Generator().manual_seed(1234)
    m = torch.nn.Embedding(20, 16)
    with torch.no_grad():
        m.weight.copy_(torch.randn(20, 16, generator=g))
    return m


# ---------------------------------------------------------------------------
# Shape / index
# ---------------------------------------------------------------------------

def _shape() -> None:
    vc = "aten::view_copy.out"
    case("view_copy_f32", lambda x: x.view(6, 4), lambda: (rn(2, 3, 4),), vc,
         "x.view(6, 4) exported with remove_view_copy=False (keeps view_copy)", remove_view_copy=False)
    case("view_copy_flatten_f32", lambda x: x.reshape(2, -1), lambda: (rn(2, 3, 4),), vc, "x.reshape(2, -1), default export config")
    case("view_copy_i64", lambda x: x.view(4, 3, 2) * 2, lambda: (ri(-9, 9, 2, 3, 4),), vc,
         "x.view(4,3,2) * 2, int64, remove_view_copy=False", remove_view_copy=False)
    case("view_copy_0d_f32", lambda x: x.reshape(1, 1), lambda: (scalar0(2.5),), vc, "0-d tensor reshaped to [1,1]")
    pc = "aten::permute_copy.out"
    case("permute_copy_f32", lambda x: x.permute(2, 0, 1), lambda: (rn(2, 3, 4),), pc, "x.permute(2, 0, 1)")
    case("permute_copy_4d_f32", lambda x: x.permute(0, 2, 3, 1), lambda: (rn(2, 3, 4, 5),), pc, "NCHW -> NHWC permute")
    case("transpose_f32", lambda x: x.transpose(0, 1), lambda: (rn(3, 5),), pc, "x.transpose(0, 1) (exports as permute)")
    case("permute_copy_i64", lambda x: x.permute(1, 0, 2), lambda: (ri(-9, 9, 2, 3, 4),), pc, "permute int64")
    ex = "aten::expand_copy.out"
    case("expand_copy_f32", lambda x: x.expand(2, 3, 4), lambda: (rn(3, 1),), ex, "x[3,1].expand(2, 3, 4)")
    case("expand_copy_neg1_f32", lambda x: x.expand(-1, 5), lambda: (rn(3, 1),), ex, "x[3,1].expand(-1, 5)")
    case("expand_copy_bool", lambda x: x.expand(2, 2, 3), lambda: (rb(1, 3),), ex, "expand bool")
    cat = "aten::cat.out"
    case("cat_dim0_f32", lambda a, b: torch.cat([a, b]), lambda: (rn(2, 3), rn(4, 3)), cat, "cat([a, b], dim=0)")
    case("cat_dim1_f32", lambda a, b, c: torch.cat([a, b, c], 1), lambda: (rn(2, 1, 4), rn(2, 3, 4), rn(2, 2, 4)), cat, "cat three tensors dim=1")
    case("cat_neg_dim_i64", lambda a, b: torch.cat([a, b], -1), lambda: (ri(-9, 9, 2, 3), ri(-9, 9, 2, 2)), cat, "cat int64 dim=-1")
    case("cat_mixed_dtype", lambda a, b: torch.cat([a, b]), lambda: (rn(2, 3), ri(-9, 9, 2, 3)), cat, "cat float32 with int64 -> float32")
    case("cat_bool", lambda a, b: torch.cat([a, b], 1), lambda: (rb(2, 3), rb(2, 1)), cat, "cat bool")
    case("stack_f32", lambda a, b: torch.stack([a, b], 1), lambda: (rn(2, 3), rn(2, 3)), cat, "stack([a, b], dim=1) (exports as cat + view)")
    sl = "aten::slice_copy.Tensor_out"
    case("slice_copy_f32", lambda x: x[:, 1:3], lambda: (rn(2, 4, 3),), sl, "x[:, 1:3]")
    case("slice_copy_step_f32", lambda x: x[:, ::2], lambda: (rn(2, 5, 3),), sl, "x[:, ::2]")
    case("slice_copy_neg_f32", lambda x: x[..., -2:], lambda: (rn(2, 3, 5),), sl, "x[..., -2:]")
    case("slice_copy_i64", lambda x: x[1:, 2:5:2], lambda: (ri(-9, 9, 3, 6),), sl, "x[1:, 2:5:2] int64")
    case("narrow_f32", lambda x: x.narrow(2, 1, 2), lambda: (rn(2, 3, 4),), sl, "x.narrow(2, 1, 2)")
    se = "aten::select_copy.int_out"
    case("select_copy_f32", lambda x: x[:, 1], lambda: (rn(2, 3, 4),), se, "x[:, 1]")
    case("select_copy_neg_f32", lambda x: x[-1], lambda: (rn(2, 3, 4),), se, "x[-1]")
    case("select_copy_to_0d_i64", lambda x: x[2], lambda: (ri(-9, 9, 4),), se, "x[2] of a 1-d int64 -> 0-d")
    sq = "aten::squeeze_copy.dims_out"
    case("squeeze_copy_dim_f32", lambda x: x.squeeze(2), lambda: (rn(2, 3, 1, 4),), sq, "x.squeeze(2)")
    case("squeeze_copy_all_f32", lambda x: x.squeeze(), lambda: (rn(1, 3, 1, 4),), sq, "x.squeeze() (all size-1 dims)")
    case("squeeze_copy_noop_f32", lambda x: x.squeeze(1) + 1.0, lambda: (rn(2, 3),), "aten::add.out", "x.squeeze(1) on a non-1 dim (no-op)")
    us = "aten::unsqueeze_copy.out"
    case("unsqueeze_copy_f32", lambda x: x.unsqueeze(1), lambda: (rn(2, 3),), us, "x.unsqueeze(1)")
    case("unsqueeze_copy_neg_i64", lambda x: x.unsqueeze(-1), lambda: (ri(-9, 9, 2, 3),), us, "x.unsqueeze(-1) int64")
    case("unsqueeze_copy_0d_f32", lambda x: x.unsqueeze(0), lambda: (scalar0(1.5),), us, "0-d unsqueeze(0) -> [1]")
    sp = "aten::split_with_sizes_copy.out"
    case("split_with_sizes_f32", lambda x: torch.split(x, [1, 3, 2], dim=2), lambda: (rn(2, 3, 6),), sp, "split(x, [1, 3, 2], dim=2) -> 3 outputs")
    case("split_equal_f32", lambda x: torch.split(x, 2, dim=1), lambda: (rn(2, 5, 3),), sp, "split(x, 2, dim=1) with a short last chunk")
    case("chunk_i64", lambda x: torch.chunk(x, 2, dim=0), lambda: (ri(-9, 9, 4, 3),), sp, "chunk(x, 2, dim=0) int64")
    case("unbind_f32", lambda x: torch.unbind(x, 1), lambda: (rn(2, 3, 4),), sl, "unbind(x, 1) (exports as slices + squeezes)")
    isel = "aten::index_select.out"
    case("index_select_dim0_f32", lambda x, i: torch.index_select(x, 0, i), lambda: (rn(5, 3), torch.tensor([4, 0, 2, 2])), isel,
         "index_select(x, 0, idx) with a repeated index")
    case("index_select_dim1_f32", lambda x, i: torch.index_select(x, 1, i), lambda: (rn(2, 5, 3), torch.tensor([3, 1])), isel,
         "index_select(x, 1, idx)")
    case("index_select_i32_idx", lambda x, i: torch.index_select(x, -1, i), lambda: (ri(-9, 9, 3, 6), torch.tensor([5, 0, 3], dtype=I32)), isel,
         "index_select(x, -1, int32 idx), int64 data")
    ga = "aten::gather.out"
    case("gather_dim1_f32", lambda x, i: torch.gather(x, 1, i), lambda: (rn(3, 5), ri(0, 5, 3, 4)), ga, "gather(x, 1, idx)")
    case("gather_dim0_f32", lambda x, i: torch.gather(x, 0, i), lambda: (rn(4, 3), ri(0, 4, 2, 3)), ga, "gather(x, 0, idx)")
    case("gather_3d_i64", lambda x, i: torch.gather(x, 2, i), lambda: (ri(-9, 9, 2, 3, 4), ri(0, 4, 2, 3, 2)), ga, "gather(x, 2, idx), int64 data")
    it = "aten::index.Tensor_out"
    case("index_tensor_f32", lambda x, i: x[i], lambda: (rn(5, 3), torch.tensor([4, 0, 2, 2])), it, "x[idx] (advanced indexing, one index)")
    case("index_tensor_2idx_f32", lambda x, i, j: x[i, j], lambda: (rn(4, 5, 3), torch.tensor([0, 3, 1]), torch.tensor([4, 0, 2])), it,
         "x[i, j] two index tensors")
    case("index_tensor_broadcast_f32", lambda x, i, j: x[i, j], lambda: (rn(4, 5), torch.tensor([[0], [3]]), torch.tensor([4, 0, 2])), it,
         "x[i, j] with broadcasting index tensors [2,1] and [3]")
    case("index_tensor_middle_f32", lambda x, i: x[:, i], lambda: (rn(2, 5, 3), torch.tensor([1, 4])), it, "x[:, idx] (None in indices)")
    case("index_tensor_neg_i64", lambda x, i: x[i], lambda: (ri(-9, 9, 5, 2), torch.tensor([-1, 0, -3])), it, "x[idx] with negative indices, int64 data")
    case("flip_f32", lambda x: torch.flip(x, [0, 2]), lambda: (rn(2, 3, 4),), "aten::flip.out", "flip(x, [0, 2])")
    case("repeat_f32", lambda x: x.repeat(2, 1, 3), lambda: (rn(2, 3),), "aten::repeat.out", "x[2,3].repeat(2, 1, 3)")
    case("roll_f32", lambda x: torch.roll(x, 2, 1), lambda: (rn(2, 5),), "aten::index_select.out", "roll(x, 2, 1) (exports as arange/fmod/index_select)")
    case("tril_f32", torch.tril, lambda: (rn(5, 5),), "aten::tril.out", "tril(x), preserved op", preserve=(aten.tril.default,))
    case("tril_diag_f32", lambda x: torch.tril(x, -1), lambda: (rn(2, 4, 6),), "aten::tril.out", "tril(x, -1) batched, preserved op",
         preserve=(aten.tril.default,))
    case("triu_decomposed_f32", torch.triu, lambda: (rn(4, 5),), "aten::ge.Scalar_out", "triu(x) with the default export (arange/sub/ge/where)")


# ---------------------------------------------------------------------------
# Creation
# ---------------------------------------------------------------------------

def _creation() -> None:
    case("full_f32", lambda x: torch.full((2, 3), 1.5) + x, lambda: (rn(2, 3),), "aten::full.out", "torch.full((2,3), 1.5) + x")
    case("full_i64", lambda x: torch.full((3,), 7, dtype=I64) * x, lambda: (ri(-9, 9, 3),), "aten::full.out", "torch.full((3,), 7, int64) * x")
    case("ones_f32", lambda x: torch.ones(2, 3) - x, lambda: (rn(2, 3),), "aten::full.out", "torch.ones(2,3) - x (exports as full)")
    case("full_like_f32", lambda x: torch.full_like(x, 2.25), lambda: (rn(2, 3),), "aten::full_like.out", "full_like(x, 2.25)")
    case("full_like_i32", lambda x: torch.full_like(x, -3), lambda: (ri(-9, 9, 4, dt=I32),), "aten::full_like.out", "full_like(int32 x, -3)")
    case("zeros_like_f32", lambda x: torch.zeros_like(x) + x, lambda: (rn(2, 3),), "aten::full_like.out", "zeros_like(x) + x")
    case("full_like_dtype_f32", lambda x: torch.full_like(x, 1, dtype=F64), lambda: (rn(2, 3),), "aten::full_like.out", "full_like(x, 1, dtype=float64)")
    ar = "aten::arange.start_out"
    case("arange_f32", lambda x: torch.arange(6, dtype=F32) + x, lambda: (rn(6),), ar, "torch.arange(6, dtype=float32) + x")
    case("arange_start_step_i64", lambda x: torch.arange(1, 12, 2) * x, lambda: (ri(-5, 5, 6),), ar, "torch.arange(1, 12, 2) * x (int64)")
    case("arange_float_step_f32", lambda x: torch.arange(0.0, 1.0, 0.25) + x, lambda: (rn(4),), ar, "torch.arange(0.0, 1.0, 0.25) + x")
    case("arange_neg_step_f32", lambda x: torch.arange(5, -1, -1.5) * x, lambda: (rn(4),), ar, "torch.arange(5, -1, -1.5) * x")
    st = "aten::scalar_tensor.out"
    case("scalar_tensor_f32", lambda x: torch.ops.aten.scalar_tensor.default(2.5) * x, lambda: (rn(2, 3),), st, "aten.scalar_tensor(2.5) * x")
    case("scalar_tensor_i64", lambda x: torch.ops.aten.scalar_tensor.default(3, dtype=I64) + x, lambda: (ri(-9, 9, 3),), st,
         "aten.scalar_tensor(3, dtype=int64) + x")


# ---------------------------------------------------------------------------
# Copies / casts
# ---------------------------------------------------------------------------

def _copies() -> None:
    cl = "dim_order_ops::_clone_dim_order.out"
    case("clone_f32", lambda x: x.clone(), lambda: (rn(2, 3, 4),), cl, "x.clone()")
    case("clone_i64", lambda x: x.clone(), lambda: (ri(-9, 9, 3, 2),), cl, "x.clone() int64")
    case("contiguous_after_permute_f32", lambda x: x.permute(0, 2, 1).contiguous() * 1.0, lambda: (rn(2, 3, 4),), cl,
         "x.permute(0,2,1).contiguous()")
    case("clone_channels_last_f32", lambda x: x.clone(memory_format=torch.channels_last), lambda: (rn(1, 3, 4, 5),), cl,
         "x.clone(memory_format=channels_last): the output has dim order (0,2,3,1); expected values are in logical NCHW order")
    to = "dim_order_ops::_to_dim_order_copy.out"
    pairs = [
        (F32, I32, lambda: (rn(2, 3, 4, scale=5.0),), "float32 -> int32 (truncation toward zero)"),
        (F32, I64, lambda: (rn(2, 3, 4, scale=5.0),), "float32 -> int64 (truncation toward zero)"),
        (F32, F64, lambda: (rn(2, 3, 4),), "float32 -> float64"),
        (F64, F32, lambda: (rn(2, 3, 4, dt=F64),), "float64 -> float32 (round to nearest)"),
        (I64, F32, lambda: (ri(-1000, 1000, 2, 3),), "int64 -> float32"),
        (I32, I64, lambda: (ri(-1000, 1000, 2, 3, dt=I32),), "int32 -> int64"),
        (I64, I32, lambda: (ri(-1000, 1000, 2, 3),), "int64 -> int32"),
        (I32, F64, lambda: (ri(-1000, 1000, 2, 3, dt=I32),), "int32 -> float64"),
        (BOOL, F32, lambda: (rb(2, 3),), "bool -> float32"),
        (BOOL, I64, lambda: (rb(2, 3),), "bool -> int64"),
        (F32, BOOL, lambda: (small_ints_f(2, 3, lo=-1, hi=2) * 0.5,), "float32 -> bool (non-zero test)"),
        (I64, BOOL, lambda: (ri(-2, 3, 2, 3),), "int64 -> bool"),
    ]
    sfx = {F32: "f32", F64: "f64", I32: "i32", I64: "i64", BOOL: "bool"}
    for src, dst, gen, d in pairs:
        case(f"to_{sfx[src]}_to_{sfx[dst]}", lambda x, dst=dst: x.to(dst), gen, to, f"x.to({DT_NAME[dst]}): {d}")
    case("to_same_dtype_f32", lambda x: x.to(F32) * 2.0, lambda: (rn(2, 3),), "aten::mul.out", "x.to(float32) on float32 (no-op) * 2")
    case("copy_inplace_f32", lambda a, b: a.copy_(b), lambda: (rn(2, 3), rn(2, 3)), "aten::copy_",
         "a.copy_(b): mutates user input 0; the method has 2 outputs (mutated input 0, then the returned tensor)")
    case("copy_broadcast_f32", lambda a, b: torch.ops.aten.copy.default(a, b), lambda: (rn(2, 3), rn(3)), "aten::copy.out",
         "aten.copy(a, b) functional copy with broadcasting")


# ---------------------------------------------------------------------------
# Kernels the exporter reaches only when the op is kept from decomposition
# (preserve) or through overloads the cases above do not produce: one case
# each, so that every registered portable kernel runs on a real program
# (tests/python/test_zoo_coverage.py checks this).
# ---------------------------------------------------------------------------

def _kept_ops() -> None:
    def kept(name, fn, inputs, op, desc, keep, tol=TOL_EW, views=False):
        case(name, fn, inputs, op, desc + ", preserved op", tol=tol, preserve=keep, remove_view_copy=not views)

    kept("cdist_f32", lambda a, b: torch.cdist(a, b, compute_mode="donot_use_mm_for_euclid_dist"),
         lambda: (rn(2, 4, 3), rn(2, 5, 3)), "aten::_cdist_forward.out", "cdist(a, b), p=2",
         (aten._cdist_forward.default,), TOL_TRANSC)
    kept("batch_norm_no_stats_f32", lambda x, w, b: tuple(aten._native_batch_norm_legit.no_stats(x, w, b, True, 0.1, 1e-5)),
         lambda: (rn(2, 3, 4, 4), rn(3), rn(3)), "aten::_native_batch_norm_legit.no_stats_out",
         "batch norm from the batch's own statistics -> (out, mean, rstd)", (aten._native_batch_norm_legit.no_stats,),
         TOL_TRANSC)
    for n, gen in (("acosh", lambda: (uni(2, 3, 4, lo=1.1, hi=4.0),)), ("asinh", lambda: (rn(2, 3, 4, scale=3.0),)),
                   ("atanh", lambda: (uni(2, 3, 4, lo=-0.9, hi=0.9),)), ("erfc", lambda: (rn(2, 3, 4),)),
                   ("exp2", lambda: (rn(2, 3, 4, scale=3.0),))):
        kept(f"{n}_f32", getattr(torch, n), gen, f"aten::{n}.out", f"{n}(x)", (getattr(aten, n).default,), TOL_TRANSC)
    kept("hardsigmoid_f32", F.hardsigmoid, lambda: (rn(2, 3, 4, scale=4.0),), "aten::hardsigmoid.out", "hardsigmoid(x)",
         (aten.hardsigmoid.default,))
    kept("softplus_f32", lambda x: F.softplus(x, beta=2.0, threshold=5.0), lambda: (rn(2, 3, 4, scale=4.0),),
         "aten::softplus.out", "softplus(x, beta=2, threshold=5)", (aten.softplus.default,), TOL_TRANSC)
    for n, sym in (("add", "+"), ("sub", "-"), ("mul", "*"), ("div", "/")):
        kept(f"{n}_scalar_overload_f32", lambda x, n=n: getattr(aten, n).Scalar(x, 1.5), lambda: (rn(2, 3),),
             f"aten::{n}.Scalar_out", f"x {sym} 1.5 as the Scalar overload", (getattr(aten, n).Scalar,))
    kept("rsub_scalar_overload_f32", lambda x: aten.rsub.Scalar(x, 1.5, alpha=2), lambda: (rn(2, 3),),
         "aten::rsub.Scalar_out", "1.5 - 2 * x as rsub.Scalar", (aten.rsub.Scalar,))
    kept("div_scalar_mode_floor_f32", lambda x: aten.div.Scalar_mode(x, -0.75, rounding_mode="floor"),
         lambda: (rn(2, 3, scale=3.0),), "aten::div.Scalar_mode_out", "x / -0.75 rounded down", (aten.div.Scalar_mode,))
    kept("floor_divide_kept_i64", torch.floor_divide, lambda: (ri(-20, 20, 2, 3), ri_nz(-5, 6, 2, 3)), "aten::floor_divide.out",
         "floor_divide(a, b), int64", (aten.floor_divide.default,))
    kept("remainder_scalar_tensor_f32", lambda x: aten.remainder.Scalar_Tensor(2.5, x), lambda: (nz(2, 3),),
         "aten::remainder.Scalar_Tensor_out", "2.5 % x (Python remainder)", (aten.remainder.Scalar_Tensor,))
    kept("round_decimals_f32", lambda x: torch.round(x, decimals=2), lambda: (rn(2, 3, 4, scale=10.0),),
         "aten::round.decimals_out", "round(x, decimals=2)", (aten.round.decimals,), TOL_TRANSC)
    for n in ("and", "or", "xor"):
        kept(f"bitwise_{n}_scalar_i64", lambda x, n=n: getattr(aten, f"bitwise_{n}").Scalar(x, 6), lambda: (ri(0, 64, 2, 3),),
             f"aten::bitwise_{n}.Scalar_out", f"bitwise_{n}(x, 6)", (getattr(aten, f"bitwise_{n}").Scalar,))
    kept("fill_scalar_f32", lambda x: aten.fill.Scalar(x, 2.5), lambda: (rn(2, 3),), "aten::fill.Scalar_out", "fill(x, 2.5)",
         (aten.fill.Scalar,))
    kept("fill_tensor_f32", lambda x, v: aten.fill.Tensor(x, v), lambda: (rn(2, 3), scalar0(-0.75)), "aten::fill.Tensor_out",
         "fill(x, v) with a 0-d tensor", (aten.fill.Tensor,))
    kept("all_dim_bool", lambda a: torch.all(a, 1), lambda: (rb(2, 3, 4, p=0.8),), "aten::all.out", "all(x, dim=1), bool",
         (aten.all.dim,))
    kept("all_dims_bool", lambda a: torch.all(a, dim=(0, 2)), lambda: (rb(2, 3, 4, p=0.9),), "aten::all.dims_out",
         "all(x, dim=(0,2))", (aten.all.dims,))
    kept("all_all_f32", lambda a: torch.all(a), lambda: (nz(3, 4),), "aten::all.all_out", "all(x) over all elements, float32",
         (aten.all.default,))
    case("max_all_f32", lambda a: torch.max(a), lambda: (rn(3, 4),), "aten::max.unary_out", "torch.max(x) over all elements")
    case("min_all_i64", lambda a: torch.min(a), lambda: (ri(-50, 50, 3, 4),), "aten::min.unary_out",
         "torch.min(x) over all elements, int64")
    case("prod_all_f32", lambda a: torch.prod(a), lambda: (uni(2, 3, lo=0.5, hi=1.5),), "aten::prod.out",
         "prod(x) over all elements", TOL_TRANSC)
    kept("std_correction0_f32", lambda a: torch.std(a, 1, correction=0), lambda: (rn(2, 5, 4),), "aten::std.correction_out",
         "std(x, dim=1, correction=0)", (aten.std.correction,), TOL_TRANSC)
    kept("var_dim_unbiased_f32", lambda a: aten.var.dim(a, [1], True, True), lambda: (rn(2, 5, 4),), "aten::var.out",
         "var(x, dim=[1], unbiased, keepdim) as var.dim", (aten.var.dim,), TOL_TRANSC)
    kept("pixel_shuffle_f32", lambda x: F.pixel_shuffle(x, 2), lambda: (rn(2, 8, 3, 4),), "aten::pixel_shuffle.out",
         "pixel_shuffle(x, 2)", (aten.pixel_shuffle.default,))
    kept("pixel_unshuffle_f32", lambda x: F.pixel_unshuffle(x, 2), lambda: (rn(2, 2, 6, 4),), "aten::pixel_unshuffle.out",
         "pixel_unshuffle(x, 2)", (aten.pixel_unshuffle.default,))
    kept("roll_kept_f32", lambda x: torch.roll(x, shifts=(1, -2), dims=(0, 2)), lambda: (rn(3, 4, 5),), "aten::roll.out",
         "roll(x, (1, -2), dims=(0, 2))", (aten.roll.default,))
    kept("triu_f32", lambda x: torch.triu(x, 1), lambda: (rn(4, 5),), "aten::triu.out", "triu(x, 1)", (aten.triu.default,))
    kept("stack_kept_f32", lambda a, b: torch.stack((a, b), 1), lambda: (rn(2, 3), rn(2, 3)), "aten::stack.out",
         "stack((a, b), dim=1)", (aten.stack.default,))
    kept("unbind_kept_f32", lambda x: tuple(torch.unbind(x, 1)), lambda: (rn(2, 3, 4),), "aten::unbind_copy.int_out",
         "unbind(x, 1)", (aten.unbind.int,), views=True)
    kept("split_tensor_f32", lambda x: tuple(torch.split(x, 2, dim=1)), lambda: (rn(2, 5),), "aten::split_copy.Tensor_out",
         "split(x, 2, dim=1) with a ragged last piece", (aten.split.Tensor,), views=True)
    kept("transpose_kept_f32", lambda x: x.transpose(0, 2) + 0, lambda: (rn(2, 3, 4),), "aten::transpose_copy.int_out",
         "x.transpose(0, 2)", (aten.transpose.int,), views=True)
    kept("t_f32", lambda x: x.t() + 0, lambda: (rn(3, 4),), "aten::t_copy.out", "x.t()", (aten.t.default,), views=True)
    kept("squeeze_dim_f32", lambda x: x.squeeze(1) + 0, lambda: (rn(2, 1, 4),), "aten::squeeze_copy.dim_out", "x.squeeze(1)",
         (aten.squeeze.dim,), views=True)
    kept("squeeze_all_f32", lambda x: x.squeeze() + 0, lambda: (rn(2, 1, 4, 1),), "aten::squeeze_copy.out", "x.squeeze()",
         (aten.squeeze.default,), views=True)
    kept("diagonal_f32", lambda x: torch.diagonal(x, 1, 0, 2) + 0, lambda: (rn(4, 3, 5),), "aten::diagonal_copy.out",
         "diagonal(x, offset=1, dim1=0, dim2=2)", (aten.diagonal.default,), views=True)
    kept("narrow_copy_kept_f32", lambda x: aten.narrow_copy(x, 1, 1, 2), lambda: (rn(2, 4, 3),), "aten::narrow_copy.out",
         "narrow_copy(x, 1, 1, 2)", (aten.narrow_copy.default,))
    kept("unfold_f32", lambda x: x.unfold(1, 3, 2) + 0, lambda: (rn(2, 7),), "aten::unfold_copy.out", "x.unfold(1, 3, 2)",
         (aten.unfold.default,), views=True)
    kept("as_strided_f32", lambda x: torch.as_strided(x, (3, 2), (1, 3), 1) + 0, lambda: (rn(4, 3),),
         "aten::as_strided_copy.out", "as_strided(x, (3, 2), (1, 3), 1)", (aten.as_strided.default,), views=True)
    kept("floor_divide_scalar_f32", lambda x: aten.floor_divide.Scalar(x, -1.5), lambda: (rn(2, 3, scale=4.0),),
         "aten::floor_divide.Scalar_out", "floor_divide(x, -1.5)", (aten.floor_divide.Scalar,))
    kept("linear_kept_f32", F.linear, lambda: (rn(2, 3, 5), rn(4, 5), rn(4)), "aten::linear.out", "linear(x, w, b)",
         (aten.linear.default,), TOL_DEFAULT)
    kept("linear_kept_f64_nobias", F.linear, lambda: (rn(3, 5, dt=F64), rn(4, 5, dt=F64)), "aten::linear.out",
         "linear(x, w) without bias, float64 (the portable kernel)", (aten.linear.default,), TOL_DEFAULT)
    kept("sort_f32", lambda x: tuple(torch.sort(x, 1, descending=True)), lambda: (distinct(2, 5, 3),), "aten::sort.values",
         "sort(x, dim=1, descending=True) -> (values, indices)", (aten.sort.default,))
    kept("sort_stable_f32", lambda x: tuple(torch.sort(x, dim=-1, stable=True)), lambda: (small_ints_f(2, 6),),
         "aten::sort.values_stable", "sort(x, stable=True) with ties", (aten.sort.stable,))
    case("avg_pool3d_f32", lambda x: F.avg_pool3d(x, 2, stride=1, padding=1), lambda: (rn(1, 2, 3, 4, 4),),
         "aten::avg_pool3d.out", "avg_pool3d(x, 2, stride 1, padding 1)")
    case("max_pool3d_f32", lambda x: F.max_pool3d(x, 2), lambda: (distinct(1, 2, 4, 4, 4),),
         "aten::max_pool3d_with_indices.out", "max_pool3d(x, 2)")
    case("scatter_src_f32", lambda x, i, s: torch.scatter(x, 1, i, s),
         lambda: (rn(3, 5), torch.tensor([[0, 4], [2, 1], [3, 3]]), rn(3, 2)), "aten::scatter.src_out",
         "scatter(x, 1, idx, src)")
    case("scatter_value_f32", lambda x, i: torch.scatter(x, 0, i, 2.5), lambda: (rn(3, 4), torch.tensor([[2, 0, 1, 2]])),
         "aten::scatter.value_out", "scatter(x, 0, idx, 2.5)")
    case("scatter_add_f32", lambda x, i, s: torch.scatter_add(x, 1, i, s),
         lambda: (rn(2, 4), torch.tensor([[0, 0, 3], [1, 2, 1]]), rn(2, 3)), "aten::scatter_add.out",
         "scatter_add(x, 1, idx, src) with repeated indices")
    kept("select_scatter_f32", lambda x, s: torch.select_scatter(x, s, 1, 2), lambda: (rn(2, 4, 3), rn(2, 3)),
         "aten::select_scatter.out", "select_scatter(x, src, dim=1, index=2)", (aten.select_scatter.default,))
    case("slice_scatter_f32", lambda x, s: torch.slice_scatter(x, s, 1, 1, 5, 2), lambda: (rn(2, 6), rn(2, 2)),
         "aten::slice_scatter.out", "slice_scatter(x, src, dim=1, 1:5:2)")
    case("index_put_f32", lambda x, i, v: torch.index_put(x, (i,), v), lambda: (rn(5, 3), torch.tensor([4, 0, 2]), rn(3, 3)),
         "aten::index_put.out", "index_put(x, (idx,), v)")
    case("index_put_accumulate_f32", lambda x, i, v: torch.index_put(x, (i,), v, accumulate=True),
         lambda: (rn(5, 3), torch.tensor([1, 1, 3]), rn(3, 3)), "aten::index_put.out",
         "index_put(x, (idx,), v, accumulate=True)")
    kept("masked_scatter_f32", lambda x, m, s: x.masked_scatter(m, s), lambda: (rn(3, 4), rb(3, 4), rn(12)),
         "aten::masked_scatter.out", "x.masked_scatter(mask, src)", (aten.masked_scatter.default,))
    kept("upsample_nearest2d_sizes_f32", lambda x: aten.upsample_nearest2d.default(x, [6, 10]), lambda: (rn(1, 2, 3, 4),),
         "aten::upsample_nearest2d.out", "upsample_nearest2d(x, [6, 10])", (aten.upsample_nearest2d.default,))


# ---------------------------------------------------------------------------
# Operators ExecuTorch's portable library has that came later (issue 15):
# padding by reflection/replication, glu, logit, var_mean, grid_sampler_2d,
# antialiased bilinear resize, bit shifts, pdist.
# ---------------------------------------------------------------------------

TOL_BICUBIC = (1e-5, 1e-5, "eager sums bicubic's 16 weighted taps in float32 (pterun in double): "
               "results near zero differ by ~1e-6 absolute")


def _more_ops() -> None:
    def kept(name, fn, inputs, op, desc, keep=(), tol=TOL_EW):
        case(name, fn, inputs, op, desc, tol=tol, preserve=keep)

    sfx = {F32: "f32", F64: "f64", I32: "i32", I64: "i64", BOOL: "bool"}
    pads = {1: ((2, 1), (2, 3, 5)), 2: ((1, 2, 2, 0), (1, 2, 3, 4)), 3: ((1, 0, 2, 1, 0, 2), (1, 2, 3, 3, 4))}
    for mode, torch_mode in (("reflection", "reflect"), ("replication", "replicate")):
        for nd, (pad, shape) in pads.items():
            op = f"aten::{mode}_pad{nd}d.out"
            f = lambda x, pad=pad, m=torch_mode: F.pad(x, pad, mode=m)
            keep = (getattr(aten, f"{mode}_pad{nd}d").default,)
            for dt in (F32, F64, I64, I32):
                gen = (
                    (lambda shape=shape, dt=dt: (ri(-50, 50, *shape, dt=dt),)) if dt in (I32, I64) else
                    (lambda shape=shape, dt=dt: (rn(*shape, dt=dt),)))
                kept(f"{mode}_pad{nd}d_{sfx[dt]}", f, gen, op, f"F.pad(x, {pad}, mode='{torch_mode}'), {DT_NAME[dt]}", keep)
            # padding on one side only, and no batch dim
            kept(f"{mode}_pad{nd}d_nobatch_f32", lambda x, pad=pad, m=torch_mode: F.pad(x, pad, mode=m),
                 lambda shape=shape: (rn(*shape[1:]),), op, f"F.pad(x, {pad}, mode='{torch_mode}') without a batch dim", keep)
    for dt in (F32, F64):
        kept(f"glu_{sfx[dt]}", lambda x: F.glu(x, 1), lambda dt=dt: (rn(2, 6, 3, dt=dt),), "aten::glu.out",
             f"glu(x, dim=1), {DT_NAME[dt]}", (aten.glu.default,), TOL_TRANSC)
        kept(f"logit_{sfx[dt]}", torch.logit, lambda dt=dt: (uni(2, 3, 4, lo=0.02, hi=0.98, dt=dt),), "aten::logit.out",
             f"logit(x), {DT_NAME[dt]}", (aten.logit.default,), TOL_TRANSC)
        kept(f"logit_eps_{sfx[dt]}", lambda x: torch.logit(x, eps=0.1), lambda dt=dt: (uni(2, 3, 4, lo=0.0, hi=1.0, dt=dt),),
             "aten::logit.out", f"logit(x, eps=0.1) clamps into [0.1, 0.9], {DT_NAME[dt]}", (aten.logit.default,), TOL_TRANSC)
        kept(f"var_mean_{sfx[dt]}", lambda x: tuple(torch.var_mean(x, 1, keepdim=True)), lambda dt=dt: (rn(2, 5, 3, dt=dt),),
             "aten::var_mean.correction_out", f"var_mean(x, dim=1, keepdim=True) -> (var, mean), {DT_NAME[dt]}",
             (aten.var_mean.correction,), TOL_TRANSC)
        kept(f"pdist_{sfx[dt]}", F.pdist, lambda dt=dt: (rn(5, 3, dt=dt),), "aten::_pdist_forward.out",
             f"pdist(x) (p=2), {DT_NAME[dt]}", (aten._pdist_forward.default,), TOL_TRANSC)
        kept(f"upsample_bilinear2d_aa_down_{sfx[dt]}",
             lambda x: F.interpolate(x, size=(3, 2), mode="bilinear", antialias=True),
             lambda dt=dt: (rn(1, 2, 7, 9, dt=dt),), "aten::_upsample_bilinear2d_aa.out",
             f"interpolate(x, size=(3, 2), bilinear, antialias) shrinks, {DT_NAME[dt]}",
             (aten._upsample_bilinear2d_aa.default,), TOL_TRANSC)
    kept("var_mean_all_correction0_f32", lambda x: tuple(torch.var_mean(x, correction=0)), lambda: (rn(3, 4),),
         "aten::var_mean.correction_out", "var_mean(x, correction=0) over all elements", (aten.var_mean.correction,),
         TOL_TRANSC)
    kept("logit_i64", torch.logit, lambda: (ri(0, 2, 2, 3),), "aten::logit.out", "logit(x) of int64 0/1 -> float32 (-inf, inf)",
         (aten.logit.default,), TOL_TRANSC)
    for p in (0.0, 1.0, 3.0, float("inf")):
        kept(f"pdist_p{'inf' if p == float('inf') else int(p)}_f32", lambda x, p=p: F.pdist(x, p),
             lambda p=p: (small_ints_f(4, 3) if p == 0 else rn(4, 3),), "aten::_pdist_forward.out", f"pdist(x, p={p})",
             (aten._pdist_forward.default,), TOL_TRANSC)
    kept("upsample_bilinear2d_aa_up_f32", lambda x: F.interpolate(x, size=(5, 7), mode="bilinear", antialias=True),
         lambda: (rn(1, 2, 3, 4),), "aten::_upsample_bilinear2d_aa.out", "interpolate(x, size=(5, 7), bilinear, antialias) grows",
         (aten._upsample_bilinear2d_aa.default,), TOL_TRANSC)
    kept("upsample_bilinear2d_aa_align_f32",
         lambda x: F.interpolate(x, size=(4, 3), mode="bilinear", antialias=True, align_corners=True),
         lambda: (rn(2, 1, 6, 8),), "aten::_upsample_bilinear2d_aa.out",
         "interpolate(x, size=(4, 3), bilinear, antialias, align_corners=True)", (aten._upsample_bilinear2d_aa.default,),
         TOL_TRANSC)
    for mode in ("bilinear", "nearest", "bicubic"):
        for pm in ("zeros", "border", "reflection"):
            for align in (False, True):
                if mode != "bilinear" and align:
                    continue
                kept(f"grid_sample_{mode}_{pm}{'_align' if align else ''}_f32",
                     lambda x, g, m=mode, pm=pm, a=align: F.grid_sample(x, g, mode=m, padding_mode=pm, align_corners=a),
                     lambda: (rn(2, 3, 4, 5), uni(2, 3, 4, 2, lo=-1.3, hi=1.3)), "aten::grid_sampler_2d.out",
                     f"grid_sample(x, grid, mode={mode}, padding_mode={pm}, align_corners={align})",
                     (aten.grid_sampler_2d.default,), TOL_TRANSC if mode != "bicubic" else TOL_BICUBIC)
    kept("grid_sample_bilinear_f64", lambda x, g: F.grid_sample(x, g, align_corners=False),
         lambda: (rn(1, 2, 4, 4, dt=F64), uni(1, 3, 3, 2, lo=-1.2, hi=1.2, dt=F64)), "aten::grid_sampler_2d.out",
         "grid_sample(x, grid), float64", (aten.grid_sampler_2d.default,), TOL_TRANSC)
    for d, f in (("left", torch.bitwise_left_shift), ("right", torch.bitwise_right_shift)):
        op = f"aten::bitwise_{d}_shift.Tensor_out"
        for dt in (I64, I32):
            kept(f"bitwise_{d}_shift_{sfx[dt]}", f, lambda dt=dt: (ri(-100, 100, 2, 3, dt=dt), ri(0, 12, 2, 3, dt=dt)), op,
                 f"bitwise_{d}_shift(x, y), {DT_NAME[dt]}", (getattr(aten, f"bitwise_{d}_shift").Tensor,))
        kept(f"bitwise_{d}_shift_i64_wide", f, lambda: (ri(-100, 100, 2, 4), torch.tensor([[0, 63, 64, 70], [-1, 1, 62, 100]])),
             op, f"bitwise_{d}_shift(x, y) with shifts past the width and negative ones, int64",
             (getattr(aten, f"bitwise_{d}_shift").Tensor,))
        kept(f"bitwise_{d}_shift_scalar_i64", lambda x, f=f: f(x, 3), lambda: (ri(-100, 100, 2, 3),),
             f"aten::bitwise_{d}_shift.Tensor_Scalar_out", f"bitwise_{d}_shift(x, 3)",
             (getattr(aten, f"bitwise_{d}_shift").Tensor_Scalar,))


def _complex() -> None:
    """view_as_real and casts on complex inputs (.npy holds complex64 and
    complex128); the edge dialect's verifier has no complex dtypes, so it is
    skipped."""
    no_check = {"export_check_ir_validity": False}

    def cx(*shape, dt=torch.complex64):
        return torch.complex(rn(*shape, dt=F64), rn(*shape, dt=F64)).to(dt)
    op = "aten::view_as_real_copy.out"
    case("view_as_real_c64", torch.view_as_real, lambda: (cx(2, 3),), op, "view_as_real(x), complex64",
         extra=no_check)
    case("view_as_real_c128", torch.view_as_real, lambda: (cx(3, 1, 2, dt=torch.complex128),), op,
         "view_as_real(x), complex128, rank 3", extra=no_check)
    case("view_as_real_t_c64", lambda x: torch.view_as_real(x.t()), lambda: (cx(3, 4),), op,
         "view_as_real(x.t()): a transposed complex input, complex64", extra=no_check)
    case("view_as_real_0d_c64", torch.view_as_real, lambda: (cx(1).reshape(()),), op, "view_as_real(x), 0-dim complex64",
         extra=no_check)
    case("add_bcast_alpha_c64", lambda x, y: torch.add(x, y, alpha=2.5), lambda: (cx(2, 3), cx(3)), "aten::add.out",
         "add(x, y, alpha=2.5), y broadcast, complex64", extra=no_check)
    case("sub_bcast_c128", lambda x, y: x - y, lambda: (cx(2, 1, 3, dt=torch.complex128), cx(4, 1, dt=torch.complex128)),
         "aten::sub.out", "x - y, both broadcast, complex128", extra=no_check)
    case("mul_bcast_c64", lambda x, y: x * y, lambda: (cx(2, 3), cx(2, 1)), "aten::mul.out",
         "x * y, y broadcast, complex64", extra=no_check)
    vc = "aten::view_as_complex_copy.out"
    case("view_as_complex_f32", torch.view_as_complex, lambda: (rn(2, 3, 2),), vc, "view_as_complex(x), float32",
         extra=no_check)
    case("view_as_complex_mul_f64", lambda x, y: torch.view_as_complex(x) * y,
         lambda: (rn(3, 2, dt=F64), cx(3, dt=torch.complex128)), vc, "view_as_complex(x) * y, float64", extra=no_check)
    cj = "aten::_conj_physical.out"
    case("conj_physical_c64", torch.conj_physical, lambda: (cx(2, 3),), cj, "conj_physical(x), complex64",
         extra=no_check)
    case("conj_physical_t_c128", lambda x: torch.conj_physical(x.t()), lambda: (cx(3, 2, dt=torch.complex128),), cj,
         "conj_physical(x.t()): a transposed input, complex128", extra=no_check)
    # casts into and between complex dtypes: parts converted one by one, a zero imaginary part from a real
    to = "dim_order_ops::_to_dim_order_copy.out"
    case("to_c64_from_f32", lambda x: x.to(torch.complex64), lambda: (rn(2, 3),), to, "x.to(complex64) from float32",
         extra=no_check)
    case("to_c128_from_c64", lambda x: x.to(torch.complex128), lambda: (cx(2, 3),), to,
         "x.to(complex128) from complex64", extra=no_check)
    case("to_c64_from_c128_t", lambda x: x.t().to(torch.complex64), lambda: (cx(3, 2, dt=torch.complex128),), to,
         "x.t().to(complex64) from complex128 (rounded part by part), transposed", extra=no_check)


# ---------------------------------------------------------------------------
# Dtype variants: for every operator, its first float32 case again with
# float16, bfloat16, uint8, int8 and int16 inputs (one tiny case per pair).
# The float32 inputs become the dtype (integers: rounded from 4x the
# values, magnitudes for uint8); bfloat16, which .npy cannot hold, crosses
# as float32 and is cast inside the program (exactly: the values are
# bfloat16 ones), with bfloat16 outputs cast back. Only the pairs that
# ExecuTorch 1.5.1's portable kernels take are kept (DTYPE_PAIRS: measured
# by running its runtime on every candidate, `--dtype-candidates`).
# ---------------------------------------------------------------------------

F16, BF16, U8, I8, I16 = torch.float16, torch.bfloat16, torch.uint8, torch.int8, torch.int16
C64, C128 = torch.complex64, torch.complex128
DTYPE_SFX = {F16: "f16", BF16: "bf16", U8: "u8", I8: "i8", I16: "i16", C64: "c64", C128: "c128"}
TOL_HALF = (2e-3, 1e-3, "float16 results: eager and pterun may round a float intermediate differently (one ulp)")
TOL_BF16 = (1.6e-2, 1e-2, "bfloat16 results: eager and pterun may round a float intermediate differently (one ulp)")


def _dtype_inputs(inputs, dt):
    def conv(t):
        if t.dtype != F32:
            return t
        if dt == BF16:
            return t.to(BF16).to(F32)
        if dt == F16:
            return t.to(F16)
        if dt in (C64, C128):
            # the real part is the float32 input, the imaginary part the same
            # values rotated by one and halved, so both parts vary
            re = t.to(F64)
            im = torch.roll(re.reshape(-1), 1).reshape(re.shape) * 0.5
            return torch.complex(re, im).to(dt)
        v = torch.round((t.abs() if dt == U8 else t) * 4)
        return v.clamp(0 if dt == U8 else -100, 100).to(dt)
    return lambda: tuple(conv(t) for t in inputs())


def _dtype_fn(fn, dt):
    if dt != BF16:
        return fn

    def run(*args):
        out = fn(*(a.to(BF16) if a.dtype == F32 else a for a in args))
        return torch.utils._pytree.tree_map(
            lambda t: t.to(F32) if isinstance(t, torch.Tensor) and t.dtype == BF16 else t, out)
    return run


def dtype_candidates() -> List[Tuple[str, str, torch.dtype]]:
    """(variant name, base case, dtype) for every operator's first float32 case."""
    seen, out = set(), []
    for s in list(_SPECS):
        a = _CASE_ARGS.get(s.name)
        if not a or a["module"] is not None or s.op in seen or not s.name.endswith("_f32"):
            continue
        seen.add(s.op)
        for dt, sfx in DTYPE_SFX.items():
            out.append((f"dt_{s.name[:-4]}_{sfx}", s.name, dt))
    return out


def _dtype_cases(only_measured: bool) -> None:
    for name, base, dt in dtype_candidates():
        if only_measured and DTYPE_SFX[dt] not in DTYPE_PAIRS.get(base, "").split():
            continue
        a = _CASE_ARGS[base]
        tol = a["tol"]
        if dt in (F16, BF16):
            tol = DTYPE_TOL.get((base, dt), TOL_HALF if dt == F16 else TOL_BF16)
        # the edge dialect's dtype tables have no complex entries: its verifier
        # is skipped for them (case.json records it)
        extra = {"export_check_ir_validity": False} if dt in (C64, C128) else None
        case(name, _dtype_fn(a["fn"], dt), _dtype_inputs(a["inputs"], dt), a["op"],
             f"{a['desc']}, {str(dt)[6:]} variant of {base}", tol, a["preserve"], a["remove_view_copy"], extra)


# base case -> the dtypes of its variants that ExecuTorch's kernels take
# (its runtime ran them). Complex (c64, c128): add and sub run on the
# parts, mul, abs, div, sum.dim_IntList and bmm have their own loops, the
# others here move elements. Left out although ExecuTorch runs them: uint8
# upsample_bilinear2d and _upsample_bilinear2d_aa, where eager computes in
# fixed point over separable passes (ExecuTorch disagrees with eager too)
# and pterun refuses uint8.
DTYPE_PAIRS: dict = {
    "abs_f32": "f16 bf16 u8 i8 i16 c64 c128", "acos_f32": "f16 bf16 u8 i8 i16", "acosh_f32": "f16 bf16 u8 i8 i16",
    "adaptive_avg_pool2d_f32": "f16 bf16", "add_f32": "f16 bf16 u8 i8 i16 c64 c128", "add_scalar_overload_f32": "f16 bf16",
    "addmm_f32": "f16 bf16 u8 i8 i16", "amax_dim_f32": "f16 bf16 u8 i8 i16", "amin_dim_f32": "f16 bf16 u8 i8 i16",
    "any_dim_f32": "f16 bf16 u8 i8 i16", "arange_f32": "f16 bf16 u8 i8 i16 c64 c128", "argmax_dim_f32": "f16 bf16 u8 i8 i16",
    "argmin_dim_f32": "f16 bf16 u8 i8 i16", "as_strided_f32": "f16 bf16 u8 i8 i16", "asin_f32": "f16 bf16 u8 i8 i16",
    "asinh_f32": "f16 bf16 u8 i8 i16", "atan2_f32": "f16 bf16 u8 i8 i16", "atan_f32": "f16 bf16 u8 i8 i16",
    "atanh_f32": "f16 bf16 u8 i8 i16", "avg_pool2d_f32": "f16 bf16", "batch_norm_f32": "f16 bf16",
    "batch_norm_no_stats_f32": "f16 bf16", "bmm_f32": "f16 bf16 u8 i8 i16 c64 c128", "cat_dim0_f32": "f16 bf16 u8 i8 i16 c64 c128",
    "ceil_f32": "f16 bf16 u8 i8 i16", "clamp_f32": "f16 bf16 u8 i8 i16", "clamp_tensor_f32": "f16 bf16 u8 i8 i16",
    "clone_f32": "f16 bf16 u8 i8 i16 c64 c128", "constant_pad_1d_f32": "f16 bf16 u8 i8 i16",
    "conv2d_f32": "f16 bf16 u8 i8 i16", "copy_broadcast_f32": "f16 bf16 u8 i8 i16",
    "copy_inplace_f32": "f16 u8 i8 i16 c64 c128", "cos_f32": "f16 bf16 u8 i8 i16", "cosh_f32": "f16 bf16 u8 i8 i16",
    "cumsum_f32": "f16 bf16 u8 i8 i16", "diagonal_f32": "f16 bf16 u8 i8 i16", "div_f32": "f16 bf16 u8 i8 i16 c64 c128",
    "div_scalar_mode_floor_f32": "f16 bf16 u8 i8 i16", "div_scalar_overload_f32": "f16 bf16 u8 i8 i16",
    "div_trunc_f32": "f16 bf16 u8 i8 i16", "elu_f32": "f16 bf16", "embedding_f32": "f16 bf16 u8 i8 i16 c64 c128",
    "eq_f32": "f16 bf16 u8 i8 i16", "eq_scalar_f32": "f16 bf16 u8 i8 i16", "erf_f32": "f16 bf16 u8 i8 i16",
    "exp_f32": "f16 bf16 u8 i8 i16", "expand_copy_f32": "f16 bf16 u8 i8 i16 c64 c128", "expm1_f32": "f16 bf16 u8 i8 i16",
    "fill_scalar_f32": "f16 bf16 u8 i8 i16", "fill_tensor_f32": "f16 bf16 u8 i8 i16",
    "flip_f32": "f16 bf16 u8 i8 i16", "floor_f32": "f16 bf16 u8 i8 i16", "fmod_f32": "f16 bf16 u8 i8 i16",
    "full_f32": "f16 bf16 u8 i8 i16 c64 c128", "full_like_f32": "f16 bf16 u8 i8 i16", "gather_dim1_f32": "f16 bf16 u8 i8 i16",
    "ge_f32": "f16 bf16 u8 i8 i16", "ge_scalar_f32": "f16 bf16 u8 i8 i16", "gelu_f32": "f16 bf16",
    "glu_f32": "f16 bf16", "grid_sample_bilinear_zeros_f32": "f16 bf16", "group_norm_f32": "f16 bf16",
    "gt_f32": "f16 bf16 u8 i8 i16", "gt_scalar_f32": "f16 bf16 u8 i8 i16", "hardtanh_f32": "f16 bf16 i8 i16",
    "index_put_f32": "f16 bf16 u8 i8 i16", "index_select_dim0_f32": "f16 bf16 u8 i8 i16 c64 c128",
    "index_tensor_f32": "f16 bf16 u8 i8 i16 c64 c128", "isinf_f32": "f16 bf16 u8 i8 i16", "isnan_f32": "f16 bf16 u8 i8 i16",
    "layer_norm_f32": "f16 bf16", "le_f32": "f16 bf16 u8 i8 i16", "le_scalar_f32": "f16 bf16 u8 i8 i16",
    "leaky_relu_f32": "f16 bf16", "linear_kept_f32": "f16 bf16 u8 i8 i16", "log10_f32": "f16 bf16 u8 i8 i16",
    "log1p_f32": "f16 bf16 u8 i8 i16", "log2_f32": "f16 bf16 u8 i8 i16", "log_f32": "f16 bf16 u8 i8 i16",
    "log_softmax_lastdim_f32": "f16 bf16", "logical_and_f32": "f16 bf16 u8 i8 i16",
    "logical_not_f32": "f16 bf16 u8 i8 i16", "logical_or_f32": "f16 bf16 u8 i8 i16",
    "logical_xor_f32": "f16 bf16 u8 i8 i16", "logit_f32": "u8 i8 i16", "lt_f32": "f16 bf16 u8 i8 i16",
    "lt_scalar_f32": "f16 bf16 u8 i8 i16", "masked_fill_f32": "f16 bf16 i8 i16",
    "masked_scatter_f32": "f16 bf16 u8 i8 i16", "max_all_f32": "f16 bf16 u8 i8 i16",
    "max_dim_f32": "f16 bf16 u8 i8 i16", "max_pool2d_f32": "f16 bf16 u8 i8 i16", "maximum_f32": "f16 bf16 u8 i8 i16",
    "mean_all_f32": "f16 bf16", "mean_dim_f32": "f16 bf16", "min_dim_keepdim_f32": "f16 bf16 u8 i8 i16",
    "minimum_f32": "f16 bf16 u8 i8 i16", "mm_f32": "f16 bf16 u8 i8 i16", "mul_f32": "f16 bf16 u8 i8 i16 c64 c128",
    "mul_scalar_overload_f32": "f16 bf16 u8 i8 i16", "narrow_copy_kept_f32": "f16 bf16 u8 i8 i16 c64 c128",
    "ne_f32": "f16 bf16 u8 i8 i16", "ne_scalar_f32": "f16 bf16 u8 i8 i16", "neg_f32": "f16 bf16 u8 i8 i16",
    "permute_copy_f32": "f16 bf16 u8 i8 i16 c64 c128", "pixel_shuffle_f32": "f16 bf16 u8 i8 i16 c64 c128",
    "pixel_unshuffle_f32": "f16 bf16 u8 i8 i16 c64 c128", "pow_scalar_f32": "f16 bf16 u8 i8 i16",
    "pow_ts_f32": "f16 bf16 u8 i8 i16", "pow_tt_f32": "f16 bf16 u8 i8 i16", "prod_all_f32": "f16 bf16 u8 i8 i16",
    "prod_dim_f32": "f16 bf16 u8 i8 i16", "reciprocal_f32": "f16 bf16 u8 i8 i16",
    "reflection_pad1d_f32": "f16 bf16 u8 i8 i16 c64 c128", "reflection_pad2d_f32": "f16 bf16 u8 i8 i16 c64 c128",
    "reflection_pad3d_f32": "f16 bf16 u8 i8 i16 c64 c128", "relu_f32": "f16 bf16 u8 i8 i16",
    "remainder_f32": "f16 bf16 u8 i8 i16", "repeat_f32": "f16 bf16 u8 i8 i16 c64 c128",
    "replication_pad1d_f32": "f16 bf16 u8 i8 i16 c64 c128", "replication_pad2d_f32": "f16 bf16 u8 i8 i16 c64 c128",
    "replication_pad3d_f32": "f16 bf16 u8 i8 i16 c64 c128", "roll_kept_f32": "f16 bf16 u8 i8 i16",
    "round_f32": "f16 bf16 u8 i8 i16", "rsqrt_f32": "f16 bf16 u8 i8 i16",
    "rsub_scalar_overload_f32": "f16 bf16 u8 i8 i16", "scalar_tensor_f32": "f16 bf16 u8 i8 i16",
    "scatter_add_f32": "f16 bf16 u8 i8 i16", "scatter_src_f32": "f16 bf16 u8 i8 i16",
    "scatter_value_f32": "f16 bf16 u8 i8 i16", "select_copy_f32": "f16 bf16 u8 i8 i16 c64 c128",
    "select_scatter_f32": "f16 bf16 u8 i8 i16", "sigmoid_f32": "f16 bf16 u8 i8 i16", "sign_f32": "f16 bf16 u8 i8 i16",
    "sin_f32": "f16 bf16 u8 i8 i16", "sinh_f32": "f16 bf16 u8 i8 i16", "slice_copy_f32": "f16 bf16 u8 i8 i16 c64 c128",
    "slice_scatter_f32": "f16 bf16 u8 i8 i16", "softmax_lastdim_f32": "f16 bf16",
    "split_tensor_f32": "f16 bf16 u8 i8 i16", "split_with_sizes_f32": "f16 bf16 u8 i8 i16",
    "sqrt_f32": "f16 bf16 u8 i8 i16", "squeeze_copy_dim_f32": "f16 bf16 u8 i8 i16 c64 c128",
    "squeeze_dim_f32": "f16 bf16 u8 i8 i16", "stack_kept_f32": "f16 bf16 u8 i8 i16", "sub_f32": "f16 bf16 u8 i8 i16 c64 c128",
    "sub_scalar_overload_f32": "f16 bf16 u8 i8 i16", "sum_dim_f32": "f16 bf16 u8 i8 i16 c64 c128",
    "t_f32": "f16 bf16 u8 i8 i16", "tan_f32": "f16 bf16 u8 i8 i16", "tanh_f32": "f16 bf16 u8 i8 i16",
    "to_f64_to_f32": "f16 bf16 u8 i8 i16", "topk_f32": "f16 bf16 u8 i8 i16",
    "transpose_kept_f32": "f16 bf16 u8 i8 i16", "tril_f32": "f16 bf16 u8 i8 i16", "trunc_f32": "f16 bf16 u8 i8 i16",
    "unbind_kept_f32": "f16 bf16 u8 i8 i16", "unfold_f32": "f16 bf16 u8 i8 i16",
    "unsqueeze_copy_f32": "f16 bf16 u8 i8 i16 c64 c128", "upsample_bilinear2d_f32": "f16 bf16",
    "upsample_nearest2d_scale2_f32": "f16 bf16 u8", "var_dim_f32": "f16 bf16", "var_dim_unbiased_f32": "f16 bf16",
    "var_mean_f32": "f16 bf16", "view_copy_f32": "f16 bf16 u8 i8 i16 c64 c128", "where_f32": "f16 bf16 u8 i8 i16",
}

# Variants whose reference is less precise than the kernels: eager's
# grid_sampler_2d computes the sampling coordinates in float16/bfloat16
# (ExecuTorch's kernel differs from eager by the same amount as pterun's).
DTYPE_TOL = {
    ("grid_sample_bilinear_zeros_f32", F16): (2e-2, 1e-2, "eager computes grid_sample's coordinates in float16"),
    ("grid_sample_bilinear_zeros_f32", BF16): (5e-2, 3e-2, "eager computes grid_sample's coordinates in bfloat16"),
}


def build_op_specs() -> List[Spec]:
    # PTERUN_ZOO_DTYPE_CANDIDATES=1: every dtype variant, to measure DTYPE_PAIRS
    dtype_candidates = os.environ.get("PTERUN_ZOO_DTYPE_CANDIDATES") == "1"
    if not _SPECS:
        _binary_arith()
        _division()
        _pow()
        _unary()
        _binary_extra()
        _comparison()
        _reductions()
        _matrix()
        _nn()
        _shape()
        _creation()
        _copies()
        _kept_ops()
        _more_ops()
        _complex()
        _dtype_cases(not dtype_candidates)
    return list(_SPECS)


# Operators (name.overload) the C runtime needs; each must be the "op" of at
# least one ops case whose program really contains it.
REQUIRED_OPS = [
    "aten::add.out", "aten::sub.out", "aten::mul.out", "aten::div.out", "aten::div.out_mode",
    "aten::pow.Tensor_Tensor_out", "aten::pow.Tensor_Scalar_out",
    "aten::neg.out", "aten::abs.out", "aten::sqrt.out", "aten::rsqrt.out", "aten::exp.out", "aten::log.out",
    "aten::sin.out", "aten::cos.out", "aten::tanh.out", "aten::sigmoid.out", "aten::relu.out", "aten::gelu.out",
    "aten::hardtanh.out", "aten::clamp.out", "aten::hardswish.out", "aten::silu.out", "aten::leaky_relu.out",
    "aten::eq.Tensor_out", "aten::eq.Scalar_out", "aten::ne.Tensor_out", "aten::ne.Scalar_out",
    "aten::lt.Tensor_out", "aten::lt.Scalar_out", "aten::le.Tensor_out", "aten::le.Scalar_out",
    "aten::gt.Tensor_out", "aten::gt.Scalar_out", "aten::ge.Tensor_out", "aten::ge.Scalar_out",
    "aten::logical_and.out", "aten::logical_or.out", "aten::logical_not.out", "aten::where.self_out",
    "aten::sum.IntList_out", "aten::mean.out", "aten::amax.out", "aten::amin.out", "aten::argmax.out",
    "aten::argmin.out", "aten::any.out",
    "aten::mm.out", "aten::addmm.out", "aten::bmm.out",
    "aten::convolution.out", "aten::max_pool2d_with_indices.out", "aten::avg_pool2d.out",
    "aten::_adaptive_avg_pool2d.out", "aten::native_layer_norm.out",
    "aten::_native_batch_norm_legit_no_training.out", "aten::_softmax.out", "aten::_log_softmax.out",
    "aten::embedding.out", "aten::constant_pad_nd.out", "aten::upsample_nearest2d.vec_out",
    "aten::view_copy.out", "aten::permute_copy.out", "aten::expand_copy.out", "aten::cat.out",
    "aten::slice_copy.Tensor_out", "aten::select_copy.int_out", "aten::squeeze_copy.dims_out",
    "aten::unsqueeze_copy.out", "aten::split_with_sizes_copy.out", "aten::index_select.out",
    "aten::gather.out", "aten::index.Tensor_out",
    "aten::full.out", "aten::full_like.out", "aten::arange.start_out", "aten::scalar_tensor.out",
    "dim_order_ops::_clone_dim_order.out", "dim_order_ops::_to_dim_order_copy.out",
    "aten::reflection_pad1d.out", "aten::reflection_pad2d.out", "aten::reflection_pad3d.out",
    "aten::replication_pad1d.out", "aten::replication_pad2d.out", "aten::replication_pad3d.out",
    "aten::glu.out", "aten::logit.out", "aten::var_mean.correction_out", "aten::grid_sampler_2d.out",
    "aten::_upsample_bilinear2d_aa.out", "aten::bitwise_left_shift.Tensor_out",
    "aten::bitwise_left_shift.Tensor_Scalar_out", "aten::bitwise_right_shift.Tensor_out",
    "aten::bitwise_right_shift.Tensor_Scalar_out", "aten::_pdist_forward.out", "aten::view_as_real_copy.out",
]

# Variants the brief asks for explicitly (case names that must exist).
REQUIRED_CASES = [
    "div_trunc_f32", "div_floor_f32", "div_trunc_i64", "div_floor_i64",
    "gelu_f32", "gelu_tanh_f32",
    "conv2d_f32", "conv2d_stride_pad_f32", "conv2d_grouped_f32", "conv2d_depthwise_f32", "conv2d_dilated_f32", "conv1d_f32",
    "avg_pool2d_pad_exclude_f32", "avg_pool2d_ceil_f32", "adaptive_avg_pool2d_f32",
    "add_f32_broadcast", "add_i64_f32_promote", "sum_dim_keepdim_f64", "sum_dim_i64", "any_dim_bool",
]
