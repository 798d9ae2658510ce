#!/usr/bin/env python3
"""Real-size benchmark models from Hugging Face `transformers` model classes.

    .venv-real/bin/python bench/realsize.py [--out build/realsize] [--models resnet18,...]
                                            [--small] [--no-onnx] [--no-xnnpack]

Builds each model from its architecture class (random weights from a fixed
seed, nothing from a hub), sets every batch norm's statistics from one random
batch (so activations stay O(1) through deep CNNs), and writes

  OUT/models/<m>/    model.pte (fp32, not delegated), inputs/0.npy,
                     expected/0.npy (eager), case.json: a zoo-style case that
                     tools/conformance.py checks
  OUT/xnnpack/<m>/   the same, XNNPACK-delegated
  OUT/xnnpack_int8/<m>/  quantized the way ExecuTorch's docs do it (PT2E
                     XNNPACKQuantizer: static per-channel int8 for the CNNs
                     and ViT, dynamic int8 linears for BERT and GPT-2), delegated with
                     XnnpackPartitioner; expected/ from ExecuTorch's runtime,
                     tolerance in quantization steps of the output
  OUT/onnx/<m>/      model.onnx (torch.onnx.export of the same eager module)
  OUT/index.json     what was written, with each model's FLOPs

The files are large (up to ~50 MB a model): generate them, never commit them.
--small writes reduced-size variants (a few MB in all) for CI's one check.
Needs transformers (and onnxruntime/onnxscript for ONNX): tools/deps_real.sh
installs them into .venv-real, which also sees .venv's torch and executorch.
`build_module(name, small)` rebuilds the identical eager module (bench/run.py's
eager and ONNX Runtime peers use it and check it against expected/).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SEED = 20261201
# fp32 with different summation orders (blocked GEMMs, Winograd-free convs,
# fused softmax) over thousands of terms: relative agreement to ~1e-4 is what
# real layers give; the tolerance leaves room above that, far below a bug.
RTOL, ATOL = 2e-3, 2e-3


class Spec:
    def __init__(self, name: str, description: str, build: Callable[[bool], torch.nn.Module],
                 make_input: Callable[[bool, torch.Generator], torch.Tensor], bound: str) -> None:
        self.name, self.description, self.build, self.make_input, self.bound = name, description, build, make_input, bound


class FirstOutput(torch.nn.Module):
    """The model's main tensor (logits or last hidden state), as one output."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.model(x, return_dict=False)
        return out[0]


def _resnet(small: bool) -> torch.nn.Module:
    from transformers import ResNetConfig, ResNetForImageClassification
    cfg = ResNetConfig(layer_type="basic", embedding_size=64, hidden_sizes=[64, 128, 256, 512],
                       depths=[2, 2, 2, 2], num_labels=1000)
    if small:
        cfg = ResNetConfig(layer_type="basic", embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1], num_labels=10)
    return ResNetForImageClassification(cfg)


def _mobilenet(small: bool) -> torch.nn.Module:
    from transformers import MobileNetV2Config, MobileNetV2ForImageClassification
    cfg = MobileNetV2Config(image_size=224, num_labels=1000)
    if small:
        cfg = MobileNetV2Config(image_size=32, depth_multiplier=0.35, num_labels=10)
    return MobileNetV2ForImageClassification(cfg)


def _vit(small: bool) -> torch.nn.Module:
    from transformers import ViTConfig, ViTForImageClassification
    if small:
        cfg = ViTConfig(hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
                        image_size=32, patch_size=8, num_labels=10)
    else:
        cfg = ViTConfig(hidden_size=192, num_hidden_layers=4, num_attention_heads=3, intermediate_size=768,
                        image_size=224, patch_size=16, num_labels=1000)
    return ViTForImageClassification(cfg)


def _bert(small: bool) -> torch.nn.Module:
    from transformers import BertConfig, BertModel
    if small:
        cfg = BertConfig(vocab_size=512, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=64, max_position_embeddings=64)
    else:
        cfg = BertConfig(hidden_size=256, num_hidden_layers=4, num_attention_heads=4, intermediate_size=1024)
    return BertModel(cfg, add_pooling_layer=False)


