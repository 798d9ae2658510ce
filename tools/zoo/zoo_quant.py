"""Quantized programs (group `quantized`): the quantized_decomposed:: operators
ExecuTorch 1.5.1's quantized kernels register, called directly with edge
values (rounding ties, clamping, every quant dtype, hostile-looking but valid
ranges), and whole models quantized the way ExecuTorch's docs do it (PT2E with
XNNPACKQuantizer: static per-channel on a tiny CNN, dynamic on linears),
not delegated.

Expected outputs are ExecuTorch's own runtime's (`expected_from` in the
spec's extra): int8 arithmetic differs from the fake-quantized eager graph.
Tolerances are stated in quantization steps: integer outputs must match
exactly, float outputs of pure quantize/dequantize chains too (the arithmetic
is specified to the bit), float outputs behind float32 operators (convolution,
matrix products, whose summation order differs between runtimes and may flip
a rounding) within the steps given in the description.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np
import torch

import executorch.kernels.quantized  # noqa: F401  (ExecuTorch's runtime and export need its out variants)
import executorch.exir.passes._quant_patterns_and_replacements  # noqa: F401  (embedding/mixed/add ops)

from zoo_common import F32, I64, Built, CaseIO, FnModule, Spec

qd = torch.ops.quantized_decomposed
GROUP = "quantized"
EXPECTED = {"expected_from": "executorch runtime"}
_SPECS: List[Spec] = []


def _register_reference_impls() -> None:
    """mixed_mm, mixed_linear and add have schemas but no eager kernel in
    torch; the exporter needs one (eager outputs are only compared, the
    expected ones come from ExecuTorch's runtime).

    quantize/dequantize_per_channel_group have no case: ExecuTorch 1.5.1
    registers no out variant for them, so no program can hold them (the
    exporter stops with "Missing out variants"); groups are covered by the
    embeddings' and mixed_linear's group scales."""
    lib = torch.library.Library("quantized_decomposed", "IMPL")

    def mixed_mm(x, w, s, zp):
        return x @ (w.to(x.dtype) * s[:, None])

    def mixed_linear(x, w, s, zp, dtype=None):
        k = w.shape[1]
        if s.dim() == 2:
            g = -(-k // s.shape[1])
            sc = s.repeat_interleave(g, dim=1)[:, :k]
        else:
            sc = s[:, None]
        y = x @ (w.to(x.dtype) * sc).t()
        return y.to(dtype) if dtype is not None else y

    def add(a, sa, za, mina, maxa, b, sb, zb, minb, maxb, so, zo, mino, maxo):
        x = (a.to(torch.float32) - za) * sa + (b.to(torch.float32) - zb) * sb
        return torch.clamp(torch.round(x / so) + zo, mino, maxo).to(a.dtype)

    for name, fn in (("mixed_mm", mixed_mm), ("mixed_linear", mixed_linear), ("add", add)):
        try:
            lib.impl(name, fn, "CompositeExplicitAutograd")
        except RuntimeError:
            pass  # registered already (a second import in one process)
    _register_reference_impls.lib = lib  # keep the registration alive


_register_reference_impls()


def _spec(name: str, build: Callable[[], Built], desc: str, atol: float = 0.0, reason: Optional[str] = None) -> None:
    _SPECS.append(Spec(group=GROUP, name=name, build=build, description=desc, rtol=0.0, atol=atol,
                       tolerance_reason=reason or ("quantization steps: 0 (exact); the int8 arithmetic is "
                                                   "specified to the bit"), extra=dict(EXPECTED)))


def _fn_case(name: str, fn: Callable[..., Any], inputs: Callable[[], Tuple[torch.Tensor, ...]], desc: str,
             module: Optional[Callable[[], torch.nn.Module]] = None) -> None:
    def build() -> Built:
        ins = tuple(inputs())
        mod = module() if module is not None else FnModule(fn)
        return Built(methods={"forward": (mod, ins, None)}, cases=[CaseIO(name, "forward", ins, desc)])

    _spec(name, build, desc + ". Tolerance: 0 quantization steps (exact)")


# ---------------------------------------------------------------------------
# Operators
# ---------------------------------------------------------------------------


def _ties(*shape: int) -> torch.Tensor:
    """Multiples of 1/8 (exact in float32): with scale 0.25, half of them are
    rounding ties (x/scale = n + 0.5), and the range passes the quant ranges."""
    return torch.randint(-600, 600, shape).to(F32) / 8.0


def _per_tensor(x: torch.Tensor):
    q_u8 = qd.quantize_per_tensor(x, 0.25, 7, 0, 255, torch.uint8)
    q_i8 = qd.quantize_per_tensor(x, 0.25, -3, -100, 100, torch.int8)  # a narrowed range clamps
    q_i16 = qd.quantize_per_tensor(x, 0.001, 10, -32768, 32767, torch.int16)
    q_i32 = qd.quantize_per_tensor(x, 1e-4, -5, -(2 ** 31), 2 ** 31 - 1, torch.int32)
    dq_i8 = qd.dequantize_per_tensor(q_i8, 0.25, -3, -100, 100, torch.int8)
    dq_i16 = qd.dequantize_per_tensor(q_i16, 0.001, 10, -32768, 32767, torch.int16)
    dq_i32 = qd.dequantize_per_tensor(q_i32, 1e-4, -5, -(2 ** 31), 2 ** 31 - 1, torch.int32)
    return q_u8, q_i8, q_i16, q_i32, dq_i8, dq_i16, dq_i32


def _tensor_args(x: torch.Tensor):
    s, z = qd.choose_qparams.tensor(x, -128, 127, 1e-5, torch.int8)
    q = qd.quantize_per_tensor.tensor(x, s, z, -128, 127, torch.int8)
    dq = qd.dequantize_per_tensor.tensor(q, s, z, -128, 127, torch.int8)
    su, zu = qd.choose_qparams.tensor(x.abs(), 0, 255, 1e-5, torch.uint8)  # all positive: zero point at qmin
    qu = qd.quantize_per_tensor.tensor(x.abs(), su, zu, 0, 255, torch.uint8)
    return s, z, q, dq, su, zu, qu


class _PerChannel(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("scales", torch.tensor([0.05, 0.25, 0.01, 1.5], dtype=torch.float64))
        self.register_buffer("zps", torch.tensor([0, -7, 20, 3], dtype=I64))
        self.register_buffer("scales_u8", torch.rand(5, dtype=torch.float64) * 0.1 + 0.01)
        self.register_buffer("zps_u8", torch.randint(0, 255, (5,), dtype=I64))

    def forward(self, x: torch.Tensor):
        q = qd.quantize_per_channel(x, self.scales, self.zps, 1, -128, 127, torch.int8)
        dq = qd.dequantize_per_channel(q, self.scales, self.zps, 1, -128, 127, torch.int8)
        dq0 = qd.dequantize_per_channel(q, self.scales, None, 1, -128, 127, torch.int8)  # no zero points
        qu = qd.quantize_per_channel(x, self.scales_u8, self.zps_u8, -1, 0, 255, torch.uint8)  # negative axis
        dqu = qd.dequantize_per_channel(qu, self.scales_u8, self.zps_u8, -1, 0, 255, torch.uint8)
        return q, dq, dq0, qu, dqu


def _per_token_inputs() -> Tuple[torch.Tensor]:
    x = torch.randn(2, 4, 16)
    x[0, 1] = torch.rand(16) * 1e-5  # a tiny range: the scale floor (6.1e-5) applies
    x[1, 2] = torch.rand(16) + 0.5  # all positive
    x[1, 3] = -torch.rand(16) - 0.5  # all negative
    x[0, 3] = 0.0  # all zero
    return (x,)


def _per_token(x: torch.Tensor):
    s, z = qd.choose_qparams_per_token_asymmetric(x, torch.int8)
    q = qd.quantize_per_token(x, s, z, -128, 127, torch.int8)
    dq = qd.dequantize_per_token(q, s, z, -128, 127, torch.int8, torch.float32)
    return s, z, q, dq


def _pack(q: torch.Tensor, bits: int) -> torch.Tensor:
    """ExecuTorch's packing of 4-bit (even element high nibble) and 2-bit
    (element 0 lowest) tables, stored unsigned with offsets 8 and 2."""
    u = (q.to(torch.int32) + (1 << (bits - 1))).to(torch.uint8)
    if bits == 4:
        return (u[:, 0::2] << 4) | u[:, 1::2]
    return u[:, 0::4] | (u[:, 1::4] << 2) | (u[:, 2::4] << 4) | (u[:, 3::4] << 6)


class _Embeddings(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        v, d = 10, 16
        self.register_buffer("w8", torch.randint(-128, 128, (v, d), dtype=torch.int8))
        self.register_buffer("s8", torch.rand(v) * 0.05 + 0.01)
        self.register_buffer("z8", torch.randint(-5, 5, (v,)).to(F32))
        self.register_buffer("s8g", (torch.rand(v, 4) * 0.05 + 0.01).to(torch.float16))  # groups of 4, fp16
        self.register_buffer("w4", _pack(torch.randint(-8, 8, (v, d)), 4))
        self.register_buffer("s4", torch.rand(v, 2) * 0.1 + 0.01)
        self.register_buffer("z4", torch.randint(-2, 3, (v, 2)).to(F32))
        self.register_buffer("w2", _pack(torch.randint(-2, 2, (v, d)), 2))
        self.register_buffer("s2", torch.rand(v) * 0.3 + 0.05)

    def forward(self, idx: torch.Tensor):
        e8 = qd.embedding_byte(self.w8, self.s8, self.z8, -128, 127, idx)
        e8g = qd.embedding_byte.dtype(self.w8, self.s8g, None, -128, 127, idx, dtype=torch.float32)
        e4 = qd.embedding_4bit(self.w4, self.s4, self.z4, -8, 7, idx)
        e4d = qd.embedding_4bit.dtype(self.w4, self.s4, None, -8, 7, idx, dtype=torch.float32)
        e2 = qd.embedding_2bit(self.w2, self.s2, None, -2, 1, idx)
        e2d = qd.embedding_2bit.dtype(self.w2, self.s2.to(torch.float16), None, -2, 1, idx, dtype=torch.float32)
        return e8, e8g, e4, e4d, e2, e2d


class _Mixed(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("w_mm", torch.randint(-128, 128, (12, 5), dtype=torch.int8))
        self.register_buffer("s_mm", torch.rand(12) * 0.02 + 0.005)
        self.register_buffer("w_lin", torch.randint(-128, 128, (6, 12), dtype=torch.int8))
        self.register_buffer("s_lin", torch.rand(6) * 0.02 + 0.005)
        self.register_buffer("s_grp", torch.rand(6, 3) * 0.02 + 0.005)  # groups of 4

    def forward(self, x: torch.Tensor):
        mm = qd.mixed_mm(x, self.w_mm, self.s_mm, None)
        lin = qd.mixed_linear(x, self.w_lin, self.s_lin, None)
        grp = qd.mixed_linear(x, self.w_lin, self.s_grp, None, torch.float32)
        return mm, lin, grp


def _add(a: torch.Tensor, b: torch.Tensor):
    return qd.add(a, 0.05, 128, 0, 255, b, 0.02, 100, 0, 255, 0.06, 120, 10, 250)  # a narrowed out range clamps


def _ops() -> None:
    _fn_case("quantize_per_tensor", _per_tensor, lambda: (_ties(4, 16),),
             "quantize_per_tensor.out into uint8, int8 (narrowed range [-100, 100]), int16, int32 and "
             "dequantize_per_tensor.out back: inputs are multiples of 1/8, so scale 0.25 makes rounding ties "
             "(half to even), and values beyond every range clamp")
    _fn_case("quantize_tensor_args", _tensor_args, lambda: (torch.randn(3, 10) * 2,),
             "choose_qparams.Tensor_out (int8, and uint8 on an all-positive input) feeding the "
             ".Tensor_out overloads of quantize_per_tensor and dequantize_per_tensor")
    _fn_case("quantize_per_channel", None, lambda: (torch.randn(3, 4, 5) * 3,),
             "quantize_per_channel.out / dequantize_per_channel.out on axis 1 (int8, with and without zero "
             "points) and axis -1 (uint8)", module=_PerChannel)
    _fn_case("quantize_per_token", _per_token, _per_token_inputs,
             "choose_qparams_per_token_asymmetric.out, quantize_per_token.out, dequantize_per_token.out on "
             "tokens with a tiny range (the scale floor), all-positive, all-negative and all-zero rows")
    _fn_case("embedding_quantized", None, lambda: (torch.tensor([[0, 9, 3], [3, 5, 1]], dtype=I64),),
             "embedding_byte (int8, per-row scales and zero points; .dtype with float16 group scales), "
             "embedding_4bit (packed, group scales and zero points; .dtype), embedding_2bit (.out, .dtype with "
             "float16 scales)", module=_Embeddings)
    _fn_case("mixed_linear", None, lambda: (torch.randn(3, 12),),
             "mixed_mm.out (int8 weight [K, N], scale per K row) and mixed_linear.out (int8 weight [N, K], "
             "per-row scales, and groups of 4 with dtype given)", module=_Mixed)
    _fn_case("add_quantized", _add,
             lambda: (torch.randint(0, 256, (4, 8), dtype=torch.uint8), torch.randint(0, 256, (4, 8), dtype=torch.uint8)),
             "quantized_decomposed::add.out on uint8 with three sets of parameters, the output range narrowed to "
             "[10, 250] so sums clamp")


# ---------------------------------------------------------------------------
# Models quantized with PT2E + XNNPACKQuantizer (not delegated)
# ---------------------------------------------------------------------------


class _TinyCNN(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.c2 = torch.nn.Conv2d(8, 8, 3, stride=2, padding=1)
        self.fc = torch.nn.Linear(8, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.c1(x))
        x = torch.relu(self.c2(x))
        x = torch.nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


class _MLP(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.l1 = torch.nn.Linear(16, 24)
        self.l2 = torch.nn.Linear(24, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.l2(torch.relu(self.l1(x)))


class _QuantArgs(torch.nn.Module):
    """Two linears around a CLS-token-like expand: the partitioner keeps the
    expand (on int8) outside, so one delegate returns qint8 tensors and the
    next one takes them (ViT's int8 file has the same pattern)."""

    def __init__(self) -> None:
        super().__init__()
        self.l1 = torch.nn.Linear(8, 8)
        self.l2 = torch.nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.l1(x)
        cls = h[:, :1].expand(1, 3, 8)
        return self.l2(torch.cat([cls, h], 1))


def _pt2e(model: torch.nn.Module, example: Tuple[torch.Tensor, ...], dynamic: bool) -> torch.nn.Module:
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer,
        get_symmetric_quantization_config,
    )
    from torchao.quantization.pt2e import allow_exported_model_train_eval
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    q = XNNPACKQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=True, is_dynamic=dynamic))
    gm = torch.export.export(model.eval(), example).module()
    gm = prepare_pt2e(gm, q)
    for _ in range(4):  # calibration (static) / a trace (dynamic)
        gm(*[t + 0.1 * torch.randn_like(t) for t in example])
    gm(*example)
    return allow_exported_model_train_eval(convert_pt2e(gm))  # the exporter calls eval()


