#!/usr/bin/env python3
"""Find the first operator where pterun and eager PyTorch diverge.

    python tools/debug_diverge.py CASE_DIR [--pterun PATH] [--library LIB]...
                                  [--rtol R] [--atol A] [--work DIR] [--json]

CASE_DIR has the zoo layout: model.pte (and model.ptd when weights are
external), inputs/0.npy ..., optionally expected/0.npy ... and case.json
({"method", "rtol", "atol", ...}).

How: pterun runs the case with --debug-tensors, which writes every
instruction's outputs. The eager values come from interpreting the program's
own instruction list with PyTorch: constants from the program (or the .ptd),
inputs from the case, and for every KernelCall the same operator,
torch.ops.<ns>.<name>.<overload>, called with out tensors exactly as the
instruction lists its arguments. Instruction by instruction the two are
compared; the first output outside tolerance is reported with both values, and
that operator is run once more on pterun's own inputs to tell an operator that
is wrong from error that accumulated upstream.

Delegated subgraphs are opaque to this tool: their outputs are taken from
pterun (and said so), so the instructions after them are still checked.

Exit status: 0 no divergence, 1 divergence found, 2 the comparison could not
be made (pterun failed, an operator has no PyTorch counterpart, ...).
"""
import argparse
import json
import math
import operator
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# ScalarType codes (ExecuTorch == c10) to torch dtypes, filled lazily.
_DTYPES = {}


def torch_dtype(code):
    import torch

    if not _DTYPES:
        _DTYPES.update({0: torch.uint8, 1: torch.int8, 2: torch.int16, 3: torch.int32, 4: torch.int64,
                        5: torch.float16, 6: torch.float32, 7: torch.float64, 11: torch.bool,
                        15: torch.bfloat16, 27: torch.uint16, 28: torch.uint32, 29: torch.uint64})
    return _DTYPES[int(code)]


class Failure(Exception):
    """The comparison cannot be made."""


# ---------------------------------------------------------------- pterun run

def find_pterun(explicit):
    for cand in (explicit, os.environ.get("PTERUN"), os.path.join(REPO, "build", "cli", "pterun"),
                 shutil.which("pterun")):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    raise Failure("cannot find the pterun executable; pass --pterun PATH")


def load_case(case_dir):
    meta = {}
    path = os.path.join(case_dir, "case.json")
    if os.path.exists(path):
        with open(path) as f:
            meta = json.load(f)
    model = os.path.join(case_dir, meta.get("program", "model.pte"))
    if not os.path.exists(model):
        raise Failure(f"{model} does not exist")
    data = os.path.join(case_dir, "model.ptd")
    inputs_dir = os.path.join(case_dir, "inputs")
    inputs = []
    i = 0
    while os.path.exists(os.path.join(inputs_dir, f"{i}.npy")):
        inputs.append(os.path.join(inputs_dir, f"{i}.npy"))
        i += 1
    expected = []
    i = 0
    while os.path.exists(os.path.join(case_dir, "expected", f"{i}.npy")):
        expected.append(os.path.join(case_dir, "expected", f"{i}.npy"))
        i += 1
    return {
        "model": model,
        "data": data if os.path.exists(data) else None,
        "inputs": inputs,
        "expected": expected,
        "method": meta.get("method", "forward"),
        "rtol": float(meta.get("rtol", 1e-4)),
        "atol": float(meta.get("atol", 1e-5)),
    }


def run_pterun(pterun, case, libraries, out_dir):
    cmd = [pterun, "run", case["model"], "--method", case["method"], "--debug-tensors", out_dir, "--quiet"]
    if case["data"]:
        cmd += ["--data", case["data"]]
    for lib in libraries:
        cmd += ["--library", lib]
    for inp in case["inputs"]:
        cmd += ["--input", inp]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise Failure(f"pterun failed ({' '.join(cmd)}):\n{proc.stderr.strip()}")
    with open(os.path.join(out_dir, "index.json")) as f:
        index = json.load(f)
    if index.get("dropped_values"):
        raise Failure(f"pterun's debug buffer dropped {index['dropped_values']} values")
    return index


