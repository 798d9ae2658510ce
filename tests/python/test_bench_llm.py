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
