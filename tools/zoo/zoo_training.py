"""Training cases: the backward operators that the joint forward-backward
export (`torch.export.experimental._export_forward_backward`) emits, one
small program per operator (group `ops`), against eager. Kept apart from
zoo_ops.py so operator cases and training cases grow without conflicts."""

from __future__ import annotations

from typing import Any, Callable, List, Tuple

import torch

from zoo_common import F64, TOL_DEFAULT, Built, CaseIO, FnModule, Spec, rn, scalar0

aten = torch.ops.aten

_SPECS: List[Spec] = []


def _case(name: str, fn: Callable[..., Any], inputs: Callable[[], Tuple[torch.Tensor, ...]], op: str, desc: str,
          preserve: Tuple[Any, ...] = ()) -> None:
    def build() -> Built:
        ins = tuple(inputs())
        sig = ", ".join(f"{str(t.dtype).replace('torch.', '')}{list(t.shape)}" for t in ins)
        return Built(
            methods={"forward": (FnModule(fn), ins, None)},
            cases=[CaseIO(name, "forward", ins, f"{desc} | inputs: {sig}")],
        )

    rtol, atol, reason = TOL_DEFAULT
    _SPECS.append(Spec(group="ops", name=name, build=build, description=desc, op=op, rtol=rtol, atol=atol,
                       tolerance_reason=reason, preserve_ops=preserve))


def _conv_bw(stride, padding, dilation, groups, mask):
    def f(go, x, w):
        return tuple(t for t, m in zip(aten.convolution_backward(go, x, w, [w.shape[0]], stride, padding, dilation,
                                                                  False, [0] * len(stride), groups, mask), mask) if m)
    return f


