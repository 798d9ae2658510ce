"""Small whole-model cases (group `models`) and their XNNPACK twins (group `xnnpack`)."""

from __future__ import annotations

import math
from typing import List

import torch
import torch.nn as nn
import torch.nn.functional as F

from zoo_common import Built, CaseIO, Spec, rn, ri

# ---------------------------------------------------------------------------
# Modules
# ---------------------------------------------------------------------------


class Add(nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return x + y


class MLP(nn.Module):
    def __init__(self, sizes=(32, 64, 64, 10)) -> None:
        super().__init__()
        layers: List[nn.Module] = []
        for i in range(len(sizes) - 1):
            layers.append(nn.Linear(sizes[i], sizes[i + 1]))
            if i < len(sizes) - 2:
                layers.append(nn.ReLU())
        self.net = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


def _randomize_bn(m: nn.Module) -> None:
    """Give BatchNorm layers non-trivial running statistics and affine params."""
    for mod in m.modules():
        if isinstance(mod, nn.BatchNorm2d):
            c = mod.num_features
            with torch.no_grad():
                mod.running_mean.copy_(torch.randn(c) * 0.1)
                mod.running_var.copy_(torch.rand(c) * 0.5 + 0.75)
                mod.weight.copy_(torch.rand(c) * 0.5 + 0.75)
                mod.bias.copy_(torch.randn(c) * 0.1)


class SmallCNN(nn.Module):
    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(32)
        self.pool1 = nn.MaxPool2d(2)
        self.pool2 = nn.AvgPool2d(2)
        self.fc = nn.Linear(32 * 8 * 8, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool1(F.relu(self.bn1(self.conv1(x))))
        x = self.pool2(F.relu(self.bn2(self.conv2(x))))
        return self.fc(torch.flatten(x, 1))


def _conv_bn_relu6(cin: int, cout: int, k: int, stride: int = 1, groups: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, k, stride, (k - 1) // 2, groups=groups, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU6(inplace=True),
    )


class InvertedResidual(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int, expand: int) -> None:
        super().__init__()
        hidden = cin * expand
        self.use_res = stride == 1 and cin == cout
        layers: List[nn.Module] = []
        if expand != 1:
            layers.append(_conv_bn_relu6(cin, hidden, 1))
        layers += [
            _conv_bn_relu6(hidden, hidden, 3, stride, groups=hidden),  # depthwise
            nn.Conv2d(hidden, cout, 1, bias=False),  # pointwise linear
            nn.BatchNorm2d(cout),
        ]
        self.conv = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.use_res:
            return x + self.conv(x)
        return self.conv(x)


class MobileNetV2Tiny(nn.Module):
    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        cfg = [  # expand, out, stride
            (1, 16, 1),
            (4, 24, 2),
            (4, 24, 1),
            (4, 32, 2),
            (4, 32, 1),
        ]
        layers: List[nn.Module] = [_conv_bn_relu6(3, 16, 3, 2)]
        cin = 16
        for t, c, s in cfg:
            layers.append(InvertedResidual(cin, c, s, t))
            cin = c
        layers.append(_conv_bn_relu6(cin, 64, 1))
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(64, num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(self.features(x))
        return self.classifier(torch.flatten(x, 1))


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        idt = x if self.downsample is None else self.downsample(x)
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + idt)


class ResNetTiny(nn.Module):
    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.layer1 = BasicBlock(16, 16, 1)
        self.layer2 = BasicBlock(16, 32, 2)
        self.layer3 = BasicBlock(32, 64, 2)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(64, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.layer3(self.layer2(self.layer1(self.stem(x))))
        return self.fc(torch.flatten(self.pool(x), 1))


class SelfAttention(nn.Module):
    def __init__(self, d: int, heads: int) -> None:
        super().__init__()
        self.h = heads
        self.dk = d // heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q = q.reshape(b, t, self.h, self.dk).transpose(1, 2)
        k = k.reshape(b, t, self.h, self.dk).transpose(1, 2)
        v = v.reshape(b, t, self.h, self.dk).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(self.dk)) + mask
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        return self.proj(y)


class EncoderLayer(nn.Module):
    def __init__(self, d: int, heads: int, ff: int) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = SelfAttention(d, heads)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, ff)
        self.fc2 = nn.Linear(ff, d)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x), mask)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class TransformerTiny(nn.Module):
    def __init__(self, vocab: int = 64, d: int = 32, heads: int = 4, ff: int = 64, layers: int = 2, max_len: int = 16) -> None:
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(max_len, d) * 0.1)
        self.layers = nn.ModuleList([EncoderLayer(d, heads, ff) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)
        causal = torch.triu(torch.full((max_len, max_len), -1e9), diagonal=1)
        self.register_buffer("mask", causal)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        t = ids.shape[1]
        x = self.tok(ids) + self.pos[:t]
        mask = self.mask[:t, :t]
        for layer in self.layers:
            x = layer(x, mask)
        return self.head(self.ln_f(x))


class DynamicBatchNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.ln = nn.LayerNorm(32)
        self.fc2 = nn.Linear(32, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.ln(F.relu(self.fc1(x)))
        return F.softmax(self.fc2(h), dim=-1)


class Encoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(16, 24)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.fc(x))


class Classifier(nn.Module):
    """forward = head(encoder(x)); shares its encoder with the `encode` method."""

    def __init__(self, encoder: Encoder) -> None:
        super().__init__()
        self.encoder = encoder
        self.head = nn.Linear(24, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(F.relu(self.encoder(x)))


class DynamicSymbolic(nn.Module):
    """Symbolic sizes at run time: sym_size, a view by a symbolic shape
    (et_view), scalar arithmetic on sizes (executorch_prim ops), sized creation."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(24, 5)

    def forward(self, x: torch.Tensor):
        b = x.shape[0]
        y = self.fc(x.reshape(b, -1))
        z = torch.zeros(b * 2, 5)
        return torch.cat([y, y], 0) + z, y.sum(0) / b


class DynamicArith(nn.Module):
    """Sizes computed from a symbolic batch with +, -, //, %, /, ceil and
    round: each a scalar executorch_prim op on SymInts at run time."""

    def forward(self, x: torch.Tensor):
        b = x.shape[0]
        total = x.sum()
        return (torch.zeros(b + 1, 2) + total, torch.zeros(b - 1, 2) + total, torch.zeros(b // 2 + 1, 2) + total,
                torch.zeros(b % 3 + 2, 2) + total, x * (b / 4), torch.zeros(math.ceil(b / 2) + 1) + total,
                torch.zeros(round(b / 2) + 1) + total)


class ScanCumSum(nn.Module):
    """torch scan over a dynamic length: the loop's stacked output (et_copy_index)
    must come back at the run's length, not the upper bound (ExecuTorch's
    test_run_emit_scan_dynamic_shape)."""

    def forward(self, xs: torch.Tensor):
        from torch._higher_order_ops.scan import scan

        def combine(carry: torch.Tensor, x: torch.Tensor):
            new = carry + x
            return new, new.clone()

        return scan(combine, torch.zeros_like(xs[0]), xs)


class ControlFlow(nn.Module):
    """torch.cond: the program branches with JumpFalseCall and MoveCall."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(6, 6)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        def yes(x: torch.Tensor) -> torch.Tensor:
            return torch.sin(self.fc(x)) + 1.0

        def no(x: torch.Tensor) -> torch.Tensor:
            return torch.cos(x) * 2.0 - 1.0

        return torch.cond(x.sum() > 0, yes, no, (x,))


# ---------------------------------------------------------------------------
# Specs
# ---------------------------------------------------------------------------


def _single(name: str, make_module, make_inputs) -> callable:
    def build() -> Built:
        m = make_module().eval()
        ins = tuple(make_inputs())
        return Built(methods={"forward": (m, ins, None)}, cases=[CaseIO(name, "forward", ins)])

    return build


def _build_cnn(cls):
    def make():
        m = cls()
        _randomize_bn(m)
        return m

    return make


def _build_dynamic() -> Built:
    m = DynamicBatchNet().eval()
    example = (rn(3, 16),)
    batch = torch.export.Dim("batch", min=1, max=8)
    cases = [CaseIO(f"dynamic_batch_b{b}", "forward", (rn(b, 16),), f"dynamic batch model run with batch size {b}") for b in (1, 3, 8)]
    return Built(methods={"forward": (m, example, ({0: batch},))}, cases=cases)


def _build_dynamic_symbolic() -> Built:
    m = DynamicSymbolic().eval()
    batch = torch.export.Dim("batch", min=1, max=6)
    cases = [CaseIO(f"dynamic_symbolic_b{b}", "forward", (rn(b, 4, 6),),
                    f"symbolic sizes (sym_size, et_view, prim mul) run with batch {b}") for b in (2, 5)]
    return Built(methods={"forward": (m, (rn(3, 4, 6),), ({0: batch},))}, cases=cases)


def _build_dynamic_arith() -> Built:
    batch = torch.export.Dim("batch", min=3, max=8)
    cases = [CaseIO(f"dynamic_arith_b{b}", "forward", (rn(b, 3),),
                    f"sizes from symbolic batch arithmetic (prim add, sub, floordiv, mod, truediv, ceil, round), batch {b}")
             for b in (3, 7)]
    return Built(methods={"forward": (DynamicArith().eval(), (rn(4, 3),), ({0: batch},))}, cases=cases)


def _build_scan() -> Built:
    seq = torch.export.Dim("seq", min=1, max=8)
    cases = [CaseIO(f"dynamic_scan_l{n}", "forward", (rn(n, 3),),
                    f"scan (sym_size, select_copy, et_copy_index, JumpFalseCall loop) over length {n} of at most 8")
             for n in (1, 5, 8)]
    return Built(methods={"forward": (ScanCumSum().eval(), (rn(8, 3),), ({0: seq},))}, cases=cases)


def _build_control_flow() -> Built:
    m = ControlFlow().eval()
    pos = rn(3, 6).abs() + 0.1
    neg = -(rn(3, 6).abs() + 0.1)
    return Built(
        methods={"forward": (m, (pos,), None)},
        cases=[CaseIO("control_flow_true", "forward", (pos,), "torch.cond taking the true branch (JumpFalseCall, MoveCall)"),
               CaseIO("control_flow_false", "forward", (neg,), "torch.cond taking the false branch (JumpFalseCall, MoveCall)")],
    )


def _build_two_methods() -> Built:
    enc = Encoder()
    cls = Classifier(enc).eval()
    enc.eval()
    x_f = (rn(2, 16),)
    x_e = (rn(3, 16),)
    return Built(
        methods={"forward": (cls, x_f, None), "encode": (enc, x_e, None)},
        cases=[
            CaseIO("two_methods_forward", "forward", x_f, "two-method program, method `forward` (classifier = head(encoder(x)))"),
            CaseIO("two_methods_encode", "encode", x_e, "two-method program, method `encode` (tanh(linear(x)), shares weights with forward)"),
        ],
    )


MODEL_DEFS = [
    # name, build, description, case names, extra kwargs
    ("add", _single("add", Add, lambda: (rn(2, 2), rn(2, 2))), "x + y on two 2x2 float32 tensors (README example)", None, {}),
    ("mlp", _single("mlp", MLP, lambda: (rn(4, 32),)), "MLP 32-64-64-10 with ReLU (Linear+ReLU stack), batch 4", None, {}),
    ("small_cnn", _single("small_cnn", _build_cnn(SmallCNN), lambda: (rn(1, 3, 32, 32),)),
     "small CNN: conv-bn-relu-maxpool, conv-bn-relu-avgpool, flatten, linear; input 1x3x32x32", None, {}),
    ("mobilenet_v2_tiny", _single("mobilenet_v2_tiny", _build_cnn(MobileNetV2Tiny), lambda: (rn(1, 3, 32, 32),)),
     "MobileNetV2-style: inverted residual blocks (pointwise expand, depthwise 3x3, pointwise project), ReLU6, "
     "residual adds, adaptive avg pool, dropout (eval), linear; input 1x3x32x32", None, {}),
    ("resnet_tiny", _single("resnet_tiny", _build_cnn(ResNetTiny), lambda: (rn(1, 3, 32, 32),)),
     "ResNet-style: stem + 3 basic blocks (BN, residual adds, strided 1x1 downsample), adaptive avg pool, linear; input 1x3x32x32",
     None, {}),
    ("transformer_tiny", _single("transformer_tiny", TransformerTiny, lambda: (ri(0, 64, 2, 8),)),
     "tiny causal transformer: token embedding + learned positions, 2 pre-LN encoder layers (hand-written 4-head attention "
     "with additive causal mask, softmax, GELU MLP, residuals), final layer norm, vocab head; input int64 ids [2, 8]",
     None, {}),
    ("dynamic_batch", _build_dynamic,
     "Linear-ReLU-LayerNorm-Linear-softmax exported with a dynamic batch dimension Dim('batch', min=1, max=8)",
     ["dynamic_batch_b1", "dynamic_batch_b3", "dynamic_batch_b8"], {"dynamic": True}),
    ("two_methods", _build_two_methods, "program with two methods: forward and encode",
     ["two_methods_forward", "two_methods_encode"], {}),
    ("dynamic_symbolic", _build_dynamic_symbolic,
     "Linear on a view by a symbolic batch size, sized zeros, cat, mean by the batch size (prim ops on SymInts)",
     ["dynamic_symbolic_b2", "dynamic_symbolic_b5"], {"dynamic": True}),
    ("dynamic_arith", _build_dynamic_arith, "Tensors sized by +, -, //, %, ceil, round of a symbolic batch, and x * (batch / 4)",
     ["dynamic_arith_b3", "dynamic_arith_b7"], {"dynamic": True, "delegate": False}),
    ("dynamic_scan", _build_scan, "scan of a running sum over a dynamic length Dim('seq', min=1, max=8): final carry "
     "and the stacked sums", ["dynamic_scan_l1", "dynamic_scan_l5", "dynamic_scan_l8"],
     {"dynamic": True, "delegate": False}),
    # XnnpackPartitioner 1.5.1 cannot lower a Linear inside a cond branch, so
    # this model has no delegated form.
    ("control_flow", _build_control_flow, "torch.cond between two branches (one with a Linear)",
     ["control_flow_true", "control_flow_false"], {"delegate": False}),
    ("external_weights", _single("external_weights", lambda: MLP((16, 32, 32, 4)), lambda: (rn(2, 16),)),
     "MLP 16-32-32-4 whose weights live in model.ptd (external constants)", None, {"external": True}),
]


def build_model_specs() -> List[Spec]:
    specs: List[Spec] = []
    for group, xnn in (("models", False), ("xnnpack", True)):
        for name, build, desc, case_names, kw in MODEL_DEFS:
            kw = dict(kw)
            if not kw.pop("delegate", True) and xnn:
                continue
            d = desc + ("; delegated to XNNPACK (XnnpackPartitioner)" if xnn else "")
            specs.append(
                Spec(
                    group=group,
                    name=name,
                    build=build,
                    description=d,
                    case_names=list(case_names or [name]),
                    xnnpack=xnn,
                    seed_key="model:" + name,  # same weights and inputs in both groups
                    **kw,
                )
            )
    return specs
