"""Keeps the LLM benchmark (bench/llm.py) from rotting: one short run of
every form on tiny_llama, one thread. It checks that every form ran, that
they ran the same decode steps and that the report has the
ratios; it never checks speed."""
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_bench_llm_quick(pterun_cli, tmp_path):
    r = subprocess.run([sys.executable, os.path.join(REPO, "bench", "llm.py"), "--quick", "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=600, cwd=REPO)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    text = (tmp_path / "llm_results.json").read_text()
    assert REPO not in text, "llm_results.json names folders of this machine"
    res = json.loads(text)["results"]["1"]
    assert set(res) == {"c", "python", "executorch"}, res
    for form, s in res.items():
        assert "error" not in s, (form, s)
        assert s["prefill_tok_s_cpu"] > 0 and s["wall1_ms"] > 0, (form, s)
    # the same decode steps; prompts equal up to pterun's BOS token
    assert len({s["decode_tokens"] for s in res.values()}) == 1, res
    assert res["c"]["prompt_tokens"] == res["python"]["prompt_tokens"], res
    assert res["c"]["prompt_tokens"] - res["executorch"]["prompt_tokens"] in (0, 1), res
    assert "pterun C / ExecuTorch: prefill" in (tmp_path / "llm_results.md").read_text()


def _cache_model(cache, name, variant, new_tokens, eager_tokens=None):
    """A cache entry of bench/llm_models.py's layout from a zoo LLM: its
    program, its first prompt, and (fp32) the eager tokens it expects."""
    src = os.path.join(REPO, "zoo", "llm", variant)
    prompt = json.load(open(os.path.join(src, "expected.json")))["cases"][0]["prompt_ids"]
    d = cache / name
    d.mkdir(parents=True)
    os.symlink(os.path.join(src, "model.pte"), d / "model.pte")
    meta = {"prompt_ids": prompt, "new_tokens": new_tokens}
    if eager_tokens is not None:
        meta["eager_tokens"] = eager_tokens
    (d / "meta.json").write_text(json.dumps(meta))


def test_bench_llm_agree_judges_tokens(tmp_path):
    """bench/llm_agree.py on the zoo's tiny models: an fp32 program passes
    when pterun's greedy tokens are eager's (the zoo's expected ones) and
    fails on any other; an 8da4w one passes on ExecuTorch's top-1."""
    eager = json.load(open(os.path.join(REPO, "zoo", "llm", "tiny_llama", "expected.json")))["cases"][0]["tokens"]
    _cache_model(tmp_path / "good", "tiny-fp32", "tiny_llama", 12, eager)
    _cache_model(tmp_path / "good", "tiny-8da4w", "tiny_llama_8da4w", 12)
    _cache_model(tmp_path / "bad", "tiny-fp32", "tiny_llama", 12, [t + 1 for t in eager])

    def run(cache):
        out = tmp_path / (cache + ".json")
        r = subprocess.run([sys.executable, os.path.join(REPO, "bench", "llm_agree.py"), "--cache",
                            str(tmp_path / cache), "--out", str(out)], capture_output=True, text=True, timeout=600)
        return r, json.loads(out.read_text()) if out.exists() else None

    r, res = run("good")
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    by = {x["model"]: x for x in res}
    assert by["tiny-fp32"]["eager_equal"] and by["tiny-fp32"]["top1_agree"] == 12, by
    assert by["tiny-8da4w"]["top1_agree_fraction"] >= 0.99, by
    r, res = run("bad")
    assert r.returncode == 1 and res[0]["eager_equal"] is False, r.stdout[-2000:] + r.stderr[-3000:]
