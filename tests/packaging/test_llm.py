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
