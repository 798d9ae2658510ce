#!/usr/bin/env python3
"""Export the XNNPACK node-coverage cases of tests/backend_xnnpack/cases/.

    python3 tests/backend_xnnpack/gen_cases.py [--out DIR] [--only GLOB]

Each case is a small fp32 module exported with the default
XnnpackPartitioner, written in the zoo layout (model.pte, inputs/N.npy,
expected/N.npy from eager PyTorch, case.json) so tools/conformance.py runs
it. Together they cover every node type the partitioner produces for fp32
graphs; case.json lists the XNNPACK node types each payload holds
("xnnpack_nodes"). A case whose program keeps any operator outside the
delegate is an error: these cases test the delegate alone.

Cases under quant/ are statically quantized (PT2E XNNPACKQuantizer, symmetric
per-channel int8) or have dynamically quantized linears (the quantizer's
dynamic config; torchao's Int8DynamicActivationIntxWeightConfig with int4
weights per group or per channel, int8 per channel), lowered with the default
partitioner; their expected
outputs come from ExecuTorch's own runtime (int8 arithmetic is not the
fake-quantized graph's), compared within 2 quantization steps of the output.

Cases under refused/ are programs the delegate must refuse at load time
(none now: fp16 graphs run in fp32); "expect_error" in
their case.json is a substring of the expected message.

Seeds are fixed; rerunning gives identical files.
"""
import argparse
import fnmatch
import json
import os
import shutil
import sys
import warnings

warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import xnnpack_dump  # noqa: E402


def rn(*shape, scale=1.0):
    return torch.randn(*shape) * scale


# ---------------------------------------------------------------------------
# Modules
# ---------------------------------------------------------------------------


class Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


class ConvNet(nn.Module):
    def __init__(self, cin, cout, k, **kw):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, **kw)

    def forward(self, x):
        return self.conv(x)