def _conv_inputs(n, c, spatial, oc, groups, k, stride, padding, dilation, dt=torch.float32):
    def make():
        x = rn(n, c, *spatial, dt=dt)
        w = rn(oc, c // groups, *k, dt=dt)
        y = torch.nn.functional.conv2d(x, w, None, stride, padding, dilation, groups) if len(k) == 2 else \
            torch.nn.functional.conv1d(x, w, None, stride, padding, dilation, groups)
        return (rn(*y.shape, dt=dt), x, w)
    return make


def _backward_ops() -> None:
    op = "aten::convolution_backward.out"
    _case("convolution_backward_f32", _conv_bw([1, 1], [1, 1], [1, 1], 1, [True, True, True]),
          _conv_inputs(2, 3, (6, 5), 4, 1, (3, 3), [1, 1], [1, 1], [1, 1]), op,
          "convolution_backward of a 3x3 conv2d, padding 1: grad input, weight, bias")
    _case("convolution_backward_stride_dil_f32", _conv_bw([2, 1], [0, 2], [1, 2], 1, [True, True, True]),
          _conv_inputs(1, 2, (7, 6), 3, 1, (3, 2), [2, 1], [0, 2], [1, 2]), op,
          "convolution_backward with stride [2,1], padding [0,2], dilation [1,2]")
    _case("convolution_backward_grouped_f32", _conv_bw([1, 1], [0, 0], [1, 1], 2, [True, True, False]),
          _conv_inputs(2, 4, (5, 5), 6, 2, (2, 2), [1, 1], [0, 0], [1, 1]), op,
          "convolution_backward with 2 groups, no bias gradient")
    _case("convolution_backward_weight_only_f32", _conv_bw([1, 1], [1, 1], [1, 1], 1, [False, True, True]),
          _conv_inputs(2, 2, (4, 4), 3, 1, (3, 3), [1, 1], [1, 1], [1, 1]), op,
          "convolution_backward without the input gradient (a first layer)")
    _case("convolution_backward_1d_f64", _conv_bw([2], [1], [1], 1, [True, True, True]),
          _conv_inputs(2, 3, (9,), 2, 1, (3,), [2], [1], [1], dt=F64), op,
          "convolution_backward of a conv1d, stride 2, float64")

    op = "aten::max_pool2d_with_indices_backward.grad_input"

    def mp(k, s, p, d, ceil):
        def f(go, x):
            _, ind = aten.max_pool2d_with_indices(x, k, s, p, d, ceil)
            return aten.max_pool2d_with_indices_backward(go, x, k, s, p, d, ceil, ind)
        return f

    def mp_in(shape, k, s, p, d, ceil, dt=torch.float32):
        def make():
            x = rn(*shape, dt=dt)
            y, _ = aten.max_pool2d_with_indices(x, k, s, p, d, ceil)
            return (rn(*y.shape, dt=dt), x)
        return make

    _case("max_pool2d_backward_f32", mp([2, 2], [2, 2], [0, 0], [1, 1], False),
          mp_in((2, 3, 6, 6), [2, 2], [2, 2], [0, 0], [1, 1], False), op, "max_pool2d 2x2 backward")
    _case("max_pool2d_backward_overlap_f32", mp([3, 3], [1, 2], [1, 1], [1, 1], True),
          mp_in((1, 2, 5, 7), [3, 3], [1, 2], [1, 1], [1, 1], True), op,
          "max_pool2d 3x3 backward, overlapping windows, padding, ceil_mode")
    _case("max_pool2d_backward_3d_f64", mp([2, 2], [1, 1], [0, 0], [2, 1], False),
          mp_in((2, 5, 4), [2, 2], [1, 1], [0, 0], [2, 1], False, dt=F64), op,
          "max_pool2d backward, unbatched, dilation [2,1], float64")

    op = "aten::avg_pool2d_backward.grad_input"

    def ap(k, s, p, ceil, incl, div):
        def f(go, x):
            return aten.avg_pool2d_backward(go, x, k, s, p, ceil, incl, div)
        return f

    def ap_in(shape, k, s, p, ceil, incl, div, dt=torch.float32):
        def make():
            x = rn(*shape, dt=dt)
            y = aten.avg_pool2d(x, k, s, p, ceil, incl, div)
            return (rn(*y.shape, dt=dt), x)
        return make

    _case("avg_pool2d_backward_f32", ap([2, 2], [2, 2], [0, 0], False, True, None),
          ap_in((2, 3, 4, 6), [2, 2], [2, 2], [0, 0], False, True, None), op, "avg_pool2d 2x2 backward")
    _case("avg_pool2d_backward_pad_f32", ap([3, 3], [2, 2], [1, 1], True, False, None),
          ap_in((1, 2, 5, 6), [3, 3], [2, 2], [1, 1], True, False, None), op,
          "avg_pool2d 3x3 backward, padding, ceil_mode, count_include_pad=False")
    _case("avg_pool2d_backward_divisor_f64", ap([2, 3], [1, 2], [1, 0], False, True, 5),
          ap_in((2, 4, 5), [2, 3], [1, 2], [1, 0], False, True, 5, dt=F64), op,
          "avg_pool2d backward, unbatched, padding, divisor_override 5, float64")


def _decomposed_backward_ops() -> None:
    """Backward operators the default joint export decomposes (kept with
    preserve_ops, as an exporter keeping fused gradients would emit them)."""
    p = (lambda op: (op,))
    _case("threshold_backward_f32", lambda g, x: aten.threshold_backward(g, x, 0.0),
          lambda: (rn(3, 5), rn(3, 5)), "aten::threshold_backward.grad_input",
          "threshold_backward (ReLU's gradient), threshold 0", p(aten.threshold_backward.default))
    _case("threshold_backward_f64", lambda g, x: aten.threshold_backward(g, x, 0.25),
          lambda: (rn(2, 3, 4, dt=F64), rn(2, 3, 4, dt=F64)), "aten::threshold_backward.grad_input",
          "threshold_backward, threshold 0.25, float64", p(aten.threshold_backward.default))
    _case("gelu_backward_f32", lambda g, x: aten.gelu_backward(g, x),
          lambda: (rn(4, 6), rn(4, 6, scale=3.0)), "aten::gelu_backward.grad_input", "gelu_backward, exact",
          p(aten.gelu_backward.default))
    _case("gelu_backward_tanh_f64", lambda g, x: aten.gelu_backward(g, x, approximate="tanh"),
          lambda: (rn(3, 7, dt=F64), rn(3, 7, scale=3.0, dt=F64)), "aten::gelu_backward.grad_input",
          "gelu_backward, tanh approximation, float64", p(aten.gelu_backward.default))

    def lsm(g, x):
        return aten._log_softmax_backward_data(g, torch.log_softmax(x, 1), 1, x.dtype)

    def sm(g, x):
        return aten._softmax_backward_data(g, torch.softmax(x, 0), 0, x.dtype)

    _case("log_softmax_backward_f32", lsm, lambda: (rn(3, 5, 2), rn(3, 5, 2)),
          "aten::_log_softmax_backward_data.out", "_log_softmax_backward_data along dim 1",
          p(aten._log_softmax_backward_data.default))
    _case("softmax_backward_f32", sm, lambda: (rn(4, 3), rn(4, 3)), "aten::_softmax_backward_data.out",
          "_softmax_backward_data along dim 0", p(aten._softmax_backward_data.default))

    nll_f = aten.nll_loss_forward.default
    nll_b = aten.nll_loss_backward.default

    def tgt(n, c):
        return torch.randint(0, c, (n,))

    _case("nll_loss_forward_mean_f32", lambda x, t: aten.nll_loss_forward(x, t, None, 1, -100),
          lambda: (torch.log_softmax(rn(5, 4), 1), tgt(5, 4)), "aten::nll_loss_forward.output",
          "nll_loss_forward, mean reduction", (nll_f,))

    def nll_w(x, t, w):
        return aten.nll_loss_forward(x, t, w, 2, 1)

    _case("nll_loss_forward_weight_sum_f64", nll_w,
          lambda: (rn(6, 3, dt=F64), tgt(6, 3), torch.rand(3, dtype=F64) + 0.5), "aten::nll_loss_forward.output",
          "nll_loss_forward, class weights, sum, ignore_index 1", (nll_f,))

    def nll_none(x, t):
        return aten.nll_loss_forward(x, t, None, 0, 2)[0]

    _case("nll_loss_forward_none_f32", nll_none, lambda: (rn(4, 3), tgt(4, 3)), "aten::nll_loss_forward.output",
          "nll_loss_forward, no reduction, ignore_index 2", (nll_f,))

    def nll_bw_mean(g, x, t, w):
        _, tw = aten.nll_loss_forward(x, t, w, 1, -100)
        return aten.nll_loss_backward(g, x, t, w, 1, -100, tw)

    _case("nll_loss_backward_mean_f32", nll_bw_mean,
          lambda: (scalar0(0.75), rn(5, 4), tgt(5, 4), torch.rand(4) + 0.5), "aten::nll_loss_backward.grad_input",
          "nll_loss_backward, class weights, mean", (nll_f, nll_b))

    def nll_bw_none(g, x, t):
        _, tw = aten.nll_loss_forward(x, t, None, 2, 0)
        return aten.nll_loss_backward(g, x, t, None, 0, 0, tw)

    _case("nll_loss_backward_none_f64", nll_bw_none, lambda: (rn(6, dt=F64), rn(6, 3, dt=F64), tgt(6, 3)),
          "aten::nll_loss_backward.grad_input", "nll_loss_backward, no reduction, ignore_index 0, float64",
          (nll_f, nll_b))

    ln_b = aten.native_layer_norm_backward.default

    def ln(mask, affine):
        def f(g, x, w, b):
            _, mean, rstd = aten.native_layer_norm(x, [x.shape[-1]], w, b, 1e-5)
            outs = aten.native_layer_norm_backward(g, x, [x.shape[-1]], mean, rstd, w if affine else None,
                                                   b if affine else None, mask)
            return tuple(o for o, m in zip(outs, mask) if m)
        return f

    _case("native_layer_norm_backward_f32", ln([True, True, True], True),
          lambda: (rn(2, 3, 8), rn(2, 3, 8), rn(8), rn(8)), "aten::native_layer_norm_backward.out",
          "native_layer_norm_backward over the last dim: input, weight and bias gradients", (ln_b,))
    _case("native_layer_norm_backward_noaffine_f64", ln([True, False, False], False),
          lambda: (rn(4, 6, dt=F64), rn(4, 6, dt=F64), rn(6, dt=F64), rn(6, dt=F64)),
          "aten::native_layer_norm_backward.out", "native_layer_norm_backward without weight, float64", (ln_b,))

    bn_b = aten.native_batch_norm_backward.default

    def bn_train(g, x, w):
        _, mean, invstd = aten._native_batch_norm_legit.no_stats(x, w, None, True, 0.1, 1e-5)
        return aten.native_batch_norm_backward(g, x, w, None, None, mean, invstd, True, 1e-5, [True, True, True])

    def bn_eval(g, x, w, rm, rv):
        outs = aten.native_batch_norm_backward(g, x, w, rm, rv, None, None, False, 1e-3, [True, True, False])
        return outs[0], outs[1]

    _case("native_batch_norm_backward_train_f32", bn_train, lambda: (rn(2, 3, 4, 4), rn(2, 3, 4, 4), rn(3)),
          "aten::native_batch_norm_backward.out", "native_batch_norm_backward with batch statistics", (bn_b,))
    _case("native_batch_norm_backward_eval_f64", bn_eval,
          lambda: (rn(3, 2, 5, dt=F64), rn(3, 2, 5, dt=F64), rn(2, dt=F64), rn(2, dt=F64),
                   torch.rand(2, dtype=F64) + 0.5),
          "aten::native_batch_norm_backward.out", "native_batch_norm_backward with running statistics, float64",
          (bn_b,))


def build_training_specs() -> List[Spec]:
    if not _SPECS:
        _backward_ops()
        _decomposed_backward_ops()
    return list(_SPECS)


# ---------------------------------------------------------------------------
# Training cases (zoo/training/<case>/): a joint forward-backward program,
# one batch, and the losses eager torch.optim.SGD reaches over 20 steps.
# Run: python3 tools/zoo/zoo_training.py --out zoo
# Layout: model.pte, inputs/N.npy, training.json (not case.json: these are
# not inference cases), and for `infer` cases inference.pte (the same model
# exported for inference with external constants) with
# expected/inference.npy, its eager output after training.
# ---------------------------------------------------------------------------

import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

STEPS = 20


class TrMLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 3)

    def logits(self, x):
        return self.fc2(F.relu(self.fc1(x)))

    def forward(self, x, y):
        out = self.logits(x)
        return F.cross_entropy(out, y), out.detach()