def _last_output_scale(gm: torch.nn.Module) -> float:
    """The scale of the dequantize that produces the graph's output."""
    out = [n for n in gm.graph.nodes if n.op == "output"][0]
    node = out.args[0][0] if isinstance(out.args[0], (tuple, list)) else out.args[0]
    while "dequantize" not in str(node.target):
        node = node.args[0]
    return float(node.args[1])


def _exact() -> None:
    """The last spec, delegated to XNNPACK, must give ExecuTorch's bits: pterun's
    int8 products follow XNNPACK's arithmetic (kernels/layer/qgemm.h); the
    tolerance stays for the ExecuTorch of another CPU (its kernels differ)."""
    _SPECS[-1].xnnpack = True
    _SPECS[-1].extra["executorch_exact"] = True


def _models() -> None:
    steps = 2

    def cnn(name: str = "pt2e_static_cnn", how: str = "not delegated") -> Built:
        model = _TinyCNN()
        x = torch.randn(1, 3, 8, 8)
        gm = _pt2e(model, (x,), dynamic=False)
        _models.cnn_step = _last_output_scale(gm)
        desc = (f"tiny CNN (conv-relu-conv-relu-pool-linear) quantized with PT2E XNNPACKQuantizer, static "
                f"per-channel int8, {how}. Tolerance: {steps} quantization steps of the output "
                f"(scale {_models.cnn_step:.6g}): float32 convolutions and products sum in another order than "
                f"ExecuTorch's and may flip a rounding")
        return Built(methods={"forward": (gm, (x,), None)}, cases=[CaseIO(name, "forward", (x,), desc)])

    def cnn_xnnpack() -> Built:
        return cnn("pt2e_static_cnn_xnnpack", "delegated to XNNPACK (XnnpackPartitioner: int8 convolutions, "
                   "fully connected, global average pooling and converts in one delegate)")

    def quant_args() -> Built:
        model = _QuantArgs()
        x = torch.randn(1, 4, 8)
        gm = _pt2e(model, (x,), dynamic=False)
        _models.qargs_step = _last_output_scale(gm)
        desc = (f"two linears around an expand, PT2E XNNPACKQuantizer static per-channel int8, delegated to "
                f"XNNPACK: the expand stays outside on int8, so the first delegate returns two qint8 tensors "
                f"and the second takes qint8 arguments. Tolerance: {steps} quantization steps of the output "
                f"(scale {_models.qargs_step:.6g})")
        return Built(methods={"forward": (gm, (x,), None)}, cases=[CaseIO("pt2e_quant_args_xnnpack", "forward", (x,), desc)])

    def mlp(name: str = "pt2e_dynamic_linear", how: str = "not delegated") -> Built:
        model = _MLP()
        x = torch.randn(4, 16)
        gm = _pt2e(model, (x,), dynamic=True)
        with torch.no_grad():
            y = model(x)
        _models.mlp_step = float(y.abs().max()) / 127.0
        desc = (f"two linears quantized with PT2E XNNPACKQuantizer, dynamic per-token int8 activations and "
                f"per-channel int8 weights, {how}. Tolerance: {steps} quantization steps of an int8 "
                f"grid over the output's range (step {_models.mlp_step:.6g}), for the float32 products")
        return Built(methods={"forward": (gm, (x,), None)}, cases=[CaseIO(name, "forward", (x,), desc)])

    def mlp_xnnpack() -> Built:
        return mlp("pt2e_dynamic_linear_xnnpack", "delegated to XNNPACK (qdint8 fully connected nodes, which "
                   "pterun runs on its int8 product)")

    def mlp_8da4w() -> Built:
        from torchao.quantization import quantize_
        from torchao.quantization.granularity import PerGroup
        from torchao.quantization.quant_api import Int8DynamicActivationIntxWeightConfig

        model = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8)).eval()
        x = torch.randn(3, 64)
        quantize_(model, Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int4,
                                                               weight_granularity=PerGroup(32)))
        with torch.no_grad():
            y = model(x)
        _models.w4_step = float(y.abs().max()) / 127.0
        desc = (f"two linears with 8-bit dynamic activations and 4-bit weights in groups of 32 (torchao "
                f"Int8DynamicActivationIntxWeightConfig, the 8da4w of ExecuTorch's LLM exports), delegated to "
                f"XNNPACK (qdint8 x qbint4 fully connected nodes). Tolerance: {steps} quantization steps of an "
                f"int8 grid over the output's range (step {_models.w4_step:.6g})")
        return Built(methods={"forward": (model, (x,), None)}, cases=[CaseIO("w8da4w_linear_xnnpack", "forward", (x,), desc)])

    # Tolerances need the model's scales: computed once here (seeded like the export).
    from zoo_common import seed_for

    for name, build in (("pt2e_static_cnn", cnn), ("pt2e_dynamic_linear", mlp), ("w8da4w_linear_xnnpack", mlp_8da4w),
                        ("pt2e_quant_args_xnnpack", quant_args)):
        torch.manual_seed(seed_for(name))
        np.random.seed(seed_for(name))
        build()
    _spec("pt2e_static_cnn", cnn, "tiny CNN, PT2E static per-channel int8, not delegated",
          atol=steps * _models.cnn_step * 1.001,
          reason=f"{steps} quantization steps of the output scale: float32 sums in another order may flip a rounding")
    _spec("pt2e_static_cnn_xnnpack", cnn_xnnpack, "the same tiny CNN, PT2E static per-channel int8, delegated to XNNPACK",
          atol=steps * _models.cnn_step * 1.001,
          reason=f"{steps} quantization steps of the output scale: float32 sums in another order may flip a rounding")
    _exact()
    _SPECS[-1].seed_key = "pt2e_static_cnn"  # same weights and inputs as the plain case
    _spec("pt2e_dynamic_linear", mlp, "two linears, PT2E dynamic int8, not delegated",
          atol=steps * _models.mlp_step,
          reason=f"{steps} steps of an int8 grid over the output range: dynamic activation scales times float32 sums")
    _spec("pt2e_dynamic_linear_xnnpack", mlp_xnnpack, "the same two linears, PT2E dynamic int8, delegated to XNNPACK",
          atol=steps * _models.mlp_step,
          reason=f"{steps} steps of an int8 grid over the output range: dynamic activation scales times float32 sums")
    _exact()
    _SPECS[-1].seed_key = "pt2e_dynamic_linear"  # same weights and inputs as the plain case
    _spec("pt2e_quant_args_xnnpack", quant_args, "qint8 delegate outputs and inputs (an int8 expand between two delegates)",
          atol=steps * _models.qargs_step * 1.001,
          reason=f"{steps} quantization steps of the output scale: float32 sums in another order may flip a rounding")
    _exact()
    _spec("w8da4w_linear_xnnpack", mlp_8da4w, "two 8da4w linears (groups of 32), delegated to XNNPACK",
          atol=steps * _models.w4_step,
          reason=f"{steps} steps of an int8 grid over the output range: dynamic activation scales times float32 sums")
    _exact()