def _gpt2(small: bool) -> torch.nn.Module:
    from transformers import GPT2Config, GPT2Model
    if small:
        cfg = GPT2Config(vocab_size=512, n_embd=32, n_layer=1, n_head=2, n_positions=64)
    else:
        cfg = GPT2Config(n_embd=256, n_layer=4, n_head=4, n_positions=1024)
    return GPT2Model(cfg)


def _image(small: bool, g: torch.Generator) -> torch.Tensor:
    s = 32 if small else 224
    return torch.randn(1, 3, s, s, generator=g)


def _tokens(n: int, n_small: int, vocab: int, vocab_small: int) -> Callable[[bool, torch.Generator], torch.Tensor]:
    def make(small: bool, g: torch.Generator) -> torch.Tensor:
        return torch.randint(0, vocab_small if small else vocab, (1, n_small if small else n), generator=g)
    return make


SPECS: Dict[str, Spec] = {s.name: s for s in [
    Spec("resnet18", "ResNet-18 (transformers ResNetForImageClassification, basic blocks [2,2,2,2]), 1x3x224x224",
         _resnet, _image, "conv"),
    Spec("mobilenet_v2", "MobileNetV2 (transformers MobileNetV2ForImageClassification, width 1.0), 1x3x224x224",
         _mobilenet, _image, "conv"),
    Spec("vit", "ViT (transformers ViTForImageClassification), 4 layers, 192 wide, 3 heads, 224x224, 16x16 patches",
         _vit, _image, "gemm"),
    Spec("bert", "BERT-style encoder (transformers BertModel), 4 layers, 256 wide, 4 heads, 128 tokens",
         _bert, _tokens(128, 16, 30522, 512), "gemm"),
    Spec("gpt2", "GPT-2-style decoder (transformers GPT2Model), 4 layers, 256 wide, 4 heads, 64 tokens",
         _gpt2, _tokens(64, 16, 50257, 512), "gemm"),
]}
# How each model is quantized (bench/run.py times these against ExecuTorch's
# int8 XNNPACK on the same file): dynamic int8 linears for the transformers
# whose activations have no calibrated range (BERT, GPT-2).
QUANT = {"resnet18": "static", "mobilenet_v2": "static", "vit": "static", "bert": "dynamic", "gpt2": "dynamic"}
# pterun and ExecuTorch round the same int8 products at every requantization;
# an off-by-one step early can move the output by a few steps: a tolerance in
# output steps, far below what a wrong scale or zero point gives.
QUANT_STEPS = 4.0
# Reduced-size variant CI checks (make test): the cheapest of the five to export.
CI_MODEL = "bert"


