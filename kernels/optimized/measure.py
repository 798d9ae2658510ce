#!/usr/bin/env python3
"""Measure the optimized kernels per zoo model, same file, same inputs, same
thread count: pterun CLI with kernels_optimized, with it disabled (portable),
ExecuTorch's runtime (executorch.runtime, its thread pool reset to the same
count) and PyTorch eager (the module rebuilt from tools/zoo/zoo_models.py,
torch.set_num_threads). Rounds are interleaved so a noisy neighbour slows
every contender alike; each figure is the median over rounds of per-round
medians. pterun's figure is the CLI's in-process execute time; ExecuTorch's
and eager's are timed around the Python call (their per-call overhead is
reported on the one-op `add` model). Also: the machine's sgemm peak (a
2048^3 float32 numpy matmul, OpenBLAS) and this library's mm (bench_gemm),
and each conv model's GFLOP/s as a fraction of that peak.

    python3 kernels/optimized/measure.py [--pterun build/cli/pterun] [--threads 1,2]
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


def model_flops(model):
    """Multiply-adds x 2 of the model's convolutions and matrix products, from
    the eager module with forward hooks (shapes of the zoo input)."""
    import torch
    total = [0]

    def conv_hook(m, inp, out):
        k = m.weight.shape[1] * m.weight.shape[2] * m.weight.shape[3]
        total[0] += 2 * out.numel() * k

    def lin_hook(m, inp, out):
        total[0] += 2 * out.numel() * m.in_features

    mod = eager_module(model)
    hooks = []
    for sub in mod.modules():
        if isinstance(sub, torch.nn.Conv2d):
            hooks.append(sub.register_forward_hook(conv_hook))
        elif isinstance(sub, torch.nn.Linear):
            hooks.append(sub.register_forward_hook(lin_hook))
    d = os.path.join(ROOT, "zoo", "models", model)
    import numpy as np
    with torch.no_grad():
        mod(torch.from_numpy(np.load(os.path.join(d, "inputs", "0.npy"))))
    for h in hooks:
        h.remove()
    return total[0]


def sgemm_peak(threads):
    """Best GFLOP/s of a 2048^3 float32 numpy matmul with `threads` BLAS threads."""
    import numpy as np
    from threadpoolctl import threadpool_limits
    n = 2048
    a = np.random.rand(n, n).astype(np.float32)
    b = np.random.rand(n, n).astype(np.float32)
    best = 1e9
    with threadpool_limits(threads):
        a @ b
        for _ in range(8):
            t0 = time.perf_counter()
            a @ b
            best = min(best, time.perf_counter() - t0)
    return 2 * n ** 3 / best / 1e9


def bench_gemm(pterun_cli, threads):
    exe = os.path.join(os.path.dirname(os.path.dirname(pterun_cli)), "tests", "kernels_optimized", "bench_gemm")
    if not os.path.exists(exe):
        return {}
    env = dict(os.environ, PTERUN_NUM_THREADS=str(threads))
    out = subprocess.run([exe, "256", "512", "1024", "2048"], capture_output=True, text=True, env=env).stdout
    res = {}
    for m in re.finditer(r"n=(\d+) gflops_1t=([0-9.]+) gflops_(\d+)t=([0-9.]+)", out):
        res[int(m.group(1))] = float(m.group(4)) if threads > 1 else float(m.group(2))
    return res


def pterun_ms(cli, model, iters, threads, disable):
    d = os.path.join(ROOT, "zoo", "models", model)
    cmd = [cli, "run", os.path.join(d, "model.pte"), "--input", os.path.join(d, "inputs", "0.npy"),
           "--iterations", str(iters), "--warmup", str(max(3, iters // 10))]
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
    ap.add_argument("--threads", default="1,%d" % os.cpu_count())
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--json")
    a = ap.parse_args()

    import numpy as np
    import torch
    from executorch.runtime import Runtime
    import executorch.extension.pybindings.portable_lib as etlib
    rt = Runtime.get()
    report = {"cpu": open("/proc/cpuinfo").read().split("model name")[1].split(":")[1].split("\n")[0].strip(),
              "cores": os.cpu_count(), "date": time.strftime("%Y-%m-%d %H:%M"), "runs": []}
    flops = {m: model_flops(m) for m in a.models.split(",")}
    for threads in [int(t) for t in a.threads.split(",")]:
        torch.set_num_threads(threads)
        etlib._unsafe_reset_threadpool(threads)
        peak = sgemm_peak(threads)
        ours = bench_gemm(a.pterun, threads)
        print(f"== {threads} thread(s): numpy sgemm peak {peak:.1f} GFLOP/s; pterun mm "
              + ", ".join(f"n={n}: {g:.1f}" for n, g in ours.items()), flush=True)
        # ExecuTorch's Python per-call overhead: the one-add model
        d = os.path.join(ROOT, "zoo", "models", "add")
        ins = [torch.from_numpy(np.load(os.path.join(d, "inputs", f))) for f in sorted(os.listdir(os.path.join(d, "inputs")))]
        m_add = rt.load_program(os.path.join(d, "model.pte")).load_method("forward")
        et_add = timed(lambda: m_add.execute(ins), 2000)
        rows = []
        for model in a.models.split(","):
            d = os.path.join(ROOT, "zoo", "models", model)
            xt = torch.from_numpy(np.load(os.path.join(d, "inputs", "0.npy")))
            method = rt.load_program(os.path.join(d, "model.pte")).load_method("forward")
            mod = eager_module(model).eval()
            res = {"opt": [], "portable": [], "executorch": [], "eager": []}
            with torch.no_grad():
                for _ in range(a.rounds):
                    res["opt"].append(pterun_ms(a.pterun, model, a.iters, threads, False))
                    res["portable"].append(pterun_ms(a.pterun, model, a.iters, threads, True))
                    for _w in range(10):
                        method.execute([xt])
                    res["executorch"].append(timed(lambda: method.execute([xt]), a.iters))
                    for _w in range(10):
                        mod(xt)
                    res["eager"].append(timed(lambda: mod(xt), a.iters))
            med = {k: statistics.median(v) for k, v in res.items()}
            spread = {k: (min(v), max(v)) for k, v in res.items()}
            gflops = flops[model] / (med["opt"] * 1e-3) / 1e9
            row = {"model": model, "threads": threads, **{k + "_ms": round(v, 4) for k, v in med.items()},
                   "spread_ms": {k: [round(x, 4) for x in v] for k, v in spread.items()},
                   "opt_vs_executorch": round(med["opt"] / med["executorch"], 3),
                   "opt_vs_eager": round(med["opt"] / med["eager"], 3),
                   "opt_vs_portable": round(med["opt"] / med["portable"], 3),
                   "mflop": round(flops[model] / 1e6, 2), "gflops": round(gflops, 1),
                   "fraction_of_peak": round(gflops / peak, 3)}
            rows.append(row)
            print(f"{model:18s} opt {med['opt']:8.4f}  portable {med['portable']:8.4f}  executorch {med['executorch']:8.4f}"
                  f"  eager {med['eager']:8.4f} ms | opt/et {row['opt_vs_executorch']:.3f}  opt/eager {row['opt_vs_eager']:.3f}"
                  f"  opt/portable {row['opt_vs_portable']:.3f} | {row['gflops']:.1f} GFLOP/s = {row['fraction_of_peak']:.0%} of peak",
                  flush=True)
        report["runs"].append({"threads": threads, "sgemm_peak_gflops": round(peak, 1),
                               "pterun_mm_gflops": ours, "executorch_add_call_ms": round(et_add, 4), "models": rows})
        print(f"   ExecuTorch one-add call from Python: {et_add * 1e3:.1f} us", flush=True)
    if a.json:
        json.dump(report, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