class _AddMul(torch.nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a * b + a


def _fp16() -> None:
    """Half-precision models (`model.half()`, fp16 inputs) through
    XnnpackPartitioner: fp16 values, constants and arguments in the payload.
    pterun computes them in fp32 and rounds at the delegate's boundary;
    ExecuTorch's XNNPACK computes in fp16. Expected outputs are ExecuTorch's;
    the tolerance is in fp16 units in the last place of the largest output."""
    from zoo_common import seed_for

    ulps = 4
    cases = {
        "fp16_linear_xnnpack": ("a linear layer", lambda: torch.nn.Linear(8, 4), lambda: (torch.randn(2, 8),)),
        "fp16_conv_xnnpack": ("a 3x3 convolution and ReLU",
                              lambda: torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.ReLU()),
                              lambda: (torch.randn(1, 3, 6, 6),)),
        "fp16_add_mul_xnnpack": ("a * b + a", _AddMul, lambda: (torch.randn(3, 5), torch.randn(3, 5))),
        "fp16_mlp_xnnpack": ("two linears with a ReLU",
                             lambda: torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4)),
                             lambda: (torch.randn(3, 8),)),
    }
    for name, (what, make, inputs) in cases.items():
        def build(name: str = name, what: str = what, make: Callable = make, inputs: Callable = inputs) -> Built:
            model = make().half().eval()
            ins = tuple(t.half() for t in inputs())
            desc = (f"{what} in half precision (model.half(), fp16 inputs) delegated to XNNPACK: fp16 values, "
                    f"constants and arguments; pterun runs it in fp32 and rounds at the delegate's boundary. "
                    f"Tolerance: {ulps} fp16 ulps of the largest output (ExecuTorch computes in fp16)")
            return Built(methods={"forward": (model, ins, None)}, cases=[CaseIO(name, "forward", ins, desc)])

        torch.manual_seed(seed_for(name))
        np.random.seed(seed_for(name))
        built = build()
        mod, ins, _ = built.methods["forward"]
        with torch.no_grad():
            y = mod.float()(*[t.float() for t in ins])
        ulp = float(np.spacing(np.float16(float(y.abs().max()))))
        _spec(name, build, f"{what}, fp16, delegated to XNNPACK", atol=ulps * ulp,
              reason=f"{ulps} fp16 ulps of the largest output ({ulp:.3g}): ExecuTorch's XNNPACK computes in fp16, "
                     f"pterun in fp32")
        _SPECS[-1].xnnpack = True