def load_npy(path, entry):
    arr = np.load(path)
    if entry.get("dtype") == "bfloat16":  # written as uint16 bits
        import torch

        return torch.from_numpy(arr.astype(np.int16)).view(torch.bfloat16).float().numpy()
    return arr


# ------------------------------------------------------------- the program

def load_program(case):
    from executorch.exir._serialize._program import deserialize_pte_binary

    with open(case["model"], "rb") as f:
        pte = deserialize_pte_binary(f.read())
    program = pte.program
    plans = [p for p in program.execution_plan if p.name == case["method"]]
    if not plans:
        raise Failure(f"the program has no method '{case['method']}'")
    external = {}
    if case["data"]:
        from executorch.exir._serialize._cord import Cord
        from executorch.extension.flat_tensor.serialize.serialize import FlatTensorSerializer

        with open(case["data"], "rb") as f:
            payload = FlatTensorSerializer().deserialize(Cord(f.read()))
        for key, entry in payload.named_data.items():
            external[key] = bytes(payload.buffers[entry.buffer_index])
    return pte, plans[0], external


def tensor_from_bytes(raw, t):
    import torch

    dtype = torch_dtype(t.scalar_type.value if hasattr(t.scalar_type, "value") else t.scalar_type)
    sizes = list(t.sizes)
    n = math.prod(sizes)
    elem = torch.empty((), dtype=dtype).element_size()
    if len(raw) < n * elem:
        raise Failure(f"constant of {len(raw)} bytes, expected {n * elem}")
    flat = torch.frombuffer(bytearray(raw[: n * elem]), dtype=dtype) if n else torch.empty(0, dtype=dtype)
    # Stored in dim order: view it as laid out, then permute back to logical.
    order = list(t.dim_order) if t.dim_order else list(range(len(sizes)))
    stored = flat.reshape([sizes[d] for d in order]) if sizes else flat.reshape(())
    inverse = [order.index(i) for i in range(len(order))]
    return stored.permute(inverse).contiguous() if sizes else stored


def strides_for(sizes, order):
    strides = [0] * len(sizes)
    step = 1
    for d in reversed(order):
        strides[d] = step
        step *= max(sizes[d], 1)
    return strides


def build_values(pte, plan, external, case):
    """Eager initial values: constants, planned tensors, scalars, lists (as index lists).

    Planned tensors are views into one byte arena per planned buffer, at the
    offsets the exporter chose, exactly as a runtime lays them out: the
    exporter turns views (reshape, flatten, squeeze) into tensors that share
    their base's memory without any instruction, so separate tensors would
    never see the data."""
    import torch

    arenas = [torch.zeros(int(n), dtype=torch.uint8) for n in plan.non_const_buffer_sizes]
    vals = []
    for ev in plan.values:
        v = ev.val
        kind = type(v).__name__
        if kind == "Tensor":
            dtype = torch_dtype(v.scalar_type.value if hasattr(v.scalar_type, "value") else v.scalar_type)
            info = v.extra_tensor_info
            location = getattr(info, "location", None)
            if info is not None and getattr(info, "fully_qualified_name", None) and \
                    getattr(location, "name", str(location)) == "EXTERNAL":
                key = info.fully_qualified_name
                if key not in external:
                    raise Failure(f"tensor '{key}' lives in a .ptd that the case does not have")
                vals.append(tensor_from_bytes(external[key], v))
            elif v.allocation_info is None and v.data_buffer_idx > 0:
                vals.append(tensor_from_bytes(pte.program.constant_buffer[v.data_buffer_idx].storage, v))
            elif v.allocation_info is not None:
                vals.append(planned_tensor(arenas, v, dtype))
                if v.data_buffer_idx > 0 and pte.mutable_data:  # a mutable buffer's initial value
                    vals[-1].copy_(tensor_from_bytes(pte.mutable_data[v.data_buffer_idx].storage, v))
            else:  # unplanned: its own memory, laid out in its dim order
                sizes = list(v.sizes)
                order = list(v.dim_order) if v.dim_order else list(range(len(sizes)))
                vals.append(torch.empty_strided(sizes, strides_for(sizes, order), dtype=dtype).zero_())
        elif kind == "Int":
            vals.append(int(v.int_val))
        elif kind == "Double":
            vals.append(float(v.double_val))
        elif kind == "Bool":
            vals.append(bool(v.bool_val))
        elif kind == "String":
            vals.append(v.string_val)
        elif kind == "Null":
            vals.append(None)
        elif kind == "IntList":
            vals.append(("intlist", list(v.items)))
        elif kind == "DoubleList":
            vals.append(list(v.items))
        elif kind == "BoolList":
            vals.append(list(v.items))
        elif kind == "TensorList":
            vals.append(("tensorlist", list(v.items)))
        elif kind == "OptionalTensorList":
            vals.append(("optlist", list(v.items)))
        else:
            raise Failure(f"value kind {kind} is not supported")
    if len(case["inputs"]) != len(plan.inputs):
        raise Failure(f"method takes {len(plan.inputs)} inputs, the case has {len(case['inputs'])}")
    for idx, path in zip(plan.inputs, case["inputs"]):
        arr = np.load(path)
        if isinstance(vals[idx], torch.Tensor):
            t = torch.from_numpy(np.array(arr, order="C"))  # not ascontiguousarray: it makes 0-d arrays 1-d
            if tuple(t.shape) == tuple(vals[idx].shape) and plan.values[idx].val.allocation_info is not None:
                vals[idx].copy_(t)  # into its planned memory
            else:  # unplanned, or smaller than the planned upper bound
                vals[idx] = t.clone()
        else:
            vals[idx] = arr.item()
    return vals


