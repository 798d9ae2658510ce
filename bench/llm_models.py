#!/usr/bin/env python3
"""Language models at the shapes people deploy, with random weights, for
bench/llm.py and bench/llm_agree.py: generated here, cached outside the tree,
never in CI.

    <exporter-venv>/bin/python bench/llm_models.py --shape smollm135m --form 8da4w [--cache DIR]

Each model is a transformers model class at a published model's shape, its
weights random from a fixed seed (initializer_range 0.08: at the usual 0.02
greedy decoding repeats one token and a token check proves nothing), with a
byte-level BPE tokenizer trained here to the model's vocabulary size, and
exported with optimum-executorch's XNNPACK recipe (custom SDPA, custom KV
cache, a dynamic prefill length) as fp32 or 8da4w (8-bit dynamic activations,
4-bit weights in groups of 32, 8-bit per-row embeddings: --qlinear 8da4w
--qembedding 8w). Writes DIR/<shape>-<form>/{model.pte, tokenizer.json,
meta.json}; meta.json holds the shape and, for fp32, eager PyTorch's greedy
tokens of the prompt (what pterun's must equal). Exports take 10-25 minutes
each on 2 cores. Needs transformers and optimum-executorch, which pin their
own versions: a venv of their own (torch==2.13.0, executorch==1.5.1,
optimum-executorch==1.1.0, transformers==5.0.0rc1).
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# name: (transformers config class, config fields, what it is shaped as)
SHAPES = {
    "smollm135m": ("LlamaConfig", dict(hidden_size=576, num_hidden_layers=30, num_attention_heads=9,
                                       num_key_value_heads=3, intermediate_size=1536, vocab_size=49152,
                                       tie_word_embeddings=True, rope_theta=10000.0), "SmolLM-135M"),
    "qwen05b": ("Qwen2Config", dict(hidden_size=896, num_hidden_layers=24, num_attention_heads=14,
                                    num_key_value_heads=2, intermediate_size=4864, vocab_size=151936,
                                    tie_word_embeddings=True, rope_theta=1000000.0), "Qwen2.5-0.5B"),
    "llama1b": ("LlamaConfig", dict(hidden_size=2048, num_hidden_layers=16, num_attention_heads=32,
                                    num_key_value_heads=8, intermediate_size=8192, vocab_size=128256,
                                    tie_word_embeddings=True, rope_theta=500000.0), "Llama-3.2-1B"),
}
MAX_SEQ = 1024  # a 512-token prompt and what it generates
PROMPT_TOKENS = 128
NEW_TOKENS = 64
SPECIALS = ["<|begin_of_text|>", "<|end_of_text|>"]


def default_cache() -> str:
    return os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "pterun-bench", "llm")


def corpus(chars: int = 12_000_000):
    """Training text for the tokenizer: this Python's standard library
    sources (MBs of English and code on every machine)."""
    import sysconfig
    total = 0
    for path in sorted(glob.glob(os.path.join(sysconfig.get_paths()["stdlib"], "**", "*.py"), recursive=True)):
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError):
            continue
        for i in range(0, len(text), 2000):
            yield text[i:i + 2000]
        total += len(text)
        if total >= chars:
            return


def train_tokenizer(out_json: str, vocab: int):
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

    sys.path.insert(0, os.path.join(REPO, "tools", "zoo"))
    from zoo_llm import _LLAMA_PAT  # Llama 3's split: the pre-tokenizer pterun's tokenizer implements

    tok = Tokenizer(models.BPE(ignore_merges=True))
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(_LLAMA_PAT), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=False)])
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(corpus(), trainers.BpeTrainer(
        vocab_size=vocab, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), special_tokens=SPECIALS,
        show_progress=False))
    if tok.get_vocab_size() != vocab:
        raise SystemExit(f"the tokenizer reached {tok.get_vocab_size()} entries, not {vocab}: more text needed")
    tok.save(out_json)
    return tok


def prompt_ids(tok, bos: int) -> list:
    """PROMPT_TOKENS tokens of text the tokenizer did not train on (this
    repository's README), bos first."""
    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
        ids = tok.encode(f.read(), add_special_tokens=False).ids
    return [bos] + ids[:PROMPT_TOKENS - 1]


def make(shape: str, form: str, out: str, layers: int = 0) -> None:
    import torch
    import transformers

    cls_name, fields, what = SHAPES[shape]
    if layers:  # the same widths, fewer layers: where a difference starts
        fields = dict(fields, num_hidden_layers=layers)
        what += f" widths, {layers} layers"
    os.makedirs(out, exist_ok=True)
    t0 = time.time()
    tok = train_tokenizer(os.path.join(out, "tokenizer.json"), fields["vocab_size"])
    bos, eos = tok.token_to_id(SPECIALS[0]), tok.token_to_id(SPECIALS[1])
    cfg = getattr(transformers, cls_name)(**fields, max_position_embeddings=MAX_SEQ, bos_token_id=bos,
                                          eos_token_id=eos, initializer_range=0.08)
    torch.manual_seed(0)
    model = getattr(transformers, cls_name.replace("Config", "ForCausalLM"))(cfg).eval()
    ids = prompt_ids(tok, bos)
    meta = {"shape": shape, "form": form, "shaped_as": what, "config": cls_name, **fields, "max_seq_len": MAX_SEQ,
            "initializer_range": 0.08, "seed": 0, "bos": bos, "eos": eos, "prompt_ids": ids,
            "prompt_text": tok.decode(ids[1:]), "new_tokens": NEW_TOKENS,
            "parameters": sum(p.numel() for p in model.parameters())}
    print(f"{shape}-{form}: tokenizer and model in {time.time() - t0:.0f} s", flush=True)
    with tempfile.TemporaryDirectory() as td:
        model.save_pretrained(td)
        if form == "fp32":
            with torch.no_grad():
                g = model.generate(torch.tensor([ids]), max_new_tokens=NEW_TOKENS, do_sample=False,
                                   eos_token_id=None, pad_token_id=eos)
            meta["eager_tokens"] = g[0, len(ids):].tolist()
        del model
        import optimum.exporters.executorch.convert  # noqa: F401  (registers the custom_sdpa attention)
        from optimum.exporters.executorch.recipes.xnnpack import export_to_executorch_with_xnnpack
        from optimum.exporters.executorch.tasks.causal_lm import load_causal_lm_model

        qkw = {"qlinear": "8da4w", "qembedding": "8w"} if form == "8da4w" else {}
        module = load_causal_lm_model(td, use_custom_sdpa=True, use_custom_kv_cache=True, max_seq_len=MAX_SEQ,
                                      **qkw)
        progs = export_to_executorch_with_xnnpack(module)
        et = next(iter(progs.values()))
        tmp = os.path.join(out, ".model.pte")
        with open(tmp, "wb") as f:
            f.write(bytes(et.buffer))
        os.replace(tmp, os.path.join(out, "model.pte"))
    meta["export_seconds"] = round(time.time() - t0)
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    print(f"{shape}-{form}: {os.path.getsize(os.path.join(out, 'model.pte')) / 1e6:.0f} MB in "
          f"{meta['export_seconds']} s -> {out}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", choices=sorted(SHAPES), action="append", required=True)
    ap.add_argument("--form", choices=["fp32", "8da4w"], action="append", required=True)
    ap.add_argument("--cache", default=default_cache())
    ap.add_argument("--force", action="store_true", help="export again even when the cache has the model")
    ap.add_argument("--layers", type=int, default=0, help="fewer layers than the shape's (<shape>L<n>-<form>)")
    a = ap.parse_args()
    for shape in a.shape:
        for form in a.form:
            name = f"{shape}{f'L{a.layers}' if a.layers else ''}-{form}"
            out = os.path.join(a.cache, name)
            if not a.force and os.path.exists(os.path.join(out, "meta.json")):
                print(f"{name}: cached in {out}")
                continue
            make(shape, form, out, a.layers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
