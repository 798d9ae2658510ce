#!/usr/bin/env python3
"""Measure the optimized kernels per zoo model, same file, same inputs, same
thread count: pterun CLI with kernels_optimized, with it disabled (portable),
ExecuTorch's runtime (executorch.runtime) and PyTorch eager (the module
rebuilt from tools/zoo/zoo_models.py with the zoo seed). Rounds are
interleaved so a noisy neighbour slows every contender alike; each figure is
the median over rounds of per-round medians.

    python3 kernels/optimized/measure.py [--pterun build/cli/pterun] [--threads N]
        [--rounds R] [--iters I] [--models a,b] [--json out.json]
This is a developer tool for the kernel library, not the project benchmark
(bench/run.py is).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = ["mlp", "small_cnn", "mobilenet_v2_tiny", "resnet_tiny", "transformer_tiny"]


def pterun_ms(cli, model, iters, threads, disable):
    d = os.path.join(ROOT, "zoo", "models", model)
    cmd = [cli, "run", os.path.join(d, "model.pte"), "--input", os.path.join(d, "inputs", "0.npy"),
           "--iterations", str(iters), "--warmup", str(max(3, iters // 10)), "--quiet"]
    if disable:
        cmd += ["--disable", "kernels_optimized"]
    env = dict(os.environ, PTERUN_NUM_THREADS=str(threads))
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    m = re.search(r"median ([0-9.]+) ms", out.stdout + out.stderr)
    if not m:
        raise RuntimeError(out.stdout + out.stderr)
    return float(m.group(1))


def timed(fn, iters):
    ts = []
    for _ in range(iters):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e3


def eager_module(model):
    sys.path.insert(0, os.path.join(ROOT, "tools", "zoo"))
    import torch
    import zoo_common  # noqa: F401
    import zoo_models
    case = json.load(open(os.path.join(ROOT, "zoo", "models", model, "case.json")))
    for name, build, _desc, _cases, _kw in zoo_models.MODEL_DEFS:
        if name == model:
            torch.manual_seed(case["seed"])
            if hasattr(zoo_common, "seed_all"):
                zoo_common.seed_all(case["seed"])
            built = build()
            mod, _ins, _dyn = built.methods["forward"]
            return mod
    raise KeyError(model)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pterun", default=os.path.join(ROOT, "build", "cli", "pterun"))
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--json")
    a = ap.parse_args()

    import numpy as np
    import torch
    from executorch.runtime import Runtime
    torch.set_num_threads(a.threads)
    rt = Runtime.get()
    rows = []
    for model in a.models.split(","):
        d = os.path.join(ROOT, "zoo", "models", model)
        x = np.load(os.path.join(d, "inputs", "0.npy"))
        xt = torch.from_numpy(x)
        method = rt.load_program(os.path.join(d, "model.pte")).load_method("forward")
        mod = eager_module(model).eval()
        res = {"opt": [], "portable": [], "executorch": [], "eager": []}
        with torch.no_grad():
            for _ in range(a.rounds):
                res["opt"].append(pterun_ms(a.pterun, model, a.iters, a.threads, False))
                res["portable"].append(pterun_ms(a.pterun, model, a.iters, a.threads, True))
                for _w in range(10):
                    method.execute([xt])
                res["executorch"].append(timed(lambda: method.execute([xt]), a.iters))
                for _w in range(10):
                    mod(xt)
                res["eager"].append(timed(lambda: mod(xt), a.iters))
        med = {k: statistics.median(v) for k, v in res.items()}
        row = {"model": model, "threads": a.threads, **{k + "_ms": round(v, 4) for k, v in med.items()},
               "opt_vs_executorch": round(med["opt"] / med["executorch"], 3),
               "opt_vs_eager": round(med["opt"] / med["eager"], 3),
               "opt_vs_portable": round(med["opt"] / med["portable"], 3)}
        rows.append(row)
        print(f"{model:18s} opt {med['opt']:8.4f}  portable {med['portable']:8.4f}  executorch {med['executorch']:8.4f}"
              f"  eager {med['eager']:8.4f}  | opt/et {row['opt_vs_executorch']:.3f}  opt/eager {row['opt_vs_eager']:.3f}",
              flush=True)
    if a.json:
        json.dump(rows, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