def build_quant_specs() -> List[Spec]:
    if not _SPECS:
        _ops()
        _models()
        _fp16()
    return list(_SPECS)


def expected_from_executorch(pte: bytes, ptd: Optional[bytes], method: str, inputs: Sequence[torch.Tensor],
                             eager: List[np.ndarray]) -> Tuple[List[np.ndarray], str]:
    """ExecuTorch's runtime outputs for one case (the expected outputs of a
    quantized case), and a note on how far the fake-quantized eager graph is."""
    import os
    import tempfile

    from export_zoo import _run_executorch

    with tempfile.TemporaryDirectory() as td:
        p = os.path.join(td, "model.pte")
        with open(p, "wb") as f:
            f.write(pte)
        d = None
        if ptd is not None:
            d = os.path.join(td, "model.ptd")
            with open(d, "wb") as f:
                f.write(ptd)
        got, err = _run_executorch(p, d, method, inputs)
    if got is None:
        raise RuntimeError(f"ExecuTorch's runtime cannot run this quantized program: {err}")
    diffs = []
    for g, e in zip(got, eager):
        if g.shape == e.shape and g.dtype.kind in "fiu":
            diffs.append(float(np.max(np.abs(g.astype(np.float64) - e.astype(np.float64)))) if g.size else 0.0)
    return got, f"max |ExecuTorch - fake-quantized eager| per output: {diffs}"
