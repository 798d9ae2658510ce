#!/usr/bin/env python3
"""LLM text generation: pterun's runner against ExecuTorch's TextLLMRunner,
prefill and decode tokens per second, on the same .pte and tokenizer.

    python3 bench/llm.py [--variant V | --model M.pte --tokenizer T] [--prompt TEXT]
                         [--max-new-tokens N] [--reps R] [--rounds K]
                         [--threads 1,2] [--build build] [--out DIR]
                         [--et-python PY] [--pterun-python PY]
                         [--pterun-path DIR] [--forms c,python,executorch] [--quick]

Variants (--variant, folders zoo/llm/tiny_llama*): tiny_llama (portable fp32),
tiny_llama_xnnpack (fp32 on XNNPACK), tiny_llama_8da4w (XNNPACK, int8 dynamic
activations x 4-bit grouped weights, 8-bit embeddings). Those measure per-call
overhead only; the real sizes are --cached NAME, a model bench/llm_models.py
made (<shape>-<form>, e.g. smollm135m-8da4w), with its 128-token prompt.

Forms (each in its own process, pinned to the first T CPUs, T threads):

  pterun C        build/bench/pterun_llm_bench (bench/llm_bench.c)
  pterun Python   pterun.llm.TextLLMRunner (--pterun-python, with
                  --pterun-path prepended to PYTHONPATH, e.g. an unpacked wheel)
  ExecuTorch      executorch.extension.llm.runner.TextLLMRunner (--et-python),
                  with ExecuTorch's LLM custom ops loaded

Method, the same for every form: greedy, after a warm-up; each repetition
times generate() from position 0 with 1 new token (prefill and the first
sample) and with N; prefill tok/s = prompt tokens / t1, decode tok/s =
(tokens of the N run - tokens of the 1 run) / (tN - t1), each counted by
the runner itself (the same N - 1 decode steps for both). pterun prefills
the BOS token the program names (get_bos_id) before the prompt; ExecuTorch's
runner adds none for a tokenizer.json (its num_bos is ignored there), so its
prompt is one token shorter: each rate counts its own tokens. ExecuTorch's own stats count whole milliseconds, too
coarse for small models, so the runners' stats are used only for the token
counts. Wall time and the process's CPU time (all its threads) of each call
are both kept: on a busy machine compare the CPU figures. Forms run
round-robin; medians over all repetitions. Writes llm_results.json and
llm_results.md into --out (default build/bench-llm). Separate from run.py.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
TINY = os.path.join(REPO, "zoo", "llm", "tiny_llama")

FORMS = {"c": "pterun C", "python": "pterun Python", "executorch": "ExecuTorch TextLLMRunner"}


# ---- worker: one Python runner, one thread setting ----

def worker(a: argparse.Namespace) -> int:
    if a.worker == "executorch":
        import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401  (registers llama:: kernels)
        import executorch.kernels.quantized  # noqa: F401  (quantized_decomposed::, e.g. embedding_byte)
        from executorch.extension.llm.runner import GenerationConfig, TextLLMRunner
        try:
            from executorch.extension.pybindings import portable_lib
            portable_lib._unsafe_reset_threadpool(a.threads)
        except (ImportError, AttributeError):
            pass  # the CPU affinity still bounds it
    else:
        from pterun.llm import GenerationConfig, TextLLMRunner
    r = TextLLMRunner(a.model, a.tokenizer)

    def timed(n: int):
        got = []
        cfg = GenerationConfig(max_new_tokens=n, temperature=0, echo=False)
        r.reset()
        w0, c0 = time.perf_counter(), time.process_time()
        r.generate(a.prompt, cfg, stats_callback=got.append)
        c1, w1 = time.process_time(), time.perf_counter()
        return (w1 - w0) * 1e3, (c1 - c0) * 1e3, got[0]

    runs = []
    for i in range(-1, a.reps):
        w1, c1, s1 = timed(1)
        wn, cn, s = timed(a.max_new_tokens)
        if i >= 0:
            runs.append(dict(prompt_tokens=s.num_prompt_tokens, generated_tokens=s.num_generated_tokens,
                             generated1_tokens=s1.num_generated_tokens, wall1_ms=w1, cpu1_ms=c1, walln_ms=wn,
                             cpun_ms=cn))
    print(json.dumps(dict(threads=a.threads, runs=runs)))
    return 0


# ---- parent ----

def run_form(form: str, threads: int, a: argparse.Namespace) -> dict:
    cpus = sorted(os.sched_getaffinity(0))[:threads]
    env = dict(os.environ, PTERUN_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    if form == "c":
        exe = os.path.join(a.build, "bench", "pterun_llm_bench")
        cmd = [exe, a.model, a.tokenizer, a.prompt, str(a.max_new_tokens), str(a.reps)]
    else:
        py = a.et_python if form == "executorch" else a.pterun_python
        if form == "python" and a.pterun_path:
            env["PYTHONPATH"] = a.pterun_path + os.pathsep + env.get("PYTHONPATH", "")
        cmd = [py, os.path.abspath(__file__), "--worker", form, "--threads", str(threads), "--model", a.model,
               "--tokenizer", a.tokenizer, "--prompt", a.prompt, "--max-new-tokens", str(a.max_new_tokens),
               "--reps", str(a.reps)]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900,
                       preexec_fn=lambda: os.sched_setaffinity(0, cpus))
    last = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode != 0 or not last:
        return dict(error=f"exit {p.returncode}: {p.stderr.strip()[-600:]}")
    return json.loads(last[-1])


def summarize(runs: list) -> dict:
    med = {k: statistics.median(r[k] for r in runs) for k in ("wall1_ms", "cpu1_ms", "walln_ms", "cpun_ms")}
    pt, gt, g1 = runs[0]["prompt_tokens"], runs[0]["generated_tokens"], runs[0]["generated1_tokens"]
    out = dict(prompt_tokens=pt, generated_tokens=gt, decode_tokens=gt - g1, repetitions=len(runs), **med)
    for kind, one, n in (("wall", "wall1_ms", "walln_ms"), ("cpu", "cpu1_ms", "cpun_ms")):
        dec = med[n] - med[one]
        out[f"prefill_tok_s_{kind}"] = pt * 1e3 / med[one] if med[one] > 0 else None
        out[f"decode_tok_s_{kind}"] = (gt - g1) * 1e3 / dec if dec > 0 and gt > g1 else None
    return out


def fmt(v) -> str:
    return "n/a" if v is None else f"{v:,.0f}"


def ratio(a, b) -> str:
    return "n/a" if not a or not b else f"{a / b:.2f}x"


def report(res: dict, a: argparse.Namespace) -> str:
    what = (f"Model {a.cached} (bench/llm_models.py), its 128-token prompt" if a.cached else
            f"Model `{os.path.relpath(a.model, REPO)}`, tokenizer `{os.path.relpath(a.tokenizer, REPO)}`, "
            f"prompt {a.prompt!r}")
    lines = ["# LLM generation: pterun vs ExecuTorch's TextLLMRunner", "",
             f"{what}, {a.max_new_tokens} new tokens, greedy; {a.rounds} rounds x {a.reps} "
             "repetitions, medians. tok/s from wall time and from process CPU time (all threads).", ""]
    for t in a.threads:
        lines += [f"## {t} thread{'s' if t > 1 else ''}", "",
                  "| form | prompt / generated | prefill tok/s (wall) | decode tok/s (wall) | "
                  "prefill tok/s (CPU) | decode tok/s (CPU) |", "|---|---|---|---|---|---|"]
        for f in a.forms:
            s = res[str(t)].get(f)
            if not s or "error" in s:
                lines.append(f"| {FORMS[f]} | not available: {s.get('error', '') if s else ''} | | | | |")
                continue
            lines.append(f"| {FORMS[f]} | {s['prompt_tokens']} / {s['generated_tokens']} | "
                         f"{fmt(s['prefill_tok_s_wall'])} | {fmt(s['decode_tok_s_wall'])} | "
                         f"{fmt(s['prefill_tok_s_cpu'])} | {fmt(s['decode_tok_s_cpu'])} |")
        et = res[str(t)].get("executorch")
        if et and "error" not in et:
            for f in ("c", "python"):
                s = res[str(t)].get(f)
                if s and "error" not in s:
                    lines.append("")
                    lines.append(f"{FORMS[f]} / ExecuTorch: prefill {ratio(s['prefill_tok_s_wall'], et['prefill_tok_s_wall'])}"
                                 f" (CPU {ratio(s['prefill_tok_s_cpu'], et['prefill_tok_s_cpu'])}), decode "
                                 f"{ratio(s['decode_tok_s_wall'], et['decode_tok_s_wall'])}"
                                 f" (CPU {ratio(s['decode_tok_s_cpu'], et['decode_tok_s_cpu'])})")
        lines.append("")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", default="tiny_llama", help="a folder of zoo/llm: its model.pte, tokenizer.json and "
                    "first prompt (tiny_llama, tiny_llama_xnnpack, tiny_llama_8da4w)")
    ap.add_argument("--cached", default=None, help="a model of bench/llm_models.py's cache, <shape>-<form>: its "
                    "model.pte, tokenizer.json and 128-token prompt (instead of --variant)")
    ap.add_argument("--cache", default=None, help="bench/llm_models.py's cache (default: its default)")
    ap.add_argument("--model", default=None, help="default: the variant's model.pte")
    ap.add_argument("--tokenizer", default=None, help="default: the variant's tokenizer.json")
    ap.add_argument("--prompt", default=None, help="default: the first prompt of the variant's expected.json")
    ap.add_argument("--max-new-tokens", type=int, default=12)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--et-python", default=sys.executable)
    ap.add_argument("--pterun-python", default=sys.executable)
    ap.add_argument("--pterun-path", default=None)
    ap.add_argument("--forms", default="c,python,executorch")
    ap.add_argument("--quick", action="store_true", help="for CI: 1 thread, 1 round, 2 repetitions")
    ap.add_argument("--worker", choices=("python", "executorch"), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.cached:
        sys.path.insert(0, HERE)
        from llm_models import default_cache
        var = os.path.join(a.cache or default_cache(), a.cached)
    else:
        var = os.path.join(os.path.dirname(TINY), a.variant)
    a.model = a.model or os.path.join(var, "model.pte")
    a.tokenizer = a.tokenizer or os.path.join(var, "tokenizer.json")
    if a.prompt is None and a.cached:
        with open(os.path.join(var, "meta.json")) as f:
            meta = json.load(f)
        a.prompt = meta.get("prompt_text")
        if a.prompt is None:  # a model made before meta.json had it
            from tokenizers import Tokenizer
            a.prompt = Tokenizer.from_file(a.tokenizer).decode(meta["prompt_ids"][1:])
    elif a.prompt is None:
        with open(os.path.join(var, "expected.json")) as f:
            a.prompt = json.load(f)["cases"][0]["prompt"]
    if a.max_new_tokens < 2:
        ap.error("--max-new-tokens must be at least 2 (decode is tN - t1)")
    if a.worker:
        a.threads = int(a.threads)
        return worker(a)
    if a.quick:
        a.threads, a.rounds, a.reps = "1", 1, 2
    a.threads = [int(t) for t in a.threads.split(",")]
    a.forms = [f for f in a.forms.split(",") if f]
    bad = [f for f in a.forms if f not in FORMS]
    if bad:
        ap.error(f"unknown forms {bad} (known: {', '.join(FORMS)})")
    a.model, a.tokenizer = os.path.abspath(a.model), os.path.abspath(a.tokenizer)
    out = a.out or os.path.join(a.build, "bench-llm")
    os.makedirs(out, exist_ok=True)
    runs = {str(t): {f: [] for f in a.forms} for t in a.threads}
    errors = {}
    for _ in range(a.rounds):
        for t in a.threads:
            for f in a.forms:
                r = run_form(f, t, a)
                if "error" in r:
                    errors[(t, f)] = r["error"]
                else:
                    runs[str(t)][f] += r["runs"]
    res = {str(t): {} for t in a.threads}
    for t in a.threads:
        for f in a.forms:
            rr = runs[str(t)][f]
            res[str(t)][f] = summarize(rr) if rr else dict(error=errors.get((t, f), "no runs"))
    with open(os.path.join(out, "llm_results.json"), "w") as fh:
        json.dump(dict(model=a.cached or os.path.relpath(a.model, REPO), prompt=a.prompt, max_new_tokens=a.max_new_tokens,
                       results=res), fh, indent=1)
    md = report(res, a)
    with open(os.path.join(out, "llm_results.md"), "w") as fh:
        fh.write(md + "\n")
    print(md)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