def planned_tensor(arenas, v, dtype):
    import torch

    a = v.allocation_info
    mid = a.memory_id
    offset = a.memory_offset_low + (a.memory_offset_high << 32)
    sizes = list(v.sizes)
    order = list(v.dim_order) if v.dim_order else list(range(len(sizes)))
    elem = torch.empty((), dtype=dtype).element_size()
    n = math.prod(sizes)
    if mid <= 0 or mid >= len(arenas) or offset + n * elem > arenas[mid].numel() or offset % elem:
        raise Failure(f"planned tensor at buffer {mid} offset {offset} is outside the plan")
    flat = arenas[mid][offset:offset + n * elem].view(dtype)
    return flat.as_strided(sizes, strides_for(sizes, order))


def resolve(vals, idx):
    """The Python value an operator receives for value `idx`."""
    v = vals[idx]
    if isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str):
        tag, items = v
        if tag == "intlist":
            return [int(resolve(vals, i)) for i in items]
        if tag == "tensorlist":
            return [resolve(vals, i) for i in items]
        if tag == "optlist":
            return [None if i == -1 else resolve(vals, i) for i in items]
    return v


def store(vals, idx, value):
    """Put pterun's value for `idx` where the program keeps it (in place for
    planned tensors, so views of it see it)."""
    import torch

    cur = vals[idx]
    if isinstance(cur, torch.Tensor):
        t = torch.from_numpy(np.array(value, order="C"))  # not ascontiguousarray: it makes 0-d arrays 1-d
        if tuple(cur.shape) == tuple(t.shape):
            cur.copy_(t.to(cur.dtype))
        else:
            vals[idx] = t.clone()
    else:
        vals[idx] = np.asarray(value).item()


def list_items(vals, idx):
    v = vals[idx]
    if isinstance(v, tuple) and len(v) == 2 and v[0] == "tensorlist":
        return v[1]
    return None


# executorch_prim ops work on scalars; `out` is the last argument.
_PRIM = {
    "add.Scalar": operator.add, "sub.Scalar": operator.sub, "mul.Scalar": operator.mul,
    "floordiv.Scalar": operator.floordiv, "floordiv.int": operator.floordiv,
    "truediv.Scalar": operator.truediv, "mod.Scalar": operator.mod, "mod.int": operator.mod,
    "eq.Scalar": operator.eq, "gt.Scalar": operator.gt, "lt.Scalar": operator.lt,
    "ge.Scalar": operator.ge, "le.Scalar": operator.le, "neg.Scalar": operator.neg,
    "sym_float.Scalar": float, "ceil.Scalar": math.ceil, "round.Scalar": round, "trunc.Scalar": math.trunc,
    # executorch_prim::et_view(Tensor self, SymInt[] size) -> out: a view of self (symbolic-size programs)
    "et_view.default": lambda t, size: t.reshape([int(v) for v in size]),
}