class ConvVariants(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(4, 8, 3, stride=2, padding=1)
        self.b = nn.Conv2d(8, 8, 3, padding=2, dilation=2, groups=2, bias=False)
        self.c = nn.Conv2d(8, 6, (1, 3), padding=(0, 1))

    def forward(self, x):
        return self.c(F.relu6(self.b(F.relu(self.a(x)))))


class ConvNative(nn.Module):
    """Convolutions the delegate runs on pterun's GEMM (K >= 64): more output
    pixels than one im2col pass holds (24x24 at K = 288), two images, two
    groups with stride 2, fused ReLU6 and ReLU clamps."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(32, 24, 3, padding=1)
        self.b = nn.Conv2d(24, 16, 3, stride=2, padding=1, groups=2)

    def forward(self, x):
        return F.relu(self.b(F.relu6(self.a(x))))


class Conv1d(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(3, 5, 3, padding=1)

    def forward(self, x):
        return torch.sigmoid(self.conv(x))


class Depthwise(nn.Module):
    def __init__(self):
        super().__init__()
        self.dw = nn.Conv2d(6, 6, 3, padding=1, groups=6)
        self.dm = nn.Conv2d(6, 12, 3, stride=2, padding=1, groups=6)  # depth multiplier 2

    def forward(self, x):
        return self.dm(F.hardtanh(self.dw(x), -0.5, 0.5))


class InvertedResidual(nn.Module):
    """MobileNetV2's blocks as transformers exports them (TF padding): a pad of
    nothing before each 1x1 convolution, a zero pad of H and W before each
    depthwise one (stride 1 both sides, stride 2 after), ReLU6 after the
    expansion and the depthwise convolution, a residual add. The delegate
    bypasses the empty pads, folds the zero ones into the depthwise
    convolutions and runs the 1x1s (16 and 24 columns: partial panels) on
    k_sgemm, in row passes a thread at 2 and 3 threads."""

    def __init__(self):
        super().__init__()
        self.expand = nn.Conv2d(16, 96, 1)
        self.dw = nn.Conv2d(96, 96, 3, groups=96)
        self.project = nn.Conv2d(96, 16, 1)
        self.expand2 = nn.Conv2d(16, 72, 1)
        self.dw2 = nn.Conv2d(72, 72, 3, stride=2, groups=72)
        self.project2 = nn.Conv2d(72, 24, 1)

    def forward(self, x):
        y = F.relu6(self.expand(F.pad(x, (0, 0, 0, 0))))
        y = F.relu6(self.dw(F.pad(y, (1, 1, 1, 1))))
        x = x + self.project(F.pad(y, (0, 0, 0, 0)))
        y = F.relu6(self.expand2(F.pad(x, (0, 0, 0, 0))))
        y = F.relu6(self.dw2(F.pad(y, (0, 1, 0, 1))))
        return self.project2(F.pad(y, (0, 0, 0, 0)))


class InvertedResidualBands(nn.Module):
    """Inverted residual blocks over maps above a quarter of L2, which the
    delegate runs as chains in row bands (xnn_fuse.c): expand -> depthwise
    stride 1 -> project (two bands an image, the halo rows kept), expand ->
    depthwise stride 2 with TF padding -> project, and a depthwise ->
    project chain whose input comes from a 3x3 convolution (no expand). Two
    images of odd sizes: bands, thread shares and images cut rows apart in
    different places (1, 2 and 3 threads)."""

    def __init__(self):
        super().__init__()
        self.expand = nn.Conv2d(16, 64, 1)
        self.dw = nn.Conv2d(64, 64, 3, padding=1, groups=64)
        self.project = nn.Conv2d(64, 16, 1)
        self.expand2 = nn.Conv2d(16, 96, 1)
        self.dw2 = nn.Conv2d(96, 96, 3, stride=2, groups=96)
        self.project2 = nn.Conv2d(96, 32, 1)
        self.conv = nn.Conv2d(16, 48, 3, padding=1)
        self.dw3 = nn.Conv2d(48, 48, 3, padding=1, groups=48)
        self.project3 = nn.Conv2d(48, 24, 1)

    def forward(self, x):
        y = F.relu6(self.dw(F.relu6(self.expand(x))))
        x = x + self.project(y)
        y = F.relu6(self.expand2(x))
        y = F.relu6(self.dw2(F.pad(y, (0, 1, 0, 1))))
        z = self.project3(F.relu(self.dw3(F.relu(self.conv(x)))))
        return self.project2(y), z


class Stem(nn.Module):
    """MobileNetV2's stem as transformers exports it: a bottom/right zero pad
    of the NCHW input, a 3x3 stride-2 convolution of 3 channels to 32 and
    ReLU6; then one of 3 channels to 40 (a second, masked 32-channel
    block), stride 1 and padded. The delegate runs both on k_conv_f32
    (short reductions), the first reading the NCHW input in place with the
    pad and the input transpose folded in."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 32, 3, stride=2)
        self.mix = nn.Conv2d(32, 3, 1)
        self.other = nn.Conv2d(3, 40, 3, padding=1)

    def forward(self, x):
        y = F.relu6(self.stem(F.pad(x, (0, 1, 0, 1))))
        return self.other(self.mix(y))


class ConvTranspose(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1)

    def forward(self, x):
        return self.up(x)


class BatchNormAlone(nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(5)
        with torch.no_grad():
            self.bn.running_mean.copy_(torch.randn(5) * 0.1)
            self.bn.running_var.copy_(torch.rand(5) + 0.5)
            self.bn.weight.copy_(torch.rand(5) + 0.5)
            self.bn.bias.copy_(torch.randn(5) * 0.1)

    def forward(self, x):
        return self.bn(x) + x


class PReLUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)
        self.act = nn.PReLU(4)
        with torch.no_grad():
            self.act.weight.copy_(torch.tensor([0.1, 0.2, -0.3, 0.5]))

    def forward(self, x):
        return self.act(self.conv(x))


class LinearStack(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(16, 24)
        self.b = nn.Linear(24, 8, bias=False)

    def forward(self, x):
        return self.b(F.relu(self.a(x)))


class MmAddmm(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(12, 7))
        self.w2 = nn.Parameter(torch.randn(7, 5))
        self.b2 = nn.Parameter(torch.randn(5))

    def forward(self, x):
        return torch.addmm(self.b2, torch.mm(x, self.w), self.w2)


class Attention(nn.Module):
    """Attention core without layer norm or embedding: bmm, softmax, permute, slice, cat."""

    def forward(self, q, k, v):
        s = torch.bmm(q, k.transpose(1, 2)) * 0.25  # [b*h, t, t]
        p = torch.softmax(s, dim=-1)
        o = torch.bmm(p, v).reshape(2, 3, 4, 4).permute(0, 2, 1, 3)  # [b, t, h, d]
        return torch.cat([o[..., :2] * 2.0, o[..., 2:]], dim=-1)


class MaskedScores(nn.Module):
    """BERT's attention scores (q @ k^T as the input) times a scale, plus a
    mask that broadcasts over the heads, softmax (fused into one native
    softmax)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("mask", torch.triu(torch.full((1, 1, 5, 5), -1e4), 1) + torch.randn(1, 1, 5, 5))

    def forward(self, s):
        return torch.softmax(s * 0.3 + self.mask, dim=-1)


class LargeNative(nn.Module):
    """Native nodes on tensors of 10^4..10^5 elements: bmm, transpose,
    concatenate, slice, gelu, exp, tanh, softmax."""

    def forward(self, a, b):
        s = torch.bmm(a, b)  # [8, 48, 48]
        t = s.permute(0, 2, 1) * 0.1
        c = torch.cat([F.gelu(t), torch.tanh(s)], dim=2)  # [8, 48, 96]
        return torch.softmax(c[:, :, 8:88] + torch.exp(c[:, :, :80] * 0.05), dim=-1)


class TransposeBack(nn.Module):
    """Moves the batch dimension away and back: rows are not independent
    inside, so a smaller batch cannot reuse the runtime built for the bound."""

    def forward(self, x):
        return (x.transpose(0, 1) * 2.0).transpose(0, 1) + 1.0


class AttnDynamicSeq(nn.Module):
    """One attention block as the partitioner emits it for a sequence of
    dynamic length: linears, reshape and permute into heads, bmm, softmax,
    bmm, permute and reshape back, a linear."""

    def __init__(self, dim=8, heads=2):
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.q, self.k, self.v, self.out = (nn.Linear(dim, dim) for _ in range(4))

    def forward(self, x):
        s = x.shape[0]
        q, k, v = (t.reshape(s, self.heads, self.hd).permute(1, 0, 2) for t in (self.q(x), self.k(x), self.v(x)))
        a = torch.softmax(torch.bmm(q, k.permute(0, 2, 1)) * self.hd ** -0.5, dim=-1)
        return self.out(torch.bmm(a, v).permute(1, 0, 2).reshape(s, self.heads * self.hd))


class ConvWinograd(nn.Module):
    """3x3 stride-1 convolutions the delegate runs by Winograd: F(4x4) on a
    30x30 and a 28x28 map (odd channel counts, padding 1 then 0, no bias,
    ReLU fused), F(2x2) on a 14x14 one with ReLU6, over two images; the
    7x7 one stays on the im2col product."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(8, 20, 3, padding=1)
        self.b = nn.Conv2d(20, 36, 3, padding=0, bias=False)
        self.c = nn.Conv2d(36, 12, 3, padding=1)
        self.d = nn.Conv2d(12, 12, 3, padding=1)

    def forward(self, x):
        y = F.relu(self.b(F.relu(self.a(x))))
        y = F.relu6(self.c(F.max_pool2d(y, 2)))
        return self.d(F.max_pool2d(y, 2))


class CnnDynamic(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        y = F.max_pool2d(F.relu(self.conv(x)), 2)
        y = torch.mean(y, dim=(2, 3), keepdim=True).flatten(1)
        return torch.softmax(self.fc(y), dim=-1)


class MlpDynamic(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(6, 10)
        self.b = nn.Linear(10, 3)

    def forward(self, x):
        return self.b(torch.tanh(self.a(x)))


class MlpSeq(nn.Module):
    """Rows over batch and sequence: linears, tanh, a residual add and a
    softmax over the features."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(8, 12)
        self.b = nn.Linear(12, 8)

    def forward(self, x):
        return torch.softmax(self.b(torch.tanh(self.a(x))) + x * 0.5, dim=-1)


# ---------------------------------------------------------------------------
# Cases: name -> (module factory, inputs factory, dynamic shapes, extra case inputs)
# ---------------------------------------------------------------------------

CASES = {
    "add_broadcast": (lambda: Fn(lambda x, y: x + y), lambda: (rn(2, 3, 4), rn(4)), None),
    "sub_mul_div": (lambda: Fn(lambda x, y, z: (x - y) * z / (torch.abs(y) + 1.0)),
                    lambda: (rn(3, 5), rn(3, 5), rn(1, 5)), None),
    "min_max": (lambda: Fn(lambda x, y: torch.maximum(x, y) + torch.minimum(x, y * 2.0)),
                lambda: (rn(4, 6), rn(4, 6)), None),
    "clamp_hardtanh": (lambda: Fn(lambda x: torch.clamp(x, -0.5, 0.7) + F.hardtanh(x * 2.0) + F.relu6(x * 8.0)),
                       lambda: (rn(3, 8),), None),
    "relu_alone": (lambda: Fn(lambda x: F.relu(x)), lambda: (rn(2, 9),), None),
    "unary_sigmoid_floor_ceil": (lambda: Fn(lambda x: torch.sigmoid(x) + torch.floor(x * 3.0) + torch.ceil(x * 3.0)),
                                 lambda: (rn(4, 7),), None),
    "unary_sqrt_square": (lambda: Fn(lambda x: torch.sqrt(torch.abs(x)) + x ** 2), lambda: (rn(4, 7),), None),
    "unary_hardswish_leaky_neg": (lambda: Fn(lambda x: F.hardswish(x * 4.0) + F.leaky_relu(x, 0.1) - torch.neg(x)),
                                  lambda: (rn(4, 7),), None),
    "unary_native": (lambda: Fn(lambda x: torch.exp(x) + torch.log(torch.abs(x) + 1.0)
                                + torch.rsqrt(torch.abs(x) + 0.5) + F.gelu(x) + torch.tanh(x)
                                + torch.sin(x) + torch.cos(x)),
                     lambda: (rn(3, 11),), None),
    "softmax": (lambda: Fn(lambda x: torch.softmax(x, dim=-1)), lambda: (rn(2, 3, 7, scale=3.0),), None),
    "linear_3d": (LinearStack, lambda: (rn(2, 5, 16),), None),
    "mm_addmm": (MmAddmm, lambda: (rn(3, 12),), None),
    "bmm": (lambda: Fn(lambda a, b: torch.bmm(a, b)), lambda: (rn(3, 4, 5), rn(3, 5, 6)), None),
    "attention": (Attention, lambda: (rn(6, 4, 4), rn(6, 4, 4), rn(6, 4, 4)), None),
    "masked_scores": (MaskedScores, lambda: (rn(2, 3, 5, 5) * 4.0,), None),
    "cat": (lambda: Fn(lambda a, b, c, d, e: (torch.cat([a, b], 1) * 2.0, torch.cat([a, b, c, d, e], 1) + 0.5)),
            lambda: (rn(2, 1, 3), rn(2, 2, 3), rn(2, 3, 3), rn(2, 1, 3), rn(2, 2, 3)), None),
    "cat_3_4_7": (lambda: Fn(lambda a, b, c: (torch.cat([a, b, c], -1) * 2.0, torch.cat([a, b, c, a], -1) - 1.0,
                                              torch.cat([a, b, c, a, b, c, a], -1) + 1.0)),
                  lambda: (rn(2, 3, 2), rn(2, 3, 3), rn(2, 3, 4)), None),
    "slice": (lambda: Fn(lambda x: x[:, 1:5] * 2.0 + x[:, 2:6]), lambda: (rn(3, 8, 2),), None),
    "permute": (lambda: Fn(lambda x: x.permute(0, 2, 3, 1) * 2.0 + 1.0), lambda: (rn(2, 3, 4, 5),), None),
    "transpose_view": (lambda: Fn(lambda x: (x.transpose(1, 2).reshape(2, -1) + 1.0).view(2, 3, 4) * 2.0),
                       lambda: (rn(2, 3, 4),), None),
    "conv_variants": (ConvVariants, lambda: (rn(1, 4, 12, 10),), None),
    "conv1d": (Conv1d, lambda: (rn(2, 3, 9),), None),
    "conv_native": (ConvNative, lambda: (rn(2, 32, 24, 24),), None),
    "conv_winograd": (ConvWinograd, lambda: (rn(2, 8, 30, 30),), None),
    "depthwise": (Depthwise, lambda: (rn(1, 6, 9, 9),), None),
    "inverted_residual": (InvertedResidual, lambda: (rn(1, 16, 32, 32),), None),
    "inverted_residual_bands": (InvertedResidualBands, lambda: (rn(2, 16, 57, 61),), None),
    "stem": (Stem, lambda: (rn(2, 3, 37, 42),), None),
    "conv_transpose": (ConvTranspose, lambda: (rn(1, 4, 5, 6),), None),
    "batchnorm_alone": (BatchNormAlone, lambda: (rn(2, 5, 4, 4),), None),
    "prelu": (PReLUNet, lambda: (rn(1, 3, 5, 5),), None),
    "max_pool": (lambda: Fn(lambda x: F.max_pool2d(x, 3, 2, 1) + 0.0), lambda: (rn(1, 4, 9, 9),), None),
    "max_pool_ceil": (lambda: Fn(lambda x: F.max_pool2d(x, 2, 2, ceil_mode=True)), lambda: (rn(1, 3, 7, 7),), None),
    "avg_pool": (lambda: Fn(lambda x: F.avg_pool2d(x, 2) + F.avg_pool2d(x, 3, 2, 1, count_include_pad=False)),
                 lambda: (rn(2, 3, 8, 8),), None),
    "global_avg_pool": (lambda: Fn(lambda x: torch.mean(x, dim=(2, 3), keepdim=True) * 2.0 + F.adaptive_avg_pool2d(x, 1)),
                        lambda: (rn(2, 5, 6, 7),), None),
    "max_dim": (lambda: Fn(lambda x: torch.max(x, dim=3, keepdim=True)[0] + torch.max(x, dim=2, keepdim=True)[0]),
                lambda: (rn(1, 3, 5, 4),), None),
    "upsample_bilinear": (lambda: Fn(lambda x: F.interpolate(x, scale_factor=2.0, mode="bilinear", align_corners=False)),
                          lambda: (rn(1, 3, 4, 5),), None),
    "upsample_bilinear_align": (lambda: Fn(lambda x: F.interpolate(x, size=(7, 9), mode="bilinear", align_corners=True)),
                                lambda: (rn(1, 2, 4, 5),), None),
    "constant_pad": (lambda: Fn(lambda x: F.pad(x, (1, 2, 0, 1), value=0.5) * 1.5), lambda: (rn(2, 3, 4, 4),), None),
    # Output in channels-last dim order (the CLI cannot write it; the C test compares it).
    "channels_last": (lambda: Fn(lambda x: (x * 2.0).to(memory_format=torch.channels_last).clone() + 1.0),
                      lambda: (rn(1, 3, 4, 4),), None),
    # Big enough that pterun's kernels split their work over the pool.
    "large_native": (LargeNative, lambda: (rn(8, 48, 64), rn(8, 64, 48)), None),
    "cnn_dynamic_batch": (CnnDynamic, lambda: (rn(4, 3, 8, 8),), ({0: torch.export.Dim("batch", min=1, max=4)},)),
    "mlp_dynamic_batch": (MlpDynamic, lambda: (rn(6, 6),), ({0: torch.export.Dim("batch", min=1, max=6)},)),
    # a dynamic dimension past the leading one: [B, S, K] runs on the runtime
    # built for the bound, its real rows spread into the built layout
    "linear_dynamic_seq": (lambda: nn.Linear(6, 4), lambda: (rn(2, 5, 6),),
                           ({1: torch.export.Dim("seq", min=1, max=5)},)),
    # no independent rows (bmm and softmax over the sequence, transposes that
    # move the batch): every node runs with pterun's kernels at the real shape
    "attn_dynamic_seq": (AttnDynamicSeq, lambda: (rn(6, 8),), ({0: torch.export.Dim("seq", min=2, max=6)},)),
    "transpose_dynamic_batch": (TransposeBack, lambda: (rn(4, 3),), ({0: torch.export.Dim("batch", min=1, max=4)},)),
    "mlp_dynamic_seq": (MlpSeq, lambda: (rn(3, 5, 8),),
                        ({0: torch.export.Dim("batch", min=1, max=3), 1: torch.export.Dim("seq", min=1, max=5)},)),
}

# Extra runs of dynamic cases with other input shapes (same program).
EXTRA_INPUTS = {
    "cnn_dynamic_batch": {"b1": lambda: (rn(1, 3, 8, 8),), "b3": lambda: (rn(3, 3, 8, 8),)},
    "mlp_dynamic_batch": {"b2": lambda: (rn(2, 6),), "b5": lambda: (rn(5, 6),)},
    "linear_dynamic_seq": {"s3": lambda: (rn(2, 3, 6),), "s1": lambda: (rn(2, 1, 6),)},
    "attn_dynamic_seq": {"s3": lambda: (rn(3, 8),), "s2": lambda: (rn(2, 8),)},
    "transpose_dynamic_batch": {"b2": lambda: (rn(2, 3),), "b1": lambda: (rn(1, 3),)},
    "mlp_dynamic_seq": {"b3_s2": lambda: (rn(3, 2, 8),), "b1_s4": lambda: (rn(1, 4, 8),),
                        "b2_s5": lambda: (rn(2, 5, 8),)},
}


# ---------------------------------------------------------------------------
# Export
# ---------------------------------------------------------------------------


def seed_for(name):
    return sum((i + 1) * ord(c) for i, c in enumerate(name)) % 100003


def lower(module, example, dyn, quantize=None, partitioner=None):
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    ep = torch.export.export(module, example, dynamic_shapes=dyn)
    if quantize:
        ep = torch.export.export(quantize(ep.module(), example), example, dynamic_shapes=dyn)
    edge = to_edge_transform_and_lower(ep, partitioner=[partitioner() if partitioner else XnnpackPartitioner()])
    return edge.to_executorch()


def node_types(pte_path):
    kinds = set()
    for _m, _i, blob in xnnpack_dump.payloads(pte_path):
        _h, g = xnnpack_dump.decode(blob)
        kinds.update(n["xnode_union_type"] for n in g.get("xnodes", []))
    return sorted(kinds)


def write_case(out_dir, name, buf, ins, expected, meta):
    d = os.path.join(out_dir, name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(os.path.join(d, "inputs"))
    os.makedirs(os.path.join(d, "expected"))
    with open(os.path.join(d, "model.pte"), "wb") as f:
        f.write(buf)
    for i, a in enumerate(ins):
        np.save(os.path.join(d, "inputs", f"{i}.npy"), np.array(a.detach().numpy(), order="C"))
    for i, a in enumerate(expected):
        np.save(os.path.join(d, "expected", f"{i}.npy"), np.array(a.detach().numpy(), order="C"))
    meta = dict(meta)
    meta["xnnpack_nodes"] = node_types(os.path.join(d, "model.pte"))
    with open(os.path.join(d, "case.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    return meta


def export_case(out_dir, name):
    make_module, make_inputs, dyn = CASES[name]
    torch.manual_seed(seed_for(name))
    module = make_module().eval()
    example = make_inputs()
    et = lower(module, example, dyn)
    plan = et.executorch_program.execution_plan[0]
    ops = sorted({o.name + ("." + o.overload if o.overload else "") for o in plan.operators})
    delegates = sorted({d.id for d in plan.delegates})
    # Prim ops (symbolic sizes, views) are built into the runtime.
    ops = [o for o in ops if not o.startswith("executorch_prim::") and o != "aten::sym_size.int"]
    if ops or delegates != ["XnnpackBackend"]:
        raise RuntimeError(f"{name}: not fully delegated: operators {ops}, delegates {delegates}")
    runs = {name: example}
    for suffix, mk in EXTRA_INPUTS.get(name, {}).items():
        runs[f"{name}_{suffix}"] = mk()
    buf = bytes(et.buffer)
    for case, ins in runs.items():
        with torch.no_grad():
            out = module(*[t.clone() for t in ins])
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        meta = {
            "name": case,
            "group": "xnnpack_nodes",
            "method": "forward",
            "description": f"XNNPACK node coverage: {name}" + (" (dynamic shapes)" if dyn else ""),
            "rtol": 1e-4,
            "atol": 1e-5,
            "delegates": delegates,
            "operators": ops,
            "inputs": [{"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape)} for t in ins],
            "outputs": [{"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape)} for t in outs],
        }
        if dyn:
            meta["dynamic"] = True
        meta = write_case(out_dir, case, buf, ins, outs, meta)
        print(f"{case}: {meta['xnnpack_nodes']}", flush=True)


# ---------------------------------------------------------------------------
# Dynamic programs whose smaller inputs the delegate must reject at execute
# (2022 XNNPACK cannot reshape a runtime; only shrinking leading dimensions of
# a graph with independent rows can run on the runtime built for the bound).
# ---------------------------------------------------------------------------

REJECT_SHAPE = {
    # name: (module, example inputs, dynamic shapes, run inputs, expected message part)
    # a convolution over a dynamic height: NHWC convolutions mix the rows of
    # H, and pterun has no kernel of its own to run one at the real shape
    "conv_dynamic_height": (lambda: nn.Conv2d(3, 4, 3), lambda: (rn(1, 3, 8, 8),),
                            ({2: torch.export.Dim("h", min=4, max=8)},), lambda: (rn(1, 3, 6, 8),),
                            "cannot reshape a runtime"),
}


def export_reject(out_dir, name):
    make_module, make_inputs, dyn, run_inputs, expect = REJECT_SHAPE[name]
    torch.manual_seed(seed_for(name))
    module = make_module().eval()
    et = lower(module, make_inputs(), dyn)
    plan = et.executorch_program.execution_plan[0]
    ops = sorted({o.name for o in plan.operators} - {"aten::sym_size", "executorch_prim::et_view"})
    if ops or not plan.delegates:
        raise RuntimeError(f"{name}: not fully delegated: {ops}")
    ins = run_inputs()
    with torch.no_grad():
        out = module(*[t.clone() for t in ins])
    meta = {
        "name": name,
        "group": "xnnpack_reject_shape",
        "method": "forward",
        "description": f"runs in eager and ExecuTorch, but the 2022 XNNPACK delegate must reject these input shapes: {name}",
        "expect_run_error": expect,
        "rtol": 1e-4,
        "atol": 1e-5,
        "dynamic": True,
        "inputs": [{"dtype": "float32", "shape": list(t.shape)} for t in ins],
    }
    write_case(out_dir, name, bytes(et.buffer), ins, [out], meta)
    print(f"reject_shape/{name}", flush=True)


# ---------------------------------------------------------------------------
# Statically quantized programs (static int8: convolutions and fully connected on
# pterun's int8 product, the rest through Debian's XNNPACK)
# ---------------------------------------------------------------------------


class QCnn(nn.Module):
    """conv, relu, depthwise conv, relu6 (clamp), max pool, residual add, global average pool, linear."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        a = F.relu(self.c1(x))
        b = F.hardtanh(self.dw(a), 0.0, 6.0)
        c = F.max_pool2d(a + b, 2)
        return self.fc(F.adaptive_avg_pool2d(c, 1).flatten(1))


class QEltwise(nn.Module):
    """mul, add, cat and average pool on quantized activations."""

    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(4, 4, 1)

    def forward(self, x, y):
        m = self.c(x) * y
        s = torch.cat([m, x + y], dim=1)
        return F.avg_pool2d(s, 2)


class QConvShapes(nn.Module):
    """static int8 convolutions as pterun's int8 product runs them: KxK padded with stride 2,
    1x1 direct and strided, grouped and dilated, a non-square kernel, odd channel counts,
    more than 32 output channels, two images, then a fully connected layer."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 7, 3, stride=2, padding=1)
        self.b = nn.Conv2d(7, 10, 1)
        self.c = nn.Conv2d(10, 6, 3, padding=2, dilation=2, groups=2)
        self.d = nn.Conv2d(6, 5, 1, stride=2)
        self.e = nn.Conv2d(5, 35, (2, 3), padding=(1, 0))
        self.fc = nn.Linear(35, 3)

    def forward(self, x):
        y = F.relu(self.a(x))
        y = self.c(self.b(y))
        y = F.hardtanh(self.d(y), 0.0, 6.0)
        y = self.e(y)
        return self.fc(F.adaptive_avg_pool2d(y, 1).flatten(1))


class QDepthwise(nn.Module):
    """static int8 depthwise convolutions as pterun's k_dwconv_s8 runs them: 3x3 stride 1 and 2 with
    padding, a depth multiplier of 2, a 5x5 window, a dilated one, 20 and 40 channels (not multiples of
    16: the vector body and the plain tail), two images of odd sizes, a ReLU6 fused as output bounds."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 20, 1)
        self.dw1 = nn.Conv2d(20, 20, 3, padding=1, groups=20)
        self.dw2 = nn.Conv2d(20, 40, 3, stride=2, padding=1, groups=20)
        self.dw3 = nn.Conv2d(40, 40, 5, padding=2, groups=40)
        self.dw4 = nn.Conv2d(40, 40, 3, stride=2, padding=2, dilation=2, groups=40)

    def forward(self, x):
        y = self.a(x)
        y = F.hardtanh(self.dw1(y), 0.0, 6.0)
        y = self.dw3(self.dw2(y))
        return self.dw4(F.relu(y))


class QPadChain(nn.Module):
    """fp32 pads between int8 convolutions, as MobileNetV2's TF-style padding exports them (dequantize,
    pad, quantize with other parameters): a zero pad of 1, an empty one, and one padding with 0.5."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 8, 3, stride=2)
        self.dw = nn.Conv2d(8, 8, 3, groups=8)
        self.b = nn.Conv2d(8, 5, 1)
        self.c = nn.Conv2d(5, 4, 3)

    def forward(self, x):
        y = F.hardtanh(self.a(x), 0.0, 6.0)
        y = F.hardtanh(self.dw(F.pad(y, (1, 1, 1, 1))), 0.0, 6.0)
        y = self.b(F.pad(y, (0, 0, 0, 0)))
        return self.c(F.pad(y, (1, 0, 0, 1), value=0.5))


class QInvertedResidual(nn.Module):
    """MobileNetV2's int8 blocks (TF-style explicit pads, ReLU6, a residual add) with channel counts
    that leave every body's remainder: the clamps and pads fuse into the int8 convolutions (odd
    channels, 51 = 32 + 16 + 3; a stride-2 depthwise convolution after a bottom/right pad)."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 24, 3, stride=2)
        self.e1 = nn.Conv2d(24, 51, 1)
        self.d1 = nn.Conv2d(51, 51, 3, groups=51)
        self.p1 = nn.Conv2d(51, 24, 1)
        self.e2 = nn.Conv2d(24, 48, 1)
        self.d2 = nn.Conv2d(48, 48, 3, stride=2, groups=48)
        self.p2 = nn.Conv2d(48, 17, 1)

    def forward(self, x):
        y = F.hardtanh(self.stem(F.pad(x, (0, 1, 0, 1))), 0.0, 6.0)
        t = F.hardtanh(self.e1(y), 0.0, 6.0)
        t = F.hardtanh(self.d1(F.pad(t, (1, 1, 1, 1))), 0.0, 6.0)
        y = y + self.p1(F.pad(t, (0, 0, 0, 0)))
        t = F.hardtanh(self.e2(y), 0.0, 6.0)
        t = F.hardtanh(self.d2(F.pad(t, (0, 1, 0, 1))), 0.0, 6.0)
        return self.p2(t)


def _mlp(k=64, h=32, n=8):
    return lambda: nn.Sequential(nn.Linear(k, h), nn.ReLU(), nn.Linear(h, n))


class DqSharedRows(nn.Module):
    """A linear over 2 features (rows too narrow to store quantized: they stay
    fp32 rows) feeding three linears that share one convert (rows quantized
    once), as a transformer's Q, K and V projections."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 24)
        self.q, self.k, self.v = nn.Linear(24, 8), nn.Linear(24, 8), nn.Linear(24, 8)

    def forward(self, x):
        h = torch.relu(self.a(x))
        return self.q(h) + self.k(h) * self.v(h)


class QGeluMlp(nn.Module):
    """A transformer's int8 MLP (ViT): the GELU in fp32 between a dequantize
    and a quantize, which pterun runs as one byte table; tanh and exp the same
    way (natively run functions)."""

    def __init__(self):
        super().__init__()
        self.a, self.b, self.c = nn.Linear(16, 48), nn.Linear(48, 24), nn.Linear(24, 8)

    def forward(self, x):
        return self.c(torch.tanh(self.b(F.gelu(self.a(x)))))


class QScaledScores(nn.Module):
    """A transformer's int8 attention scores (ViT): q @ k^T in fp32, then the
    scale as a quantized multiply by a constant between a quantize and a
    dequantize, then the softmax in fp32."""

    def __init__(self):
        super().__init__()
        self.q, self.k, self.v, self.o = (nn.Linear(16, 16) for _ in range(4))

    def forward(self, x):
        q, k, v = (f(x).view(9, 2, 8).transpose(0, 1) for f in (self.q, self.k, self.v))
        s = torch.softmax(torch.bmm(q, k.transpose(1, 2)) * 0.35, dim=-1)
        return self.o(torch.bmm(s, v).transpose(0, 1).reshape(9, 16))


class QDeconv(nn.Module):
    """static int8 transposed convolutions with per-channel filters, which 2022 XNNPACK's
    deconvolution does not take (pterun's k_qconv_direct runs them): stride 2 with padding and
    an output padding, a grouped one, a dilated 1-stride one, two images, a ReLU6 fused as bounds."""

    def __init__(self):
        super().__init__()
        self.a = nn.ConvTranspose2d(3, 6, 3, stride=2, padding=1, output_padding=1)
        self.b = nn.ConvTranspose2d(6, 4, 2, stride=2, groups=2)
        self.c = nn.ConvTranspose2d(4, 5, 3, padding=2, dilation=2)

    def forward(self, x):
        y = F.hardtanh(self.a(x), 0.0, 6.0)
        return self.c(F.relu(self.b(y)))


class QReluCollapsed(nn.Module):
    """A ReLU after a convolution whose outputs are all negative: its int8 bounds collapse to
    one value, which 2022 XNNPACK refuses (pterun clamps the bytes); the residual add keeps the
    ReLU a node of its own."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(2, 4, 1)
        self.b = nn.Conv2d(4, 4, 1)
        with torch.no_grad():
            self.a.bias.fill_(-8.0)

    def forward(self, x):
        y = self.a(x)
        return y + self.b(torch.relu(y))


class DqConv(nn.Module):
    """dynamically quantized convolutions (8-bit activations, one scale per image; per-channel
    int8 filters): a padded 3x3, a strided grouped one, and a transposed one with an output
    padding, over two images (pterun's k_qconv_direct: 2022 XNNPACK has none)."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 8, 3, padding=1)
        self.b = nn.Conv2d(8, 8, 3, stride=2, groups=2)
        self.c = nn.ConvTranspose2d(8, 4, 3, stride=2, output_padding=1)

    def forward(self, x):
        return self.c(torch.relu(self.b(torch.relu(self.a(x)))))


QUANT = {
    # name: (module, inputs, quantization: "static" | "dynamic" (PT2E) | ("8da4w", group or None = per channel))
    "static_quant_conv": (lambda: nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU()), lambda: (rn(1, 3, 6, 6),), "static"),
    "q_cnn": (QCnn, lambda: (rn(1, 3, 8, 8),), "static"),
    "q_conv_shapes": (QConvShapes, lambda: (rn(2, 3, 11, 9),), "static"),
    "q_depthwise": (QDepthwise, lambda: (rn(2, 3, 15, 13),), "static"),
    "q_pad_chain": (QPadChain, lambda: (rn(1, 3, 13, 13),), "static"),
    "q_inverted_residual": (QInvertedResidual, lambda: (rn(1, 3, 23, 23),), "static"),
    "q_eltwise": (QEltwise, lambda: (rn(1, 4, 6, 6), rn(1, 4, 6, 6)), "static"),
    "q_mlp": (lambda: nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)), lambda: (rn(3, 16),), "static"),
    "q_gelu_mlp": (QGeluMlp, lambda: (rn(2, 7, 16),), "static"),
    "q_scaled_scores": (QScaledScores, lambda: (rn(9, 16),), "static"),
    # qdint8 activations: pterun's int8 product (2022 XNNPACK has none)
    "dynamic_quant_linear": (lambda: nn.Sequential(nn.Linear(16, 8)), lambda: (rn(4, 16),), "dynamic"),
    "dq_mlp_3d": (_mlp(24, 20, 6), lambda: (rn(2, 3, 24),), "dynamic"),
    "dq_shared_rows": (DqSharedRows, lambda: (rn(2, 5, 2),), "dynamic"),
    # a GELU between two linears (BERT's MLP): the qdint8 convert takes the
    # gelu over, row by row; 21 rows and K of 64 and 128 (AMX tiles and the rest)
    "dq_gelu_mlp": (lambda: nn.Sequential(nn.Linear(64, 128), nn.GELU(), nn.Linear(128, 24)), lambda: (rn(3, 7, 64),), "dynamic"),
    "dq_8da4w_g32": (_mlp(), lambda: (rn(3, 64),), ("8da4w", 32)),
    "dq_8da4w_channel": (_mlp(), lambda: (rn(3, 64),), ("8da4w", None)),
    "dq_8da8w_channel": (_mlp(), lambda: (rn(5, 64),), ("8da8w", None)),
    # one linear at a language model's widths (SmolLM-135M's 576 and 1536, no
    # bias as there; 12 and 18 groups): the grouped product's float sums over
    # many groups, which decide whether the bits are ExecuTorch's
    "dq_8da4w_g32_llm": (lambda: nn.Linear(576, 64, bias=False), lambda: (rn(7, 576),), ("8da4w", 32)),
    "dq_8da4w_g128_llm": (lambda: nn.Linear(1536, 96), lambda: (rn(5, 1536),), ("8da4w", 128)),
    "dq_8da8w_llm": (lambda: nn.Linear(1536, 48, bias=False), lambda: (rn(3, 1536),), ("8da8w", None)),
    # int8 convolutions 2022 XNNPACK lacks or refuses, on pterun's k_qconv_direct
    "q_deconv_channel": (QDeconv, lambda: (rn(2, 3, 5, 6),), "static"),
    "q_relu_collapsed": (QReluCollapsed, lambda: (rn(1, 2, 3, 3),), "static"),
    # ExecuTorch's dynamic-quantization partitioner, one delegate per node (its tests' setup)
    "dq_conv": (DqConv, lambda: (rn(2, 3, 9, 9),), "dynamic_conv"),
}


# Every quantized case but these gives ExecuTorch's outputs bit for bit
# (pterun follows XNNPACK's arithmetic): dq_gelu_mlp's GELU is each
# runtime's own approximation, whose last bits differ.
NOT_EXACT = {"dq_gelu_mlp"}


def _torchao_quantize(module, kind):
    from torchao.quantization import quantize_
    from torchao.quantization.granularity import PerAxis, PerGroup
    from torchao.quantization.quant_api import Int8DynamicActivationIntxWeightConfig

    bits, group = kind
    quantize_(module, Int8DynamicActivationIntxWeightConfig(
        weight_dtype=torch.int4 if bits == "8da4w" else torch.int8,
        weight_granularity=PerGroup(group) if group else PerAxis(0)))
    return module


def output_steps(pte_path):
    """Scales of the qint8 values the payloads convert back to fp32 (what reaches the outputs)."""
    steps = []
    for _m, _i, blob in xnnpack_dump.payloads(pte_path):
        _h, g = xnnpack_dump.decode(blob)
        vals = {}
        for v in g["xvalues"]:
            u = v["xvalue_union"]
            vals[u.get("tensor_value", u)["id_out"]] = u
        for n in g["xnodes"]:
            src = vals[n["xnode_union"].get("input_id", -1)] if "input_id" in n["xnode_union"] else {}
            dst = vals.get(n["xnode_union"].get("output_id", -1), {})
            if n["xnode_union_type"] == "XNNConvert" and "quant_params" in src and "quant_params" not in dst:
                steps.append(float(src["quant_params"]["scale"]))
    return steps


def export_quant(out_dir, name):
    from executorch.runtime import Runtime

    make_module, make_inputs, kind = QUANT[name]
    torch.manual_seed(seed_for(name))
    module = make_module().eval()
    example = make_inputs()
    if isinstance(kind, tuple):
        et = lower(_torchao_quantize(module, kind), example, None)
    elif kind == "dynamic_conv":
        from executorch.backends.xnnpack.partition.config.xnnpack_config import ConfigPrecisionType
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

        et = lower(module, example, None, _quantize_xnnpack(True),
                   lambda: XnnpackPartitioner(config_precisions=ConfigPrecisionType.DYNAMIC_QUANT, per_op_mode=True))
    else:
        et = lower(module, example, None, _quantize_xnnpack(kind == "dynamic"))
    plan = et.executorch_program.execution_plan[0]
    ops = sorted({o.name + ("." + o.overload if o.overload else "") for o in plan.operators})
    delegates = sorted({d.id for d in plan.delegates})
    if ops or delegates != ["XnnpackBackend"]:
        raise RuntimeError(f"{name}: not fully delegated: operators {ops}, delegates {delegates}")
    buf = bytes(et.buffer)
    method = Runtime.get().load_program(buf).load_method("forward")
    outs = list(method.execute([t.clone() for t in example]))
    tmp = os.path.join(out_dir, f".{name}.pte")
    os.makedirs(out_dir, exist_ok=True)
    with open(tmp, "wb") as f:
        f.write(buf)
    steps = output_steps(tmp)
    os.remove(tmp)
    if kind != "static":
        # fp32 outputs of int8 products: an int8 grid over the output range.
        steps = [max(float(np.abs(o.numpy()).max()) for o in outs) / 127.0]
    if not steps:
        raise RuntimeError(f"{name}: no quantized value reaches an output")
    meta = {
        "name": name,
        "group": "xnnpack_quant",
        "method": "forward",
        "description": (f"static int8 (PT2E XNNPACKQuantizer, per-channel) through the XNNPACK delegate: {name}; "
                        if kind == "static" else
                        f"dynamically quantized convolutions (PT2E XNNPACKQuantizer dynamic, per-channel int8; "
                        f"the dynamic-quantization partitioner per node) through the XNNPACK delegate "
                        f"(pterun's k_qconv_direct): {name}; "
                        if kind == "dynamic_conv" else
                        f"dynamically quantized linears ({'PT2E XNNPACKQuantizer dynamic, per-channel int8' if kind == 'dynamic' else 'torchao Int8DynamicActivationIntxWeightConfig ' + str(kind)}) "
                        f"through the XNNPACK delegate (pterun's int8 product): {name}; ")
        + f"expected from ExecuTorch's runtime, tolerance 2 quantization steps of the output ({max(steps):.6g})",
        "rtol": 0.0,
        "atol": 2.0 * max(steps),
        "delegates": delegates,
        **({} if name in NOT_EXACT else {"executorch_exact": True}),
        "operators": ops,
        "inputs": [{"dtype": "float32", "shape": list(t.shape)} for t in example],
        "outputs": [{"dtype": "float32", "shape": list(t.shape)} for t in outs],
    }
    meta = write_case(out_dir, name, buf, example, outs, meta)
    print(f"quant/{name}: {meta['xnnpack_nodes']}", flush=True)


# ---------------------------------------------------------------------------
# Programs the delegate must refuse
# ---------------------------------------------------------------------------


def _quantize_xnnpack(dynamic):
    def q(gm, example):
        from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
            XNNPACKQuantizer, get_symmetric_quantization_config)
        from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

        quantizer = XNNPACKQuantizer().set_global(
            get_symmetric_quantization_config(is_per_channel=True, is_dynamic=dynamic))
        m = prepare_pt2e(gm, quantizer)
        m(*example)
        return convert_pt2e(m)

    return q


REFUSED = {
    # name: (module, inputs, quantize, dtype, expected message part)
    # None left: fp16 graphs run (in fp32), and ExecuTorch 1.5.1's partitioner delegates no bf16 graph;
    # payloads/ has the refused datatypes (bf16_refused, fp16_short_constant).
}


def export_refused(out_dir, name):
    make_module, make_inputs, quantize, expect = REFUSED[name]
    torch.manual_seed(seed_for(name))
    module = make_module().eval()
    example = make_inputs()
    et = lower(module, example, None, quantize)
    plan = et.executorch_program.execution_plan[0]
    delegates = sorted({d.id for d in plan.delegates})
    if "XnnpackBackend" not in delegates:
        raise RuntimeError(f"{name}: nothing was delegated")
    ins = list(example)
    meta = {
        "name": name,
        "group": "xnnpack_refused",
        "method": "forward",
        "description": f"must be refused at load: {name}",
        "expect_error": expect,
        "delegates": delegates,
        "inputs": [{"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape)} for t in ins],
    }
    d = os.path.join(out_dir, name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(os.path.join(d, "inputs"))
    with open(os.path.join(d, "model.pte"), "wb") as f:
        f.write(bytes(et.buffer))
    for i, a in enumerate(ins):
        np.save(os.path.join(d, "inputs", f"{i}.npy"), np.array(a.detach().numpy(), order="C"))
    meta["xnnpack_nodes"] = node_types(os.path.join(d, "model.pte"))
    with open(os.path.join(d, "case.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    print(f"refused/{name}: {meta['xnnpack_nodes']}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(HERE, "cases"))
    ap.add_argument("--only", default=None)
    a = ap.parse_args()
    torch.set_num_threads(1)
    failed = []
    for name in CASES:
        if a.only and not fnmatch.fnmatchcase(name, a.only):
            continue
        try:
            export_case(os.path.join(a.out, "memory_format" if name == "channels_last" else "nodes"), name)
        except Exception as e:  # noqa: BLE001
            failed.append(name)
            print(f"FAILED {name}: {type(e).__name__}: {e}", flush=True)
    for name in REJECT_SHAPE:
        if a.only and not fnmatch.fnmatchcase(name, a.only):
            continue
        try:
            export_reject(os.path.join(a.out, "reject_shape"), name)
        except Exception as e:  # noqa: BLE001
            failed.append(name)
            print(f"FAILED reject_shape/{name}: {type(e).__name__}: {e}", flush=True)
    for name in QUANT:
        if a.only and not fnmatch.fnmatchcase(name, a.only):
            continue
        try:
            export_quant(os.path.join(a.out, "quant"), name)
        except Exception as e:  # noqa: BLE001
            failed.append(name)
            print(f"FAILED quant/{name}: {type(e).__name__}: {e}", flush=True)
    for name in REFUSED:
        if a.only and not fnmatch.fnmatchcase(name, a.only):
            continue
        try:
            export_refused(os.path.join(a.out, "refused"), name)
        except Exception as e:  # noqa: BLE001
            failed.append(name)
            print(f"FAILED refused/{name}: {type(e).__name__}: {e}", flush=True)
    if failed:
        print("failed:", " ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
