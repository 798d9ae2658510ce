"""pterun.llm from the installed wheel: its own extension (pterun._llm), which
links libpterun_llm and the same runtime, so beside the bindings the process
holds one registry and one pool; and its TextLLMRunner generates eager's
greedy tokens for the zoo's tiny Llama."""
import json
import os
import shutil
import textwrap

from conftest import REPO


def tiny_copy(installed):
    dst = os.path.join(installed.root, "tiny_llama")
    if not os.path.isdir(dst):
        shutil.copytree(os.path.join(REPO, "zoo", "llm", "tiny_llama"), dst)
    return dst


def test_llm_extension_shares_registry_and_pool(installed):
    code = textwrap.dedent(f"""
        import ctypes, os, pterun
        from pterun import _pterun, _llm
        import pterun.llm
        assert _llm.registry_identity() == _pterun.registry_identity()
        assert _llm.threadpool_identity() == _pterun.threadpool_identity()
        lib = ctypes.CDLL(os.path.join(os.path.dirname(_pterun.__file__), "lib", "libpterun_llm.so.0"))
        lib.pte_llm_count.restype = ctypes.c_int
        assert lib.pte_llm_count() == 4
        ops = set(pterun.registered_operators())
        assert "llama::custom_sdpa.out" in ops and "llama::update_cache.out" in ops, sorted(ops)[:5]
        print("one registry, one pool")
    """)
    r = installed.py(code)
    assert "one registry, one pool" in r.stdout


def test_text_llm_runner_greedy_tokens(installed):
    tiny = tiny_copy(installed)
    with open(os.path.join(tiny, "expected.json")) as f:
        exp = json.load(f)
    code = textwrap.dedent(f"""
        import json
        from pterun.llm import GenerationConfig, TextLLMRunner
        exp = json.load(open({os.path.join(tiny, "expected.json")!r}))
        r = TextLLMRunner({os.path.join(tiny, "model.pte")!r}, {os.path.join(tiny, "tokenizer.json")!r})
        assert r.get_vocab_size() == 320, r.get_vocab_size()
        stats = []
        streamed = []
        for case in exp["cases"]:
            r.reset()
            text = r.generate(case["prompt"], GenerationConfig(max_new_tokens=exp["max_new_tokens"], temperature=0,
                                                               echo=False),
                              token_callback=streamed.append, stats_callback=stats.append)
            assert r.last_tokens == case["tokens"], (r.last_tokens, case["tokens"])
            assert text == "".join(streamed), (text, streamed)
            streamed.clear()
        assert stats[0].num_generated_tokens == exp["max_new_tokens"] and stats[0].prefill_calls == 1, stats[0]
        assert r.encode(exp["cases"][0]["prompt"]) == exp["cases"][0]["prompt_ids"][1:]
        print("greedy ok", stats[0])
    """)
    r = installed.py(code)
    assert "greedy ok" in r.stdout, r.stdout
    assert exp["cases"], exp


def test_kv_cache_state_persists_and_resets(installed):
    """The KV cache (mutable buffers) persists across execute calls of one
    method, each program's method has its own, writing from position 0
    again replaces the context (a cache without initial bytes is not zeroed
    at load, so nothing reads what a fresh one holds), and
    TextLLMRunner.reset starts a new conversation."""
    tiny = tiny_copy(installed)
    code = textwrap.dedent(f"""
        import json
        import numpy as np
        from pterun.llm import GenerationConfig, TextLLMRunner
        from pterun.runtime import Runtime
        model = {os.path.join(tiny, "model.pte")!r}
        rt = Runtime.get()
        tok, alt = [0, 17, 93, 5, 211, 42], [0, 250, 3, 77]

        def last(m, t, pos):
            out = m.execute([np.array([t], dtype=np.int64), np.array(pos, dtype=np.int64)])[0]
            return np.asarray(out)[0, -1]

        progs = [rt.load_program(model) for _ in range(3)]  # kept alive: three methods at once
        whole, split, other = (p.load_method("forward") for p in progs)
        ref = last(whole, tok, list(range(6)))
        last(split, tok[:4], [0, 1, 2, 3])
        got = last(split, tok[4:], [4, 5])
        assert np.abs(got - ref).max() < 1e-4, np.abs(got - ref).max()
        last(other, alt, [0, 1, 2, 3])
        moved = last(other, tok[4:], [4, 5])
        assert np.abs(moved - ref).max() > 1e-3, "another prefix gave the same logits"
        again = last(split, tok[4:], [4, 5])
        assert np.abs(again - ref).max() < 1e-4, "another method's prefix reached this one"
        last(other, tok[:4], [0, 1, 2, 3])
        again = last(other, tok[4:], [4, 5])
        assert np.abs(again - ref).max() < 1e-4, "rewriting from position 0 kept the old context"

        exp = json.load(open({os.path.join(tiny, "expected.json")!r}))
        r = TextLLMRunner(model, {os.path.join(tiny, "tokenizer.json")!r})
        cfg = GenerationConfig(max_new_tokens=exp["max_new_tokens"], temperature=0, echo=False)
        a, b = exp["cases"][0], exp["cases"][1]
        r.generate(a["prompt"], cfg)
        assert r.last_tokens == a["tokens"]
        r.generate(b["prompt"], cfg)  # continues the first conversation
        assert r.last_tokens != b["tokens"], "the second prompt ignored the first"
        r.reset()
        r.generate(b["prompt"], cfg)
        assert r.last_tokens == b["tokens"], (r.last_tokens, b["tokens"])
        print("state ok")
    """)
    r = installed.py(code)
    assert "state ok" in r.stdout, r.stdout