class TrCNN(nn.Module):
    """Conv, batch norm (batch statistics), ReLU, max pool, conv, average pool, linear."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(2, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4, track_running_stats=False)
        self.conv2 = nn.Conv2d(4, 4, 3)
        self.fc = nn.Linear(4, 3)

    def logits(self, x):
        h = F.max_pool2d(F.relu(self.bn(self.conv1(x))), 2)
        h = F.avg_pool2d(self.conv2(h), 2)
        return self.fc(h.flatten(1))

    def forward(self, x, y):
        out = self.logits(x)
        return F.cross_entropy(out, y), out.detach()


class TrBlock(nn.Module):
    """A pre-norm transformer block (one head) and a mean-pooled classifier."""

    def __init__(self) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(8)
        self.qkv = nn.Linear(8, 24)
        self.proj = nn.Linear(8, 8)
        self.ln2 = nn.LayerNorm(8)
        self.ff1 = nn.Linear(8, 16)
        self.ff2 = nn.Linear(16, 8)
        self.head = nn.Linear(8, 5)

    def logits(self, x):
        q, k, v = self.qkv(self.ln1(x)).split(8, -1)
        x = x + self.proj(torch.softmax(q @ k.transpose(-1, -2) / 8**0.5, -1) @ v)
        x = x + self.ff2(F.gelu(self.ff1(self.ln2(x))))
        return self.head(x).mean(1)

    def forward(self, x, y):
        out = self.logits(x)
        return F.cross_entropy(out, y), out.detach()


class _Logits(nn.Module):
    """The inference view of a training model (same parameter names)."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        for name, child in model.named_children():
            self.add_module(name, child)
        self._fwd = type(model).logits

    def forward(self, x):
        return self._fwd(self, x)


