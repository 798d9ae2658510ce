#!/usr/bin/env python3
"""Conformance runner: runs every zoo case under the given folders through
pterun and compares with the expected (eager PyTorch) outputs.

A case is any folder holding case.json, model.pte, inputs/N.npy and
expected/N.npy (see tools/zoo/README.md), so other people's cases work too.

    python3 tools/conformance.py [--pterun PATH] [--executorch] [--json FILE] DIR...

Float outputs must be within the case's rtol/atol; integer and bool outputs
must match exactly. With --executorch (or when the executorch package is
importable and --no-executorch is not given) each case also runs through
ExecuTorch's own runtime and cases where the two runtimes disagree are listed;
a case whose case.json says "executorch_exact": true fails unless pterun's
outputs are ExecuTorch's bit for bit (both runtimes on this machine).
pterun runs --jobs cases at a time (default: one per core; ExecuTorch's
runtime, in this process, one at a time); the report keeps the cases' order.
Exit status: 0 when every case passes.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np


def find_cases(roots):
    cases = []
    for root in roots:
        for dirpath, _dirs, files in os.walk(root):
            if "case.json" in files and "model.pte" in files:
                cases.append(dirpath)
    return sorted(cases)


def default_pterun():
    here = os.path.dirname(os.path.abspath(__file__))
    for cand in (os.environ.get("PTERUN"), os.path.join(here, "..", "build", "cli", "pterun"), shutil.which("pterun")):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


def compare(got, want, rtol, atol):
    """Returns None if equal within tolerance, else a message."""
    if got.shape != want.shape:
        return f"shape {list(got.shape)} != expected {list(want.shape)}"
    if got.dtype != want.dtype:
        return f"dtype {got.dtype} != expected {want.dtype}"
    if want.dtype.kind == "c":
        # each part within tolerance, as (re, im) pairs in a last dimension
        return compare(np.stack([got.real, got.imag], -1), np.stack([want.real, want.imag], -1), rtol, atol)
    if want.dtype.kind in "biu":
        bad = np.count_nonzero(got != want)
        return None if bad == 0 else f"{bad} of {want.size} elements differ (exact match required)"
    gotf, wantf = got.astype(np.float64), want.astype(np.float64)
    nan_mismatch = np.count_nonzero(np.isnan(gotf) != np.isnan(wantf))
    ok = np.isclose(gotf, wantf, rtol=rtol, atol=atol, equal_nan=True)
    if nan_mismatch == 0 and ok.all():
        return None
    diff = np.abs(gotf - wantf)
    diff[np.isnan(diff)] = np.inf
    i = int(np.argmax(diff))
    return (f"{np.count_nonzero(~ok)} of {want.size} elements outside rtol={rtol} atol={atol}; "
            f"max abs diff {diff.flat[i]:.3g} at {np.unravel_index(i, want.shape)} "
            f"(got {gotf.flat[i]!r}, expected {wantf.flat[i]!r})")


def bitwise_diff(got, want):
    """None when got and want are the same bits, else what differs."""
    got, want = np.ascontiguousarray(got), np.ascontiguousarray(want)
    if got.dtype != want.dtype or got.shape != want.shape:
        return f"{got.dtype}{list(got.shape)} against ExecuTorch's {want.dtype}{list(want.shape)}"
    g, w = got.view(np.uint8).reshape(got.size, -1), want.view(np.uint8).reshape(want.size, -1)
    bad = np.any(g != w, axis=1)
    if not bad.any():
        return None
    i = int(np.argmax(bad))
    return (f"{int(bad.sum())} of {want.size} elements are not ExecuTorch's bit for bit; "
            f"first at flat index {i}: {got.flat[i]!r} vs {want.flat[i]!r}")


def load_case(path):
    with open(os.path.join(path, "case.json")) as f:
        meta = json.load(f)
    def arrays(sub):
        d = os.path.join(path, sub)
        if not os.path.isdir(d):
            return []
        files = sorted((f for f in os.listdir(d) if f.endswith(".npy")), key=lambda f: int(f[:-4]))
        return [os.path.join(d, f) for f in files]
    return meta, arrays("inputs"), arrays("expected")


def run_pterun(pterun, path, meta, inputs, extra_args):
    out = tempfile.mkdtemp(prefix="pterun-conf-")
    try:
        cmd = [pterun, "run", os.path.join(path, "model.pte"), "--method", meta.get("method", "forward"),
               "--output-dir", out, "--quiet"] + extra_args
        if meta.get("data"):
            cmd += ["--data", os.path.join(path, meta["data"])]
        for i in inputs:
            cmd += ["--input", i]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            return None, (r.stderr.strip() or r.stdout.strip() or f"exit status {r.returncode}")
        outs = []
        n = 0
        while os.path.exists(os.path.join(out, f"output_{n}.npy")):
            outs.append(np.load(os.path.join(out, f"output_{n}.npy")))
            n += 1
        return outs, None
    finally:
        shutil.rmtree(out, ignore_errors=True)


_ET_RUNTIME = None


def run_executorch(path, meta, inputs):
    global _ET_RUNTIME
    import torch
    if _ET_RUNTIME is None:
        try:  # quantized programs need ExecuTorch's quantized kernels registered
            import executorch.kernels.quantized  # noqa: F401
        except Exception:  # noqa: BLE001
            pass
        try:  # and language models its llama:: ones
            import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401
        except Exception:  # noqa: BLE001
            pass
        from executorch.runtime import Runtime
        _ET_RUNTIME = Runtime.get()
    kwargs = {}
    if meta.get("data"):
        kwargs["data_path"] = os.path.join(path, meta["data"])
    prog = _ET_RUNTIME.load_program(os.path.join(path, "model.pte"), **kwargs)
    method = prog.load_method(meta.get("method", "forward"))
    outs = method.execute([torch.from_numpy(np.load(i)) for i in inputs])
    return [o.numpy() if hasattr(o, "numpy") else np.asarray(o) for o in outs]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", help="folders holding cases (searched recursively)")
    ap.add_argument("--pterun", default=None, help="path of the pterun CLI (default: build/cli/pterun, then PATH)")
    ap.add_argument("--executorch", action="store_true", help="also run ExecuTorch's runtime (fail if unavailable)")
    ap.add_argument("--no-executorch", action="store_true", help="do not run ExecuTorch's runtime")
    ap.add_argument("--json", help="write per-case results here")
    ap.add_argument("--arg", action="append", default=[], help="extra argument for 'pterun run' (repeatable)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                    help="pterun processes at a time (default: one per core)")
    ap.add_argument("-q", "--quiet", action="store_true")
    args = ap.parse_args(argv)

    pterun = args.pterun or default_pterun()
    if not pterun:
        print("conformance: cannot find the pterun CLI (build it or pass --pterun)", file=sys.stderr)
        return 2
    cases = find_cases(args.dirs)
    if not cases:
        print(f"conformance: no cases found under {args.dirs}", file=sys.stderr)
        return 2
    use_et = False
    if not args.no_executorch:
        try:
            import executorch.runtime  # noqa: F401
            use_et = True
        except Exception as e:  # noqa: BLE001
            if args.executorch:
                print(f"conformance: executorch is not importable: {e}", file=sys.stderr)
                return 2

    def check(path):
        """pterun's outputs of one case and what is wrong with them (None: nothing)."""
        meta, inputs, expected = load_case(path)
        rtol, atol = float(meta.get("rtol", 1e-4)), float(meta.get("atol", 1e-5))
        outs, err = run_pterun(pterun, path, meta, inputs, args.arg)
        if err is None:
            if len(outs) != len(expected):
                err = f"{len(outs)} outputs written, {len(expected)} expected"
            else:
                for k, (g, w) in enumerate(zip(outs, expected)):
                    msg = compare(g, np.load(w), rtol, atol)
                    if msg:
                        err = f"output {k}: {msg}"
                        break
        return meta, inputs, rtol, atol, outs, err

    results, failures, disagreements = [], [], []
    jobs = max(1, args.jobs)
    # a few cases ahead of the report at most: their outputs wait in memory
    pool = concurrent.futures.ThreadPoolExecutor(jobs)
    ahead = collections.deque()
    for i, path in enumerate(cases):
        while len(ahead) < 4 * jobs and i + len(ahead) < len(cases):
            ahead.append(pool.submit(check, cases[i + len(ahead)]))
        meta, inputs, rtol, atol, outs, err = ahead.popleft().result()
        name = os.path.relpath(path)
        et_note = None
        if use_et:
            try:
                et_outs = run_executorch(path, meta, inputs)
                if outs is not None and meta.get("executorch_exact") and err is None:
                    for k, (g, e) in enumerate(zip(outs, et_outs)):
                        msg = bitwise_diff(g, e)
                        if msg:
                            err = f"output {k}: {msg}"
                            break
                if outs is not None:
                    for k, (g, e) in enumerate(zip(outs, et_outs)):
                        msg = compare(g, e.astype(g.dtype) if e.dtype != g.dtype and e.dtype.kind == g.dtype.kind else e,
                                      rtol, atol)
                        if msg:
                            et_note = f"output {k}: pterun vs ExecuTorch: {msg}"
                            break
            except Exception as e:  # noqa: BLE001
                et_note = f"ExecuTorch's runtime failed: {str(e).splitlines()[0] if str(e) else type(e).__name__}"
        results.append({"case": name, "ok": err is None, "error": err, "executorch": et_note})
        if err:
            failures.append((name, err))
        if et_note:
            disagreements.append((name, et_note))
        if not args.quiet:
            print(f"{'PASS' if err is None else 'FAIL'} {name}" + (f": {err}" if err else ""), flush=True)
    pool.shutdown()
    print(f"conformance: {len(cases) - len(failures)}/{len(cases)} cases passed")
    if use_et:
        print(f"conformance: ExecuTorch's runtime compared on {len(cases)} cases, {len(disagreements)} disagreement(s)")
        for name, note in disagreements:
            print(f"  DIFF {name}: {note}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"pterun": pterun, "results": results}, f, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