def _set_batchnorm_stats(module: torch.nn.Module, spec: Spec, small: bool, g: torch.Generator) -> None:
    """Random init leaves running_mean 0 / running_var 1, which lets a deep
    CNN's activations grow or vanish layer by layer; one training-mode pass
    over a random batch with a cumulative average (momentum None) makes every
    batch norm normalise what it actually sees."""
    bns = [m for m in module.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return
    for m in bns:
        m.reset_running_stats()
        m.momentum = None
    batch = torch.cat([spec.make_input(small, g) for _ in range(8)])
    module.train()
    with torch.no_grad():
        module(batch)
    module.eval()


def build_module(name: str, small: bool = False) -> Tuple[torch.nn.Module, torch.Tensor]:
    """The eager module and its input, identical on every call."""
    spec = SPECS[name]
    torch.manual_seed(SEED)
    g = torch.Generator().manual_seed(SEED + 1)
    model = spec.build(small)
    model.config._attn_implementation = "eager"  # plain matmul + softmax: exportable everywhere
    model.eval()
    _set_batchnorm_stats(model, spec, small, g)
    module = FirstOutput(model).eval()
    x = spec.make_input(small, torch.Generator().manual_seed(SEED + 2))
    return module, x


def count_flops(module: torch.nn.Module, x: torch.Tensor) -> int:
    from torch.utils.flop_counter import FlopCounterMode
    with FlopCounterMode(display=False) as fc, torch.no_grad():
        module(x)
    return int(fc.get_total_flops())


def _case_json(meta: Dict[str, Any]) -> str:
    lines = [f"  {json.dumps(k)}: {json.dumps(v, separators=(', ', ': '))}" for k, v in meta.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def _dtype(a: np.ndarray) -> str:
    return str(a.dtype)


def export_pte(module: torch.nn.Module, x: torch.Tensor, xnnpack: bool) -> Tuple[bytes, List[str], List[str]]:
    from executorch.exir import to_edge_transform_and_lower
    from executorch.exir._serialize._program import deserialize_pte_binary
    partitioner = None
    if xnnpack:
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
        partitioner = [XnnpackPartitioner()]
    with torch.no_grad():
        ep = torch.export.export(module, (x,), strict=False)
    et = to_edge_transform_and_lower(ep, partitioner=partitioner).to_executorch()
    buf = bytes(et.buffer)
    prog = deserialize_pte_binary(buf)
    prog = getattr(prog, "program", prog)
    plan = prog.execution_plan[0]
    ops = sorted({o.name + ("." + o.overload if o.overload else "") for o in plan.operators})
    return buf, ops, sorted({d.id for d in plan.delegates})


def _linears_from_conv1d(module: torch.nn.Module) -> torch.nn.Module:
    """GPT-2's projections are transformers' Conv1D (an addmm over a weight
    stored in x out), which the quantizer's linear pattern does not match:
    each becomes the nn.Linear it equals (weight transposed), as exporters
    of GPT-2 for int8 do; the fp32 forms keep the original module."""
    from transformers.pytorch_utils import Conv1D
    import copy
    convs = [(n, m) for n, m in module.named_modules() if isinstance(m, Conv1D)]
    if not convs:
        return module
    module = copy.deepcopy(module)
    for name, m in convs:
        parent, _, leaf = name.rpartition(".")
        lin = torch.nn.Linear(m.weight.shape[0], m.nf)
        lin.weight.data.copy_(m.weight.data.t())
        lin.bias.data.copy_(m.bias.data)
        setattr(module.get_submodule(parent) if parent else module, leaf, lin)
    return module


def quantize(module: torch.nn.Module, x: torch.Tensor, spec: Spec, small: bool, kind: str) -> torch.nn.Module:
    """PT2E with XNNPACKQuantizer (symmetric, per-channel weights), calibrated
    on the bench input and a few more from the same generator."""
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config)
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    with torch.no_grad():
        linear = _linears_from_conv1d(module)
        if linear is not module:
            ref, got = module(x), linear(x)  # FirstOutput: one tensor each
            if not torch.allclose(ref, got, rtol=1e-4, atol=1e-5):
                raise RuntimeError(f"{spec.name}: Conv1D -> nn.Linear changed the fp32 output by "
                                   f"{(ref - got).abs().max().item():g}")
        module = linear
        gm = torch.export.export(module, (x,), strict=False).module()
        q = XNNPACKQuantizer().set_global(
            get_symmetric_quantization_config(is_per_channel=True, is_dynamic=kind == "dynamic"))
        m = prepare_pt2e(gm, q)
        g = torch.Generator().manual_seed(SEED + 3)
        for c in [x] + [spec.make_input(small, g) for _ in range(3)]:
            m(c)
        return convert_pt2e(m)


def output_steps(pte: bytes, tmp: str) -> List[float]:
    """Scales of the qint8 values the delegate converts back to fp32 (what reaches the outputs)."""
    sys.path.insert(0, os.path.join(REPO, "tools"))
    import xnnpack_dump
    with open(tmp, "wb") as f:
        f.write(pte)
    steps = []
    try:
        for _m, _i, blob in xnnpack_dump.payloads(tmp):
            _h, g = xnnpack_dump.decode(blob)
            vals = {}
            for v in g["xvalues"]:
                u = v["xvalue_union"]
                vals[u.get("tensor_value", u)["id_out"]] = u
            for n in g["xnodes"]:
                u = n["xnode_union"]
                src = vals.get(u.get("input_id", -1), {})
                dst = vals.get(u.get("output_id", -1), {})
                if n["xnode_union_type"] == "XNNConvert" and "quant_params" in src and "quant_params" not in dst:
                    steps.append(float(src["quant_params"]["scale"]))
    finally:
        os.remove(tmp)
    return steps


def run_executorch(pte: bytes, x: torch.Tensor) -> np.ndarray:
    import executorch.kernels.quantized  # noqa: F401 - quantize/dequantize ops a partial delegation leaves
    from executorch.runtime import Runtime
    method = Runtime.get().load_program(pte).load_method("forward")
    return method.execute([x.clone()])[0].numpy().copy()


def write_case(folder: str, group: str, name: str, description: str, pte: bytes, ops: List[str],
               delegates: List[str], x: np.ndarray, y: np.ndarray, extra: Dict[str, Any]) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(os.path.join(folder, "inputs"))
    os.makedirs(os.path.join(folder, "expected"))
    with open(os.path.join(folder, "model.pte"), "wb") as f:
        f.write(pte)
    np.save(os.path.join(folder, "inputs", "0.npy"), x)
    np.save(os.path.join(folder, "expected", "0.npy"), y)
    meta = {"name": name, "group": group, "method": "forward", "description": description,
            "rtol": RTOL, "atol": ATOL, "operators": ops, "delegates": delegates, "program_methods": ["forward"],
            "inputs": [{"dtype": _dtype(x), "shape": list(x.shape)}],
            "outputs": [{"dtype": _dtype(y), "shape": list(y.shape)}]}
    meta.update(extra)
    with open(os.path.join(folder, "case.json"), "w") as f:
        f.write(_case_json(meta))


def export_onnx(module: torch.nn.Module, x: torch.Tensor, path: str) -> str:
    """torch.onnx.export of the eager module; checked with ONNX Runtime by the caller."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with torch.no_grad():
        try:
            torch.onnx.export(module, (x,), path, dynamo=True, external_data=False, verbose=False)
            return "dynamo"
        except Exception as e:  # noqa: BLE001 - fall back to the TorchScript exporter
            print(f"  onnx (dynamo) failed ({type(e).__name__}: {str(e)[:200]}); using the TorchScript exporter",
                  file=sys.stderr)
            torch.onnx.export(module, (x,), path, dynamo=False, opset_version=17)
            return "torchscript"


def run_onnx(path: str, x: np.ndarray, threads: int = 1) -> np.ndarray:
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    return sess.run(None, {sess.get_inputs()[0].name: x})[0]


def generate(name: str, out: str, small: bool, onnx: bool, xnnpack: bool, quant: bool = True,
             only_quant: bool = False) -> Dict[str, Any]:
    spec = SPECS[name]
    t0 = time.time()
    module, x = build_module(name, small)
    with torch.no_grad():
        y = module(x).detach().numpy().copy()
    xn = x.numpy()
    if not np.all(np.isfinite(y)) or float(np.abs(y).max()) > 1e3:
        raise RuntimeError(f"{name}: eager output not O(1) (max |y| {np.abs(y).max():.3g})")
    desc = spec.description + (" (reduced size)" if small else "")
    flops = count_flops(module, x)
    extra = {"seed": SEED, "small": small, "flops": flops, "bound": spec.bound, "source": "transformers"}
    entry: Dict[str, Any] = {"name": name, "description": desc, "flops": flops, "bound": spec.bound, "small": small,
                             "forms": {}}
    forms = [] if only_quant else [("models", False)] + ([("xnnpack", True)] if xnnpack else [])
    for group, deleg in forms:
        pte, ops, dels = export_pte(module, x, deleg)
        if deleg and "XnnpackBackend" not in dels:
            raise RuntimeError(f"{name}: the delegated export has no XnnpackBackend delegate")
        folder = os.path.join(out, group, name)
        write_case(folder, group, name, desc + ("; delegated to XNNPACK (XnnpackPartitioner)" if deleg else ""),
                   pte, ops, dels, xn, y, extra)
        entry["forms"][group] = {"case": os.path.relpath(folder, out), "bytes": len(pte)}
    if quant and name in QUANT:
        kind = QUANT[name]
        qm = quantize(module, x, spec, small, kind)
        pte, ops, dels = export_pte(qm, x, True)
        if "XnnpackBackend" not in dels:
            raise RuntimeError(f"{name}: the quantized export has no XnnpackBackend delegate")
        yq = run_executorch(pte, x)
        # Static: the int8 grid of the values converted to the outputs; dynamic
        # (fp32 out of int8 products, then fp32 layer norm): an int8 grid over
        # the output's range.
        steps = output_steps(pte, os.path.join(out, f".{name}.int8.pte")) if kind == "static" else []
        step = max(steps) if steps else float(np.abs(yq).max()) / 127.0
        qdesc = (desc + f"; {kind} int8 (PT2E XNNPACKQuantizer, per-channel"
                 + (", dynamic activations" if kind == "dynamic" else "") + "), delegated to XNNPACK; "
                 + f"expected from ExecuTorch's runtime, tolerance {QUANT_STEPS:g} quantization steps ({step:.6g})")
        folder = os.path.join(out, "xnnpack_int8", name)
        eager_diff = float(np.abs(yq - y).max())
        write_case(folder, "xnnpack_int8", name, qdesc, pte, ops, dels, xn, yq,
                   dict(extra, rtol=0.0, atol=QUANT_STEPS * step, quantization=kind, quant_step=step,
                        max_abs_diff_vs_fp32_eager=eager_diff))
        entry["forms"]["xnnpack_int8"] = {"case": os.path.relpath(folder, out), "bytes": len(pte), "quantization": kind,
                                          "quant_step": step, "max_abs_diff_vs_fp32_eager": eager_diff}
    if onnx:
        path = os.path.join(out, "onnx", name, "model.onnx")
        exporter = export_onnx(module, x, path)
        got = run_onnx(path, xn)
        if not np.allclose(got, y, rtol=RTOL, atol=ATOL):
            raise RuntimeError(f"{name}: ONNX Runtime disagrees with eager (max abs diff {np.abs(got - y).max():.3g})")
        entry["forms"]["onnx"] = {"model": os.path.relpath(path, out), "bytes": os.path.getsize(path),
                                  "exporter": exporter, "max_abs_diff": float(np.abs(got - y).max())}
    entry["seconds"] = round(time.time() - t0, 1)
    return entry


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(REPO, "build", "realsize"))
    ap.add_argument("--models", help="comma-separated, from: " + ",".join(SPECS))
    ap.add_argument("--small", action="store_true", help="reduced-size variants (CI)")
    ap.add_argument("--no-onnx", action="store_true")
    ap.add_argument("--no-xnnpack", action="store_true")
    ap.add_argument("--no-quant", action="store_true", help="no int8 forms (xnnpack_int8/)")
    ap.add_argument("--only-quant", action="store_true",
                    help="write only the int8 forms, keeping the other forms index.json lists")
    args = ap.parse_args(argv)
    names = args.models.split(",") if args.models else list(SPECS)
    for n in names:
        if n not in SPECS:
            ap.error(f"unknown model {n!r}; known: {', '.join(SPECS)}")
    torch.set_num_threads(1)
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    index_path = os.path.join(out, "index.json")
    index: Dict[str, Any] = {"models": {}}
    if os.path.exists(index_path):
        with open(index_path) as f:
            index = json.load(f)
    import transformers
    index["transformers"] = transformers.__version__
    index["torch"] = torch.__version__
    for n in names:
        print(f"realsize: {n}{' (small)' if args.small else ''}", flush=True)
        if args.only_quant:
            if n not in QUANT:
                continue
            e = generate(n, out, args.small, False, False, True, only_quant=True)
            old = index["models"].get(n)
            if old:
                old["forms"].update(e["forms"])
                e = old
        else:
            e = generate(n, out, args.small, not args.no_onnx, not args.no_xnnpack, not args.no_quant)
        index["models"][n] = e
        print(f"  {e['flops'] / 1e9:.2f} GFLOP, {e['seconds']} s, "
              + ", ".join(f"{k} {v['bytes'] / 1e6:.1f} MB" for k, v in e["forms"].items()), flush=True)
        with open(index_path, "w") as f:
            json.dump(index, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
