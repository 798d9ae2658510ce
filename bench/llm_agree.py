#!/usr/bin/env python3
"""Correctness of the real-size language models of bench/llm_models.py:
pterun's tokens against ExecuTorch's runtime and eager PyTorch's.

    python3 bench/llm_agree.py [--cache DIR] [--models smollm135m-8da4w,...] [--out FILE.json]

Per model: the prompt (128 tokens) in one forward call, then 64 steps of one
token each, the same calls for both runtimes (the program's forward(tokens,
positions), as the runners make them). Teacher-forced: every step feeds
ExecuTorch's greedy token, so one differing step does not change the steps
after it, and the top-1 agreement is counted step by step (the prefill's
last position counts as step 0). Also reported: whether pterun's free greedy
run equals ExecuTorch's, the first step where it leaves it, the logits'
largest difference and correlation. For fp32 models pterun's greedy tokens
must equal eager PyTorch's (meta.json, from the exporter); for 8da4w,
ExecuTorch's top-1 must be pterun's on >= 99% of the steps. Run in a venv
with pterun and executorch installed (make pyinstall's .venv).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from llm_models import default_cache  # noqa: E402


def et_method(path):
    import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401  (llama:: kernels)
    import executorch.kernels.quantized  # noqa: F401  (quantized_decomposed:: kernels)
    from executorch.extension.pybindings import portable_lib
    from executorch.runtime import Runtime

    portable_lib._unsafe_reset_threadpool(2)
    return Runtime.get().load_program(path).load_method("forward")


def run(step, prompt, n, forced=None):
    """Logits rows (prompt's last, then each step's) and the greedy tokens;
    with forced, the fed tokens are those instead of the argmax."""
    rows, toks = [], []
    logits = step(prompt, 0)
    pos = len(prompt)
    for i in range(n):
        rows.append(logits)
        t = int(np.argmax(logits))
        toks.append(t)
        if i == n - 1:
            break
        feed = forced[i] if forced is not None else t
        logits = step([feed], pos)
        pos += 1
    return np.stack(rows), toks


def check(model_dir):
    import torch

    import pterun
    import pterun.llm  # noqa: F401  (llama:: and quantized_decomposed:: kernels)

    meta = json.load(open(os.path.join(model_dir, "meta.json")))
    pte = os.path.join(model_dir, "model.pte")
    prompt, n = meta["prompt_ids"], meta["new_tokens"]
    pterun.set_num_threads(2)
    pm = pterun.load(pte).method("forward")
    em = et_method(pte)

    def p_step(ids, pos):
        out = pm.execute([np.array([ids], np.int64), np.arange(pos, pos + len(ids), dtype=np.int64)])
        return np.asarray(out[0])[0, -1].astype(np.float32)

    def e_step(ids, pos):
        out = em.execute([torch.tensor([ids], dtype=torch.int64), torch.arange(pos, pos + len(ids))])
        return out[0][0, -1].numpy().astype(np.float32)

    t0 = time.time()
    e_rows, e_toks = run(e_step, prompt, n)
    p_free_rows, p_free = run(p_step, prompt, n)
    # pterun again from position 0, fed ExecuTorch's tokens (the program's KV
    # cache is overwritten from the start: positions say where)
    p_rows, p_top = run(p_step, prompt, n, forced=e_toks)
    agree = [a == b for a, b in zip(p_top, e_toks)]
    first_free = next((i for i, (a, b) in enumerate(zip(p_free, e_toks)) if a != b), None)
    corr = float(np.mean([np.corrcoef(a, b)[0, 1] for a, b in zip(p_rows, e_rows)]))
    res = {
        "model": os.path.basename(model_dir), "steps": n, "top1_agree": sum(agree),
        "top1_agree_fraction": sum(agree) / n, "free_greedy_equal": p_free == e_toks,
        "free_greedy_first_difference": first_free, "logits_max_abs_diff": float(np.max(np.abs(p_rows - e_rows))),
        "logits_scale": float(np.max(np.abs(e_rows))), "logits_mean_correlation": corr,
        "logits_bitwise_equal_steps": int(sum(np.array_equal(a, b) for a, b in zip(p_rows, e_rows))),
        "seconds": round(time.time() - t0, 1),
    }
    if "eager_tokens" in meta:
        res["eager_equal"] = p_free == meta["eager_tokens"]
        res["executorch_eager_equal"] = e_toks == meta["eager_tokens"]
        res["ok"] = res["eager_equal"]
    else:
        res["ok"] = res["top1_agree_fraction"] >= 0.99
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", default=default_cache())
    ap.add_argument("--models", default=None, help="comma-separated <shape>-<form> (default: every cached one)")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    names = a.models.split(",") if a.models else sorted(
        d for d in os.listdir(a.cache) if os.path.exists(os.path.join(a.cache, d, "meta.json")))
    results = []
    for name in names:
        r = check(os.path.join(a.cache, name))
        print(json.dumps(r), flush=True)
        results.append(r)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(results, f, indent=1)
    return 0 if results and all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