_COPY_INDEX = "executorch_prim::et_copy_index.tensor"


class Interpreter:
    def __init__(self, pte, plan, vals):
        import torch

        try:
            import executorch.exir.passes.dim_order_ops_registry  # noqa: F401  (dim_order_ops::*)
        except Exception:
            pass
        self.torch = torch
        self.plan = plan
        self.vals = vals
        self.ops = plan.operators
        self.instrs = plan.chains[0].instructions
        # Tensors whose shape is decided at run time: their outs are emptied
        # before a call so the operator sizes them (in place, keeping their
        # planned memory) instead of warning about a resize.
        self.dynamic = {i for i, v in enumerate(plan.values)
                        if type(v.val).__name__ == "Tensor" and int(getattr(v.val.shape_dynamism, "value",
                                                                                v.val.shape_dynamism)) != 0}

    def kernel(self, op_index):
        op = self.ops[op_index]
        full = f"{op.name}.{op.overload}" if op.overload else op.name
        ns, _, name = op.name.partition("::")
        if ns == "executorch_prim":
            return full, None
        try:
            packet = getattr(getattr(self.torch.ops, ns), name)
            return full, getattr(packet, op.overload or "default")
        except (AttributeError, RuntimeError) as e:
            raise Failure(f"{full} has no PyTorch counterpart ({e})")

    def out_values(self, op_fn, args, full=None):
        """Value indices an instruction writes, in the order pterun reports them."""
        if op_fn is None:
            return [args[0]] if full and full.endswith(_COPY_INDEX) else [args[-1]]
        schema = op_fn._schema
        n = len(schema.arguments)
        outs = []
        for a, idx in zip(schema.arguments, args[:n]):
            if a.alias_info is not None and a.alias_info.is_write:
                items = list_items(self.vals, idx)
                outs.extend(items if items is not None else [idx])
        if not outs:  # a functional operator: its returns
            outs = list(args[n:])
        return outs

    def call(self, full, op_fn, args, vals=None):
        """Run one KernelCall on `vals` (default: the eager state)."""
        torch = self.torch
        vals = self.vals if vals is None else vals
        if op_fn is None and full.endswith(_COPY_INDEX):
            # et_copy_index(copy_to, copy_from, index): a loop's stacked
            # output, row `index` written and dim 0 set to index + 1 (the
            # run's length, as ExecuTorch's runtime and pterun do).
            to, row, index = (resolve(vals, i) for i in args[:3])
            index = int(index)
            stacked = torch.empty((index + 1, *row.shape), dtype=to.dtype)
            stacked[:index] = to[:index]
            stacked[index] = row
            vals[args[0]] = stacked
            return
        if op_fn is None:
            fn = _PRIM.get(full.split("::", 1)[1])
            if fn is None:
                raise Failure(f"{full} is not implemented by this tool")
            ins = [resolve(vals, i) for i in args[:-1]]
            vals[args[-1]] = fn(*ins)
            return
        schema = op_fn._schema
        n = len(schema.arguments)
        pos, kw = [], {}
        for a, idx in zip(schema.arguments, args[:n]):
            v = resolve(vals, idx)
            if a.alias_info is not None and a.alias_info.is_write:
                for t_idx in (list_items(vals, idx) or [idx]):
                    if t_idx in self.dynamic and isinstance(vals[t_idx], torch.Tensor):
                        vals[t_idx].resize_(0)
            if a.kwarg_only:
                kw[a.name] = v
            else:
                pos.append(v)
        with torch.no_grad():
            result = op_fn(*pos, **kw)
        # The instruction lists the returns after the arguments; for out
        # variants they are the out tensors again.
        rets = args[n:]
        res = list(result) if isinstance(result, (tuple, list)) and len(rets) > 1 else [result]
        for idx, r in zip(rets, res):
            if list_items(vals, idx) is None:
                vals[idx] = r