# name: (model, inputs, SGD options, with an inference program)
TRAINING_CASES = {
    "mlp_sgd": (TrMLP, lambda: (torch.randn(6, 4), torch.randint(0, 3, (6,))), dict(lr=0.1), True),
    "mlp_momentum": (TrMLP, lambda: (torch.randn(6, 4), torch.randint(0, 3, (6,))),
                     dict(lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.01), False),
    "cnn_nesterov": (TrCNN, lambda: (torch.randn(4, 2, 8, 8), torch.randint(0, 3, (4,))),
                     dict(lr=0.01, momentum=0.9, nesterov=True, weight_decay=0.001), True),
    "transformer_momentum": (TrBlock, lambda: (torch.randn(2, 4, 8), torch.randint(0, 5, (2,))),
                             dict(lr=0.1, momentum=0.5), False),
}


def _training_program(model: nn.Module, inputs) -> bytes:
    from executorch.exir import to_edge
    from torch.export.experimental import _export_forward_backward

    ep = torch.export.export(model, inputs, strict=False)
    ep = _export_forward_backward(ep)
    return bytes(to_edge(ep).to_executorch().buffer)


def _inference_program(model: nn.Module, x) -> bytes:
    from executorch.exir import ExecutorchBackendConfig, to_edge_transform_and_lower

    ep = torch.export.export(_Logits(model).eval(), (x,))
    et = to_edge_transform_and_lower({"forward": ep}).to_executorch(
        ExecutorchBackendConfig(external_constants=True))
    return bytes(et.buffer)


