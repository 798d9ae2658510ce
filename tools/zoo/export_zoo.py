#!/usr/bin/env python3
"""Export the pterun test zoo.

    python3 tools/zoo/export_zoo.py --out zoo [--only PATTERN] [--jobs N]

Each case folder gets model.pte (+ model.ptd), inputs/N.npy, expected/N.npy
(eager PyTorch on the same module and inputs) and case.json.  Every exported
program is also run through ExecuTorch's own runtime and compared against
eager; the result is recorded as "executorch_agrees".  See README.md.
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import json
import os
import random
import shutil
import sys
import tempfile
import time
import traceback
import warnings
from typing import Any, Dict, List, Optional, Sequence, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

warnings.filterwarnings("ignore")
os.environ.setdefault("PYTHONWARNINGS", "ignore")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from zoo_common import Built, Spec, seed_for  # noqa: E402

GROUPS = ("ops", "models", "xnnpack", "llm", "quantized")


# ---------------------------------------------------------------------------
# Registry
# ---------------------------------------------------------------------------

_REGISTRY: Optional[List[Spec]] = None


def all_specs() -> List[Spec]:
    global _REGISTRY
    if _REGISTRY is None:
        from zoo_llm import build_llm_specs
        from zoo_models import build_model_specs
        from zoo_ops import build_op_specs
        from zoo_training import build_training_specs
        from zoo_quant import build_quant_specs

        specs = (build_op_specs() + build_training_specs() + build_model_specs() + build_llm_specs()
                 + build_quant_specs())
        seen = set()
        for s in specs:
            for cn in s.case_names:
                key = (s.group, cn)
                if key in seen:
                    raise ValueError(f"duplicate case {s.group}/{cn}")
                seen.add(key)
        _REGISTRY = specs
    return _REGISTRY


def find_spec(group: str, name: str) -> Spec:
    for s in all_specs():
        if s.group == group and s.name == name:
            return s
    raise KeyError(f"{group}/{name}")


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


@contextlib.contextmanager
def captured_fd2():
    """Redirects the process-level stderr (fd 2) to a temp file, so the
    C++ runtime's log lines do not flood the console; yields a function that
    returns what was captured."""
    sys.stderr.flush()
    saved = os.dup(2)
    tmp = tempfile.TemporaryFile(mode="w+b")
    os.dup2(tmp.fileno(), 2)
    text: List[str] = []

    def get() -> str:
        return "".join(text)

    try:
        yield get
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        tmp.seek(0)
        text.append(tmp.read().decode("utf-8", "replace"))
        tmp.close()


def op_name(op: Any) -> str:
    return f"{op.name}.{op.overload}" if op.overload else op.name


def to_numpy(t: torch.Tensor) -> np.ndarray:
    # np.array(..., order="C") keeps 0-d arrays 0-d (np.ascontiguousarray would not).
    return np.array(t.detach().cpu().contiguous().numpy(), order="C", copy=True)


def dump_case_json(meta: Dict[str, Any]) -> str:
    """One top-level key per line, values compact: easy to read and diff."""
    lines = [f"  {json.dumps(k)}: {json.dumps(v, separators=(', ', ': '))}" for k, v in meta.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def dtype_str(a: np.ndarray) -> str:
    return str(a.dtype)


def compare(got: np.ndarray, exp: np.ndarray, rtol: float, atol: float) -> Tuple[bool, str]:
    if got.dtype != exp.dtype:
        return False, f"dtype {got.dtype} != expected {exp.dtype}"
    if got.shape != exp.shape:
        return False, f"shape {got.shape} != expected {exp.shape}"
    if exp.dtype.kind in "fc":
        ok = np.allclose(got, exp, rtol=rtol, atol=atol, equal_nan=True)
        if not ok:
            diff = np.abs(got.astype(np.float64) - exp.astype(np.float64))
            return False, f"max abs diff {np.nanmax(diff):.3g}"
        return True, ""
    ok = np.array_equal(got, exp)
    return ok, "" if ok else "values differ"


def _matches(pattern: str, group: str, case_name: str) -> bool:
    """--only matches the case name, or "group/case" when the pattern has a
    slash; several patterns are separated by commas."""
    for p in pattern.split(","):
        target = f"{group}/{case_name}" if "/" in p else case_name
        if fnmatch.fnmatchcase(target, p):
            return True
    return False


def seed_all(key: str) -> int:
    s = seed_for(key)
    torch.manual_seed(s)
    np.random.seed(s)
    random.seed(s)
    return s


def flatten_outputs(out: Any) -> List[torch.Tensor]:
    leaves, _ = torch.utils._pytree.tree_flatten(out)
    for leaf in leaves:
        if not isinstance(leaf, torch.Tensor):
            raise TypeError(f"non-tensor output {type(leaf)}")
    return list(leaves)


def clone_inputs(ins: Sequence[torch.Tensor]) -> List[torch.Tensor]:
    return [t.detach().clone() for t in ins]


# ---------------------------------------------------------------------------
# Export one spec
# ---------------------------------------------------------------------------


def _export_methods(spec: Spec, built: Built) -> Dict[str, Any]:
    eps = {}
    for method, (module, example, dyn) in built.methods.items():
        module.eval()
        if spec.external and spec.xnnpack:
            # Tag constants so the XNNPACK delegate also stores its weights in model.ptd.
            from executorch.exir.passes.external_constants_pass import delegate_external_constants_pass_unlifted

            gm = torch.export.export(module, example, dynamic_shapes=dyn, strict=True).module()
            delegate_external_constants_pass_unlifted(module=gm, gen_tag_fn=lambda _n: "model")
            ep = torch.export.export(gm, example, dynamic_shapes=dyn, strict=True)
        else:
            ep = torch.export.export(module, example, dynamic_shapes=dyn)
        eps[method] = ep
    return eps


def _expected_outputs(ep: Any, module: torch.nn.Module, inputs: Sequence[torch.Tensor]) -> List[torch.Tensor]:
    """Eager outputs laid out like the method's outputs: user-input mutations
    first (in graph-signature order), then the user outputs."""
    from torch.export.graph_signature import OutputKind

    ins = clone_inputs(inputs)
    with torch.no_grad():
        outs = flatten_outputs(module(*ins))
    sig = ep.graph_signature
    user_inputs = list(sig.user_inputs)
    result: List[torch.Tensor] = []
    user_out_i = 0
    for os_ in sig.output_specs:
        if os_.kind == OutputKind.USER_INPUT_MUTATION:
            result.append(ins[user_inputs.index(os_.target)])
        elif os_.kind == OutputKind.USER_OUTPUT:
            result.append(outs[user_out_i])
            user_out_i += 1
        else:
            raise RuntimeError(f"unsupported output kind {os_.kind} (buffer mutation etc.)")
    if user_out_i != len(outs):
        raise RuntimeError("output count mismatch between eager and exported program")
    return [o.detach().clone() for o in result]


def _run_executorch(pte: str, ptd: Optional[str], method: str, inputs: Sequence[torch.Tensor]) -> Tuple[Optional[List[np.ndarray]], str]:
    from executorch.runtime import Runtime

    with captured_fd2() as log:
        try:
            prog = Runtime.get().load_program(pte, data_path=ptd)
            m = prog.load_method(method)
            outs = m.execute(clone_inputs(inputs))
            res = [to_numpy(o) for o in outs]
            err = ""
        except Exception as e:  # noqa: BLE001
            res = None
            err = f"{type(e).__name__}: {e}"
    if res is None:
        lines = [ln for ln in log().splitlines() if ln.strip() and "cpuinfo" not in ln]
        keys = ("Missing operator", "Check failed", "failed", "not found", "Error", "error")
        important = [ln for ln in lines if any(k in ln for k in keys)]
        tail = "; ".join((important or lines)[-4:])
        return None, (err + (" | " + tail if tail else ""))[:600]
    return res, ""


def export_spec(group: str, name: str, out_root: str, only: Optional[str]) -> List[Dict[str, Any]]:
    """Exports one spec and writes its case folders. Returns per-case summaries."""
    from executorch.exir import EdgeCompileConfig, ExecutorchBackendConfig, to_edge_transform_and_lower
    from executorch.exir._serialize._program import deserialize_pte_binary

    spec = find_spec(group, name)
    seed = seed_all(spec.seed_key)
    built = spec.build()
    eps = _export_methods(spec, built)

    partitioner = None
    if spec.xnnpack:
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

        partitioner = [XnnpackPartitioner()]
    # A preserved op may be outside the core ATen opset (the bit shifts): the
    # verifier must let it through too.
    check_ir = spec.extra.get("export_check_ir_validity", True)
    compile_config = (EdgeCompileConfig(preserve_ops=list(spec.preserve_ops),
                                        _core_aten_ops_exception_list=list(spec.preserve_ops),
                                        _check_ir_validity=check_ir)
                      if spec.preserve_ops or not check_ir else None)
    edge = to_edge_transform_and_lower(eps, partitioner=partitioner, compile_config=compile_config)
    et_cfg = ExecutorchBackendConfig(
        remove_view_copy=spec.remove_view_copy,
        external_constants=(lambda _n: "model") if spec.external else False,
    )
    et = edge.to_executorch(config=et_cfg)
    buf = bytes(et.buffer)

    pte_file = deserialize_pte_binary(buf)
    program = getattr(pte_file, "program", pte_file)
    plans = {p.name: p for p in program.execution_plan}
    if set(plans) != set(built.methods):
        raise RuntimeError(f"methods {sorted(plans)} != {sorted(built.methods)}")

    ptd_bytes: Optional[bytes] = None
    if spec.external:
        with tempfile.TemporaryDirectory() as td:
            et.write_tensor_data_to_file(td)
            files = sorted(os.listdir(td))
            if files != ["model.ptd"]:
                raise RuntimeError(f"expected exactly model.ptd, got {files}")
            with open(os.path.join(td, "model.ptd"), "rb") as f:
                ptd_bytes = f.read()

    summaries = []
    for c in built.cases:
        if only and not _matches(only, spec.group, c.name):
            continue
        plan = plans[c.method]
        operators = sorted({op_name(o) for o in plan.operators})
        delegates = sorted({d.id for d in plan.delegates})
        if spec.op and spec.op not in operators:
            raise RuntimeError(f"{c.name}: intended operator {spec.op} absent from exported program; got {operators}")
        if spec.xnnpack and "XnnpackBackend" not in delegates:
            raise RuntimeError(f"{c.name}: delegated export has no XnnpackBackend delegate (delegates={delegates})")
        module = built.methods[c.method][0]
        expected = [to_numpy(t) for t in _expected_outputs(et.exported_program(c.method), module, c.inputs)]
        eager_note = ""
        if spec.extra.get("expected_from") == "executorch runtime":
            # Quantized cases: int8 arithmetic differs from the fake-quantized eager graph.
            from zoo_quant import expected_from_executorch

            expected, eager_note = expected_from_executorch(buf, ptd_bytes, c.method, c.inputs, expected)
        if len(expected) != len(plan.outputs):
            raise RuntimeError(f"{c.name}: {len(expected)} expected outputs but the method has {len(plan.outputs)}")
        inputs_np = [to_numpy(t) for t in c.inputs]
        if len(inputs_np) != len(plan.inputs):
            raise RuntimeError(f"{c.name}: {len(inputs_np)} inputs but the method has {len(plan.inputs)}")

        case_dir = os.path.join(out_root, spec.group, c.name)
        if os.path.isdir(case_dir):
            shutil.rmtree(case_dir)
        os.makedirs(os.path.join(case_dir, "inputs"))
        os.makedirs(os.path.join(case_dir, "expected"))
        pte_path = os.path.join(case_dir, "model.pte")
        with open(pte_path, "wb") as f:
            f.write(buf)
        ptd_path = None
        if ptd_bytes is not None:
            ptd_path = os.path.join(case_dir, "model.ptd")
            with open(ptd_path, "wb") as f:
                f.write(ptd_bytes)
        for i, a in enumerate(inputs_np):
            np.save(os.path.join(case_dir, "inputs", f"{i}.npy"), a)
        for i, a in enumerate(expected):
            np.save(os.path.join(case_dir, "expected", f"{i}.npy"), a)

        got, err = _run_executorch(pte_path, ptd_path, c.method, c.inputs)
        agrees: Optional[bool]
        note = ""
        if got is None:
            agrees = None
            note = "ExecuTorch runtime could not run this program: " + err
        elif len(got) != len(expected):
            agrees = False
            note = f"ExecuTorch returned {len(got)} outputs, expected {len(expected)}"
        else:
            agrees = True
            msgs = []
            for i, (g, e) in enumerate(zip(got, expected)):
                ok, msg = compare(g, e, spec.rtol, spec.atol)
                if not ok:
                    agrees = False
                    msgs.append(f"output {i}: {msg}")
            note = "; ".join(msgs + ([eager_note] if eager_note else []))

        meta: Dict[str, Any] = {
            "name": c.name,
            "group": spec.group,
            "method": c.method,
            "description": c.description or spec.description,
            "rtol": spec.rtol,
            "atol": spec.atol,
        }
        if spec.tolerance_reason:
            meta["tolerance_reason"] = spec.tolerance_reason
        if spec.op:
            meta["op"] = spec.op
        meta["operators"] = operators
        meta["delegates"] = delegates
        if ptd_bytes is not None:
            meta["data"] = "model.ptd"
        if spec.dynamic:
            meta["dynamic"] = True
        meta["program_methods"] = sorted(plans)
        meta["inputs"] = [{"dtype": dtype_str(a), "shape": list(a.shape)} for a in inputs_np]
        meta["outputs"] = [{"dtype": dtype_str(a), "shape": list(a.shape)} for a in expected]
        meta["executorch_agrees"] = agrees
        if note:
            meta["executorch_note"] = note
        if spec.preserve_ops:
            meta["export_preserve_ops"] = sorted(str(o) for o in spec.preserve_ops)
        if not spec.remove_view_copy:
            meta["export_remove_view_copy"] = False
        meta["seed"] = seed
        meta.update(spec.extra)
        with open(os.path.join(case_dir, "case.json"), "w") as f:
            f.write(dump_case_json(meta))
        summaries.append({"group": spec.group, "name": c.name, "agrees": agrees, "note": note, "op": spec.op})
    return summaries


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------


def _worker_init() -> None:
    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)


def _run_one(args: Tuple[str, str, str, Optional[str]]) -> Tuple[str, str, List[Dict[str, Any]], str, float]:
    group, name, out, only = args
    t0 = time.time()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = export_spec(group, name, out, only)
        return group, name, res, "", time.time() - t0
    except Exception:  # noqa: BLE001
        return group, name, [], traceback.format_exc(), time.time() - t0


def _scan(out: str) -> List[Dict[str, Any]]:
    cases = []
    for g in GROUPS:
        gd = os.path.join(out, g)
        if not os.path.isdir(gd):
            continue
        for c in sorted(os.listdir(gd)):
            p = os.path.join(gd, c, "case.json")
            if os.path.isfile(p):
                with open(p) as f:
                    cases.append(json.load(f))
    return cases


def _dir_size(path: str) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for fn in files:
            total += os.path.getsize(os.path.join(root, fn))
    return total


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="zoo", help="output directory (default: zoo)")
    ap.add_argument("--only", default=None, help="glob on case name (e.g. 'add_*'), or on group/case when it contains a slash, "
                    "several separated by commas "
                    "(e.g. 'xnnpack/*'); exports only matching cases")
    ap.add_argument("--jobs", type=int, default=1, help="parallel worker processes (default 1)")
    ap.add_argument("--list", action="store_true", help="list case names and exit")
    args = ap.parse_args(argv)

    torch.set_num_threads(1)
    specs = all_specs()
    if args.list:
        for s in specs:
            for cn in s.case_names:
                print(f"{s.group}/{cn}")
        return 0

    todo = [s for s in specs if not args.only or any(_matches(args.only, s.group, cn) for cn in s.case_names)]
    if not todo:
        print(f"no case matches {args.only!r}", file=sys.stderr)
        return 2
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    if not args.only:
        for g in GROUPS:
            gd = os.path.join(out, g)
            if not os.path.isdir(gd):
                continue
            for c in os.listdir(gd):
                # zoo/llm/tiny_*: exported by zoo_llm.py --model from its own venv
                if not (g == "llm" and c.startswith("tiny_")):
                    shutil.rmtree(os.path.join(gd, c))

    jobs = [(s.group, s.name, out, args.only) for s in todo]
    print(f"exporting {len(jobs)} programs ({sum(len(s.case_names) for s in todo)} cases max) with {args.jobs} job(s) into {out}",
          flush=True)
    t0 = time.time()
    results = []
    if args.jobs > 1:
        import multiprocessing as mp

        ctx = mp.get_context("spawn")
        with ctx.Pool(args.jobs, initializer=_worker_init) as pool:
            for r in pool.imap_unordered(_run_one, jobs):
                results.append(r)
                _progress(r, len(results), len(jobs))
    else:
        _worker_init()
        for j in jobs:
            r = _run_one(j)
            results.append(r)
            _progress(r, len(results), len(jobs))

    failures = [(g, n, err) for g, n, _res, err, _t in results if err]
    run_cases = [c for _g, _n, res, _e, _t in results for c in res]

    # Summary over what is on disk now.
    cases = _scan(out)
    per_group: Dict[str, int] = {g: 0 for g in GROUPS}
    for c in cases:
        per_group[c["group"]] = per_group.get(c["group"], 0) + 1
    all_ops = sorted({o for c in cases for o in c["operators"]})
    op_cases = [c for c in cases if c["group"] == "ops"]
    covered = {c["op"] for c in op_cases if c.get("op") in c["operators"]}
    from zoo_ops import REQUIRED_CASES, REQUIRED_OPS

    missing_ops = [o for o in REQUIRED_OPS if o not in covered]
    names = {c["name"] for c in op_cases}
    missing_cases = [n for n in REQUIRED_CASES if n not in names]
    disagree = [c for c in cases if c.get("executorch_agrees") is False]
    cannot = [c for c in cases if c.get("executorch_agrees") is None]
    size = _dir_size(out)

    print("\n================ zoo summary ================")
    print(f"exported this run: {len(run_cases)} cases in {time.time() - t0:.1f}s")
    for g in GROUPS:
        print(f"  {g:8s}: {per_group.get(g, 0)} cases")
    print(f"  total   : {len(cases)} cases, {size / 1e6:.2f} MB ({size} bytes) in {out}")
    print(f"distinct operators ({len(all_ops)}): {' '.join(all_ops)}")
    print(f"required operators not covered by an ops case: {missing_ops if missing_ops else 'none'}")
    print(f"required variant cases missing: {missing_cases if missing_cases else 'none'}")
    for c in disagree:
        print(f"WARNING: ExecuTorch disagrees with eager on {c['group']}/{c['name']}: {c.get('executorch_note', '')}")
    for c in cannot:
        print(f"NOTE: ExecuTorch could not run {c['group']}/{c['name']}: {c.get('executorch_note', '')[:200]}")
    for g, n, err in failures:
        print(f"FAILED: {g}/{n}\n{err}")
    if size > 20 * 1024 * 1024:
        print("ERROR: zoo is larger than 20 MB")
        return 1
    if failures:
        print(f"{len(failures)} program(s) FAILED")
        return 1
    if not args.only and (missing_ops or missing_cases):
        print("ERROR: required operators/cases missing")
        return 1
    return 0


def _progress(r: Tuple[str, str, List[Dict[str, Any]], str, float], i: int, n: int) -> None:
    g, name, res, err, dt = r
    status = "FAILED" if err else "ok"
    flags = ""
    for c in res:
        if c["agrees"] is False:
            flags += f" [ET DISAGREES on {c['name']}: {c['note']}]"
            print(f"WARNING: ExecuTorch disagrees with eager on {g}/{c['name']}: {c['note']}", flush=True)
        elif c["agrees"] is None:
            flags += f" [ET cannot run {c['name']}]"
    print(f"[{i}/{n}] {g}/{name}: {status} ({dt:.1f}s){flags}", flush=True)
    if err:
        print(err, flush=True)


if __name__ == "__main__":
    sys.exit(main())