def to_numpy(v):
    import torch

    if isinstance(v, torch.Tensor):
        t = v.detach()
        if t.dtype == torch.bfloat16:
            t = t.float()
        return t.contiguous().numpy()
    return np.asarray(v)


def compare(got, want, rtol, atol):
    """(ok, details) for pterun's value `got` against eager's `want`."""
    g, w = np.asarray(got), np.asarray(want)
    if g.shape != w.shape:
        return False, {"reason": f"shape {list(g.shape)} vs eager {list(w.shape)}"}
    if g.size == 0:
        return True, {}
    if g.dtype.kind in "biu" and w.dtype.kind in "biu":
        bad = g != w
        diff = np.abs(g.astype(np.float64) - w.astype(np.float64))
    else:
        gf, wf = g.astype(np.float64), w.astype(np.float64)
        nan = np.isnan(gf) != np.isnan(wf)
        diff = np.abs(gf - wf)
        diff = np.where(np.isnan(gf) & np.isnan(wf), 0.0, diff)
        bad = nan | ~(diff <= atol + rtol * np.abs(wf))
    if not bad.any():
        return True, {"max_abs_diff": float(np.nanmax(diff)) if diff.size else 0.0}
    worst = np.unravel_index(int(np.nanargmax(np.where(bad, np.nan_to_num(diff, nan=np.inf), -1))), bad.shape)
    return False, {
        "mismatched": int(bad.sum()), "elements": int(bad.size),
        "max_abs_diff": float(np.nan_to_num(diff[worst], nan=np.inf)),
        "worst_index": [int(i) for i in worst],
        "pterun_at_worst": g[worst].item(), "eager_at_worst": w[worst].item(),
    }


def preview(a, n=8):
    flat = np.asarray(a).reshape(-1)
    s = ", ".join(f"{x:.6g}" if isinstance(x, (float, np.floating)) else str(x) for x in flat[:n].tolist())
    return f"[{s}{', ...' if flat.size > n else ''}]"


# ---------------------------------------------------------------- the walk

def diverge(case, index, pterun_dir):
    import torch
    import warnings

    warnings.filterwarnings("ignore", message=".*resized.*")  # outs at upper-bound shapes
    pte, plan, external = load_program(case)
    vals = build_values(pte, plan, external, case)
    # The same program state fed with pterun's outputs instead, for re-running
    # one operator on exactly the inputs pterun gave it.
    pvals = build_values(pte, plan, external, case)
    interp = Interpreter(pte, plan, vals)
    by_instr = {}
    for e in index["values"]:
        if not e["program_output"]:
            by_instr.setdefault((e["instruction"], e["occurrence"]), []).append(e)

    def pterun_value(e):
        if "file" in e:
            return load_npy(os.path.join(pterun_dir, e["file"]), e)
        return np.asarray(e.get("value"))

    report = {"method": case["method"], "instructions": len(interp.instrs), "rtol": case["rtol"],
              "atol": case["atol"], "checked": 0, "delegates": [], "first": None, "later": []}
    occurrence = {}
    pc, steps = 0, 0
    while pc < len(interp.instrs):
        steps += 1
        if steps > 1_000_000:
            raise Failure("more than a million instructions: a loop?")
        instr = interp.instrs[pc]
        args = instr.instr_args
        kind = type(args).__name__
        occ = occurrence.get(pc, 0)
        occurrence[pc] = occ + 1
        nxt = pc + 1
        captured = by_instr.get((pc, occ), [])
        if kind == "KernelCall":
            full, op_fn = interp.kernel(args.op_index)
            interp.call(full, op_fn, list(args.args))
            outs = interp.out_values(op_fn, list(args.args), full)
            for k, (vidx, e) in enumerate(zip(outs, captured)):
                got = pterun_value(e)
                ok, det = compare(got, to_numpy(resolve(vals, vidx)), case["rtol"], case["atol"])
                report["checked"] += 1
                if ok:
                    continue
                entry = {"instruction": pc, "op": full, "output": k, "occurrence": occ, **det}
                if report["first"] is None:
                    entry["pterun"] = preview(got)
                    entry["eager"] = preview(to_numpy(resolve(vals, vidx)))
                    entry["shape"] = list(np.asarray(got).shape)
                    entry["dtype"] = str(np.asarray(got).dtype)
                    entry["local"] = local_check(interp, pvals, full, op_fn, list(args.args), outs, k, got, case)
                    report["first"] = entry
                else:
                    report["later"].append(entry)
            for vidx, e in zip(outs, captured):
                store(pvals, vidx, pterun_value(e))
            if len(captured) != len(outs):
                report.setdefault("notes", []).append(
                    f"instruction {pc} ({full}): pterun reported {len(captured)} outputs, the schema has {len(outs)}")
        elif kind == "DelegateCall":
            # Opaque to PyTorch: continue from pterun's outputs.
            items = list(args.args)
            n = len(captured)
            for e, vidx in zip(captured, items[len(items) - n:]):
                got = pterun_value(e)
                store(vals, vidx, got)
                store(pvals, vidx, got)
            report["delegates"].append(pc)
        elif kind == "MoveCall":
            vals[args.move_to] = vals[args.move_from]
            pvals[args.move_to] = pvals[args.move_from]
        elif kind == "JumpFalseCall":
            cond = resolve(vals, args.cond_value_index)
            cond = bool(cond.all()) if hasattr(cond, "all") else bool(cond)
            if not cond:
                nxt = args.destination_instruction
        elif kind == "FreeCall":
            pass
        else:
            raise Failure(f"instruction {pc}: {kind} is not supported")
        pc = nxt

    # The method's outputs against eager and against the case's expected files.
    outputs = [e for e in index["values"] if e["program_output"]]
    finals = []
    for k, (vidx, e) in enumerate(zip(plan.outputs, outputs)):
        got = pterun_value(e)
        ok, det = compare(got, to_numpy(resolve(vals, vidx)), case["rtol"], case["atol"])
        row = {"output": k, "matches_eager": ok, **det}
        if k < len(case["expected"]):
            ok2, det2 = compare(got, np.load(case["expected"][k]), case["rtol"], case["atol"])
            row["matches_expected"] = ok2
            row["expected_max_abs_diff"] = det2.get("max_abs_diff")
        finals.append(row)
    report["outputs"] = finals
    return report