def export_training_case(name: str, out_root: str) -> int:
    import json
    import os
    import shutil

    import numpy as np

    from zoo_common import seed_for

    cls, make_inputs, opt, infer = TRAINING_CASES[name]
    seed = seed_for(name)
    torch.manual_seed(seed)
    model = cls().train()
    inputs = make_inputs()
    pte = _training_program(model, inputs)
    inference = _inference_program(model, inputs[0]) if infer else None
    sgd = torch.optim.SGD(model.parameters(), **opt)
    losses = []
    for _ in range(STEPS):
        sgd.zero_grad()
        loss, _ = model(*inputs)
        losses.append(float(loss))
        loss.backward()
        sgd.step()
    case_dir = os.path.join(out_root, "training", name)
    if os.path.isdir(case_dir):
        shutil.rmtree(case_dir)
    os.makedirs(os.path.join(case_dir, "inputs"))
    with open(os.path.join(case_dir, "model.pte"), "wb") as f:
        f.write(pte)
    for i, t in enumerate(inputs):
        np.save(os.path.join(case_dir, "inputs", f"{i}.npy"), t.numpy())
    meta = {
        "name": name,
        "method": "forward",
        "description": f"{cls.__doc__ or cls.__name__}: {STEPS} steps of torch.optim.SGD({opt})".strip(),
        "steps": STEPS,
        "optimizer": {"lr": opt.get("lr"), "momentum": opt.get("momentum", 0.0),
                      "dampening": opt.get("dampening", 0.0), "weight_decay": opt.get("weight_decay", 0.0),
                      "nesterov": opt.get("nesterov", False)},
        "losses": losses,
        "rtol": 1e-5,
        "parameters": [n for n, _ in model.named_parameters()],
        "seed": seed,
    }
    if inference is not None:
        os.makedirs(os.path.join(case_dir, "expected"))
        with open(os.path.join(case_dir, "inference.pte"), "wb") as f:
            f.write(inference)
        with torch.no_grad():
            np.save(os.path.join(case_dir, "expected", "inference.npy"), _Logits(model).eval()(inputs[0]).numpy())
        meta["inference"] = "inference.pte"
    with open(os.path.join(case_dir, "training.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    return sum(os.path.getsize(os.path.join(d, x)) for d, _, fs in os.walk(case_dir) for x in fs)


def main() -> int:
    import argparse
    import warnings

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default="zoo")
    ap.add_argument("--only", default="", help="comma-separated case names")
    a = ap.parse_args()
    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)
    names = [n for n in TRAINING_CASES if not a.only or n in a.only.split(",")]
    total = 0
    for n in names:
        size = export_training_case(n, a.out)
        total += size
        print(f"training/{n}: {size} bytes")
    print(f"total: {total} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