def interpret(case):
    """Eager values of the method's outputs, from the program alone (no pterun).

    Checks this tool's side of the comparison: `--eager-only` compares them
    with the case's expected files."""
    import warnings

    warnings.filterwarnings("ignore", message=".*resized.*")
    pte, plan, external = load_program(case)
    vals = build_values(pte, plan, external, case)
    interp = Interpreter(pte, plan, vals)
    pc, steps = 0, 0
    while pc < len(interp.instrs):
        steps += 1
        if steps > 1_000_000:
            raise Failure("more than a million instructions: a loop?")
        args = interp.instrs[pc].instr_args
        kind = type(args).__name__
        nxt = pc + 1
        if kind == "KernelCall":
            full, op_fn = interp.kernel(args.op_index)
            interp.call(full, op_fn, list(args.args))
        elif kind == "MoveCall":
            vals[args.move_to] = vals[args.move_from]
        elif kind == "JumpFalseCall":
            cond = resolve(vals, args.cond_value_index)
            if not (bool(cond.all()) if hasattr(cond, "all") else bool(cond)):
                nxt = args.destination_instruction
        elif kind == "DelegateCall":
            raise Failure(f"instruction {pc} calls a delegate, which only a runtime can run")
        elif kind != "FreeCall":
            raise Failure(f"instruction {pc}: {kind} is not supported")
        pc = nxt
    return [to_numpy(resolve(vals, i)) for i in plan.outputs]


def local_check(interp, pvals, full, op_fn, args, outs, k, got, case):
    """Run the diverging operator again on pterun's own inputs."""
    import torch

    saved = {i: pvals[i] for i in outs}
    for i in outs:  # fresh outs: pterun's state stays as it was
        if isinstance(pvals[i], torch.Tensor):
            pvals[i] = torch.empty_like(pvals[i])
    try:
        interp.call(full, op_fn, args, pvals)
        local = to_numpy(resolve(pvals, outs[k]))
    finally:
        for i, v in saved.items():
            pvals[i] = v
    ok, det = compare(got, local, case["rtol"], case["atol"])
    return {"matches_pterun": ok, "max_abs_diff": det.get("max_abs_diff")}


def print_report(r, case_dir):
    print(f"case {case_dir}: method '{r['method']}', {r['instructions']} instructions, "
          f"{r['checked']} outputs compared (rtol {r['rtol']:g}, atol {r['atol']:g})")
    for note in r.get("notes", []):
        print(f"note: {note}")
    if r["delegates"]:
        print(f"delegate calls at instructions {r['delegates']}: opaque, continued from pterun's outputs")
    f = r["first"]
    if f is None:
        print("no divergence: every instruction's outputs match eager PyTorch")
    else:
        occ = f" (occurrence {f['occurrence']})" if f["occurrence"] else ""
        print(f"FIRST DIVERGENCE: instruction {f['instruction']}{occ} {f['op']}, output {f['output']}")
        if "reason" in f:
            print(f"  {f['reason']}")
        else:
            print(f"  {f['dtype']} {f['shape']}: {f['mismatched']} of {f['elements']} elements outside tolerance; "
                  f"max |pterun - eager| = {f['max_abs_diff']:.6g} at {f['worst_index']} "
                  f"(pterun {f['pterun_at_worst']:.8g}, eager {f['eager_at_worst']:.8g})")
        print(f"  pterun: {f['pterun']}")
        print(f"  eager:  {f['eager']}")
        loc = f["local"]
        if loc["matches_pterun"]:
            print("  on pterun's own inputs PyTorch gives pterun's value: the error comes from earlier "
                  "instructions (accumulated within tolerance there)")
        else:
            print("  on pterun's own inputs PyTorch still disagrees: this operator itself computes differently in pterun")
        if r["later"]:
            later = sorted({e["instruction"] for e in r["later"]})
            print(f"  diverging after it too: instructions {later[:20]}{' ...' if len(later) > 20 else ''}")
    for o in r.get("outputs", []):
        exp = ""
        if "matches_expected" in o:
            exp = f"; vs expected/{o['output']}.npy: {'match' if o['matches_expected'] else 'MISMATCH'}"
        print(f"method output {o['output']}: {'matches' if o['matches_eager'] else 'DIFFERS FROM'} eager{exp}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("case_dir")
    ap.add_argument("--pterun", help="the pterun executable (default: $PTERUN, build/cli/pterun, PATH)")
    ap.add_argument("--library", action="append", default=[], help="passed to pterun run --library")
    ap.add_argument("--rtol", type=float)
    ap.add_argument("--atol", type=float)
    ap.add_argument("--work", help="where pterun writes its debug tensors (default: a temporary folder)")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    ap.add_argument("--eager-only", action="store_true",
                    help="only interpret the program with PyTorch and compare with expected/ (checks this tool)")
    a = ap.parse_args(argv)
    try:
        case = load_case(a.case_dir)
        if a.rtol is not None:
            case["rtol"] = a.rtol
        if a.atol is not None:
            case["atol"] = a.atol
        if a.eager_only:
            bad = 0
            for k, got in enumerate(interpret(case)):
                if k < len(case["expected"]):
                    ok, det = compare(got, np.load(case["expected"][k]), case["rtol"], case["atol"])
                    bad += not ok
                    print(f"output {k}: {'matches' if ok else 'DIFFERS FROM'} expected/{k}.npy "
                          f"(max abs diff {det.get('max_abs_diff', float('nan')):.3g})")
            return 1 if bad else 0
        pterun = find_pterun(a.pterun)
        work = a.work or tempfile.mkdtemp(prefix="debug_diverge_")
        try:
            index = run_pterun(pterun, case, a.library, work)
            report = diverge(case, index, work)
        finally:
            if not a.work:
                shutil.rmtree(work, ignore_errors=True)
    except Failure as e:
        print(f"debug_diverge: {e}", file=sys.stderr)
        return 2
    if a.json:
        print(json.dumps(report, indent=2, default=str))
    else:
        print_report(report, a.case_dir)
    return 1 if report["first"] is not None else 0


if __name__ == "__main__":
    sys.exit(main())
