"""LLM cases (group `llm`): the custom operators of ExecuTorch's LLM
exporters (`llama::custom_sdpa`, `sdpa_with_kv_cache`, `update_cache`,
`update_cache_with_indices`). Expected outputs are eager PyTorch running
ExecuTorch's own reference kernels for those ops
(`executorch.extension.llm.custom_ops`).

The start position is a tensor input read with `.item()`, as the exporters
do with `cache_position`, so one program serves several positions (its
cases). Shapes: query [B, S, H, D], caches [B, L, Hkv, D]."""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence, Tuple

import torch

from zoo_common import F32, I64, Built, CaseIO, Spec

_SPECS: List[Spec] = []


def _load_ops() -> None:
    import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401  (registers torch.ops.llama)


def _pos(m: Any, pos: torch.Tensor, seq: int, cache_len: int) -> Any:
    sp = pos.item()
    torch._check_is_size(sp)
    torch._check(sp + seq <= cache_len)
    return sp


class CustomSdpa(torch.nn.Module):
    def __init__(self, causal: bool, scale: Optional[float], masked: bool) -> None:
        super().__init__()
        self.causal, self.scale, self.masked = causal, scale, masked

    def forward(self, q, kc, vc, pos, *mask):
        sp = _pos(self, pos, q.shape[1], kc.shape[1])
        m = mask[0] if self.masked else None
        return torch.ops.llama.custom_sdpa(q, kc, vc, sp, m, 0.0, self.causal, self.scale)


class SdpaWithKvCache(torch.nn.Module):
    def forward(self, q, k, v, kc, vc, pos):
        sp = _pos(self, pos, q.shape[1], kc.shape[1])
        return torch.ops.llama.sdpa_with_kv_cache(q, k, v, kc, vc, sp, q.shape[1], None, 0.0, True, None)


class UpdateCache(torch.nn.Module):
    def forward(self, value, cache, pos):
        sp = _pos(self, pos, value.shape[1], cache.shape[1])
        torch.ops.llama.update_cache(value, cache, sp)
        return cache.clone()


class UpdateCacheWithIndices(torch.nn.Module):
    def forward(self, value, cache, pos, indices):
        sp = pos.item()
        torch._check_is_size(sp)
        torch.ops.llama.update_cache_with_indices(value, cache, sp, indices)
        return cache.clone()


def _spec(name: str, op: str, module: Callable[[], torch.nn.Module], make: Callable[[], Tuple[torch.Tensor, ...]],
          pos_index: int, positions: Sequence[int], desc: str) -> None:
    """One program, one case per start position (input `pos_index`; the
    other inputs are the same in every case)."""
    names = [f"{name}_pos{p}" for p in positions]

    def build() -> Built:
        _load_ops()
        base = make()
        cases = []
        for p, cn in zip(positions, names):
            ins = tuple(torch.tensor([p], dtype=I64) if i == pos_index else t.clone() for i, t in enumerate(base))
            cases.append(CaseIO(cn, "forward", ins, f"{desc}; start_pos {p}"))
        return Built(methods={"forward": (module(), base, None)}, cases=cases)

    _SPECS.append(Spec(group="llm", name=name, build=build, description=desc, case_names=names, op=op,
                       seed_key="llm:" + name))


def _rn(*s: int) -> torch.Tensor:
    return torch.randn(*s, dtype=F32)


def _sdpa_inputs(B: int, S: int, H: int, Hkv: int, D: int, L: int, mask: bool = False):
    def make() -> Tuple[torch.Tensor, ...]:
        ins = [_rn(B, S, H, D), _rn(B, L, Hkv, D), _rn(B, L, Hkv, D), torch.tensor([0], dtype=I64)]
        if mask:
            # a sliding-window-like mask: each query sees a band of keys
            m = torch.full((S, L), float("-inf"))
            for s in range(S):
                m[s, max(0, s + 2):s + 7] = 0.0
            ins.append(m + 0.1 * _rn(S, L))
        return tuple(ins)

    return make


def build_llm_specs() -> List[Spec]:
    if _SPECS:
        return list(_SPECS)
    _spec("custom_sdpa_prefill_gqa", "llama::custom_sdpa.out", lambda: CustomSdpa(True, None, False),
          _sdpa_inputs(1, 5, 4, 2, 16, 12), 3, (0, 7),
          "custom_sdpa, causal prefill of 5 positions, 4 query heads over 2 kv heads (GQA)")
    _spec("custom_sdpa_decode_gqa", "llama::custom_sdpa.out", lambda: CustomSdpa(True, None, False),
          _sdpa_inputs(2, 1, 6, 2, 16, 12), 3, (0, 11),
          "custom_sdpa, one decoded position, batch 2, 6 query heads over 2 kv heads")
    _spec("custom_sdpa_noncausal_scale", "llama::custom_sdpa.out", lambda: CustomSdpa(False, 0.25, False),
          _sdpa_inputs(2, 3, 4, 4, 8, 10), 3, (0, 7),
          "custom_sdpa, not causal (every key up to start_pos + 3), scale 0.25, MHA")
    _spec("custom_sdpa_mask", "llama::custom_sdpa.out", lambda: CustomSdpa(False, None, True),
          _sdpa_inputs(1, 4, 2, 1, 8, 12, mask=True), 3, (0, 3),
          "custom_sdpa with an additive [S, L] mask over the whole cache (start_pos then unused), MQA")
    _spec("custom_sdpa_tiled", "llama::custom_sdpa.out", lambda: CustomSdpa(True, None, False),
          _sdpa_inputs(1, 33, 4, 1, 8, 256), 3, (223,),
          "custom_sdpa, causal prefill of 33 positions late in a 256-long cache (two query tiles, the "
          "matrix-product path, split over the pool), 4 query heads over 1 kv head")
    _spec("sdpa_with_kv_cache", "llama::sdpa_with_kv_cache.out", SdpaWithKvCache,
          lambda: (_rn(1, 3, 4, 8), _rn(1, 3, 2, 8), _rn(1, 3, 2, 8), _rn(1, 10, 2, 8), _rn(1, 10, 2, 8),
                   torch.tensor([0], dtype=I64)), 5, (0, 7),
          "sdpa_with_kv_cache: k, v written into the caches (mutated inputs) at start_pos, then causal "
          "attention, 4 query heads over 2 kv heads")
    _spec("update_cache", "llama::update_cache.out", UpdateCache,
          lambda: (_rn(1, 3, 2, 8), _rn(1, 10, 2, 8), torch.tensor([0], dtype=I64)), 2, (0, 7),
          "update_cache: cache[:, start_pos : start_pos + 3] = value (the cache is a mutated input)")

    def uci() -> Tuple[torch.Tensor, ...]:
        return (_rn(2, 3, 2, 8), _rn(2, 10, 2, 8), torch.tensor([0], dtype=I64),
                torch.tensor([[9, 0, 4], [2, 2, 7]], dtype=I64))

    _spec("update_cache_with_indices", "llama::update_cache_with_indices.out", UpdateCacheWithIndices, uci, 2, (0,),
          "update_cache_with_indices: cache[b, indices[b, s]] = value[b, s], a repeated index keeps the last")
    return list(_SPECS)


# ---------------------------------------------------------------------------
# A tiny random-weight Llama-style model for the runner (zoo/llm/tiny_llama):
# its own small tokenizer trained here, the model saved locally and exported
# with optimum-executorch (transformers' ExecuTorch integration: static KV
# cache, custom_sdpa and update_cache, dynamic prefill length; portable
# recipe, fp32), and eager greedy tokens. Needs transformers and
# optimum-executorch, which pin their own versions, so it runs from a
# separate venv:
#   <exporter-venv>/bin/python tools/zoo/zoo_llm.py --model zoo/llm/tiny_llama
# and, delegated to XNNPACK (one-call prefill of a dynamic length):
#   <exporter-venv>/bin/python tools/zoo/zoo_llm.py --model zoo/llm/tiny_llama_xnnpack --recipe xnnpack
# and quantized as optimum-executorch's XNNPACK recipe does (8-bit dynamic
# activations / 4-bit grouped weights on the linears, 8-bit per-row
# embeddings), expected tokens from ExecuTorch's runtime (int8 is not eager):
#   <exporter-venv>/bin/python tools/zoo/zoo_llm.py --model zoo/llm/tiny_llama_8da4w --recipe xnnpack --quant 8da4w
# (--recipe portable --quant 8da4w fails in ExecuTorch 1.5.1's to_executorch:
# "Missing out variants: torchao::choose_qparams_affine, quantize_affine,
# dequantize_affine", so there is no portable quantized variant.)
# (export_zoo.py keeps zoo/llm/tiny_* when it regenerates the group.)
# ---------------------------------------------------------------------------

TINY_PROMPTS = ["The runtime loads a program", "Hello, world! It's"]
TINY_NEW_TOKENS = 12
TINY_MAX_SEQ = 48


# The Llama-style tokenizer's pre-tokenizer (Llama 3: digits in runs of up to
# three) and Qwen's (every digit alone); Qwen's real tokenizer.json also has
# an NFC normalizer, left out here: pterun refuses normalizers and the
# training text is ASCII, so NFC would be the identity anyway.
_LLAMA_PAT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
              r"\s*[\r\n]+|\s+(?!\S)|\s+")
_QWEN_PAT = _LLAMA_PAT.replace(r"\p{N}{1,3}", r"\p{N}")
_LLAMA_SPECIALS = ["<|begin_of_text|>", "<|end_of_text|>"]
_QWEN_SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]


def _train_tiny_tokenizer(out_json: str, pat: str = _LLAMA_PAT, specials: Sequence[str] = _LLAMA_SPECIALS,
                          vocab: int = 320) -> Any:
    import os

    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "..", "README.md"), encoding="utf-8") as f:
        text = f.read()[:30000]
    tok = Tokenizer(models.BPE(ignore_merges=True))
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(pat), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=False)])
    tok.decoder = decoders.ByteLevel()
    chunks = [text[i:i + 400] for i in range(0, len(text), 400)]
    tok.train_from_iterator(chunks, trainers.BpeTrainer(
        vocab_size=vocab, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=list(specials), show_progress=False))
    tok.save(out_json)
    return tok


# Group size of the 4-bit weights: optimum's default, 32 (XNNPACK takes
# multiples of 32 only; optimum leaves a linear whose input is not a multiple
# in float), so the quantized model is hidden 32 to quantize every linear.
TINY_QGROUP = 32


def _et_greedy(pte: bytes, ids: List[int], n: int, eos: int) -> List[int]:
    """Greedy tokens from ExecuTorch's runtime: the prompt in one forward
    call, then one token per call, as pterun's runner does."""
    import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401  (llama:: kernels)
    import executorch.kernels.quantized  # noqa: F401  (quantized_decomposed:: kernels)
    from executorch.runtime import Runtime

    method = Runtime.get().load_program(pte).load_method("forward")
    out: List[int] = []
    pos, cur = 0, list(ids)
    while len(out) < n:
        logits = method.execute([torch.tensor([cur], dtype=I64), torch.arange(pos, pos + len(cur), dtype=I64)])[0]
        t = int(torch.argmax(logits[0, -1]).item())
        out.append(t)
        if t == eos:
            break
        pos, cur = pos + len(cur), [t]
    return out


def _tiny_model(arch: str, out_dir: str, quant: Optional[str]) -> Tuple[Any, Any, int, int, str]:
    """The tokenizer, the random-weight model, bos, eos and a description.
    llama: Llama 3's tokenizer shape, tied embeddings. qwen: Qwen3 as
    Qwen3-0.6B is laid out (per-head RMSNorm on q and k, tied embeddings,
    bos <|endoftext|> and eos <|im_end|>, GQA), hidden 32."""
    import os

    from transformers import LlamaConfig, LlamaForCausalLM, Qwen3Config, Qwen3ForCausalLM

    qwen = arch == "qwen"
    # qwen under 150 KB: the tied embedding is stored twice (the embedding,
    # and the lm_head inside the delegate), so 288 pieces (every byte, the
    # 3 specials, 29 merges; pterun wants every byte), heads of 4 and an
    # intermediate of 16
    tok = _train_tiny_tokenizer(os.path.join(out_dir, "tokenizer.json"),
                                *((_QWEN_PAT, _QWEN_SPECIALS, 288) if qwen else ()))
    if qwen:
        bos, eos = tok.token_to_id("<|endoftext|>"), tok.token_to_id("<|im_end|>")
        cfg = Qwen3Config(vocab_size=tok.get_vocab_size(), hidden_size=32, intermediate_size=16, num_hidden_layers=2,
                          num_attention_heads=4, num_key_value_heads=2, head_dim=4,
                          max_position_embeddings=TINY_MAX_SEQ, bos_token_id=bos, eos_token_id=eos,
                          tie_word_embeddings=True, rope_theta=1000000.0, initializer_range=0.5)
        torch.manual_seed(0)
        return tok, Qwen3ForCausalLM(cfg).eval(), bos, eos, (
            "random-weight Qwen3-style model (2 layers, hidden 32, 4 heads over 2 kv heads of 4, q/k RMSNorm, "
            "tied embeddings)")
    bos, eos = tok.token_to_id("<|begin_of_text|>"), tok.token_to_id("<|end_of_text|>")
    cfg = LlamaConfig(vocab_size=tok.get_vocab_size(), hidden_size=32 if quant else 16,
                      intermediate_size=64 if quant else 32, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=TINY_MAX_SEQ,
                      bos_token_id=bos, eos_token_id=eos, tie_word_embeddings=True, rope_theta=10000.0,
                      initializer_range=0.5)  # large weights: varied tokens, so the test can tell
    torch.manual_seed(0)
    return tok, LlamaForCausalLM(cfg).eval(), bos, eos, (
        f"random-weight Llama-style model (2 layers, hidden {cfg.hidden_size}, 4 heads over 2 kv heads)")


def export_tiny_llama(out_dir: str, recipe: str = "portable", quant: Optional[str] = None,
                      arch: str = "llama") -> None:
    import json
    import os
    import tempfile

    from transformers import AutoModelForCausalLM

    os.makedirs(out_dir, exist_ok=True)
    tok, model, bos, eos, what = _tiny_model(arch, out_dir, quant)
    with tempfile.TemporaryDirectory() as td:
        model.save_pretrained(td)
        import optimum.exporters.executorch.convert  # noqa: F401  (registers the custom_sdpa attention)
        from optimum.exporters.executorch.tasks.causal_lm import load_causal_lm_model

        qkw = {"qlinear": "8da4w", "qembedding": "8w"} if quant == "8da4w" else {}  # as --qlinear/--qembedding
        module = load_causal_lm_model(td, use_custom_sdpa=True, use_custom_kv_cache=True, max_seq_len=TINY_MAX_SEQ,
                                      **qkw)
        if recipe == "xnnpack":  # linears and the other delegable nodes on XNNPACK, prefill length dynamic
            from optimum.exporters.executorch.recipes.xnnpack import export_to_executorch_with_xnnpack
            progs = export_to_executorch_with_xnnpack(module)
        else:
            from optimum.exporters.executorch.recipes.portable import export_to_executorch_with_portable
            progs = export_to_executorch_with_portable(module)
        et = next(iter(progs.values()))
        with open(os.path.join(out_dir, "model.pte"), "wb") as f:
            f.write(bytes(et.buffer))
        eager = AutoModelForCausalLM.from_pretrained(td, attn_implementation="sdpa").eval()
    cases = []
    for prompt in TINY_PROMPTS:
        ids = [bos] + tok.encode(prompt, add_special_tokens=False).ids
        if quant:
            toks = _et_greedy(bytes(et.buffer), ids, TINY_NEW_TOKENS, eos)
        else:
            with torch.no_grad():
                out = eager.generate(torch.tensor([ids]), max_new_tokens=TINY_NEW_TOKENS, do_sample=False,
                                     eos_token_id=eos, pad_token_id=eos)
            toks = out[0, len(ids):].tolist()
        cases.append({"prompt": prompt, "prompt_ids": ids, "tokens": toks})
    plan = et.executorch_program.execution_plan[0]
    ops = sorted({f"{o.name}.{o.overload}" if o.overload else o.name for o in plan.operators})
    delegates = sorted({d.id for d in plan.delegates})
    with open(os.path.join(out_dir, "expected.json"), "w") as f:
        json.dump({"description": f"{what}, exported with optimum-executorch (custom_sdpa, custom KV cache, dynamic prefill, {recipe}"
                   + (f", {quant}: 8-bit dynamic activations, 4-bit weights in groups of {TINY_QGROUP}, 8-bit "
                      "per-row embeddings), ExecuTorch's greedy tokens" if quant else "), eager greedy tokens"), "max_new_tokens": TINY_NEW_TOKENS, "bos": bos, "eos": eos,
                   "operators": ops, **({"delegates": delegates} if delegates else {}), "cases": cases}, f, indent=1)
        f.write("\n")


# The same Qwen3-style model through transformers' own ExecuTorch integration
# (zoo/llm/tiny_qwen_hf): convert_and_export_with_cache (a static KV cache as
# mutated buffers, one token and its position per call, plain aten sdpa),
# then to_edge and to_executorch here, portable kernels, no metadata methods;
# eager greedy tokens:
#   <exporter-venv>/bin/python tools/zoo/zoo_llm.py --model zoo/llm/tiny_qwen_hf --arch qwen --integration transformers
def export_tiny_hf(out_dir: str, arch: str = "qwen") -> None:
    import json
    import os

    from executorch.exir import to_edge
    from transformers import GenerationConfig
    from transformers.integrations.executorch import convert_and_export_with_cache

    os.makedirs(out_dir, exist_ok=True)
    tok, model, bos, eos, what = _tiny_model(arch, out_dir, None)
    model.generation_config = GenerationConfig(use_cache=True, cache_implementation="static", max_length=TINY_MAX_SEQ,
                                               cache_config={"batch_size": 1, "max_cache_len": TINY_MAX_SEQ},
                                               bos_token_id=bos, eos_token_id=eos, pad_token_id=eos)
    ep = convert_and_export_with_cache(model)
    et = to_edge(ep).to_executorch()
    with open(os.path.join(out_dir, "model.pte"), "wb") as f:
        f.write(bytes(et.buffer))
    cases = []
    for prompt in TINY_PROMPTS:
        # no get_bos_id in this program and no bos in the tokenizer: the
        # prompt alone, as Qwen's own tokenizer adds none
        ids = tok.encode(prompt, add_special_tokens=False).ids
        with torch.no_grad():
            out = model.generate(torch.tensor([ids]), max_new_tokens=TINY_NEW_TOKENS, do_sample=False,
                                 eos_token_id=eos, pad_token_id=eos, cache_implementation="dynamic")
        cases.append({"prompt": prompt, "prompt_ids": ids, "tokens": out[0, len(ids):].tolist()})
    plan = et.executorch_program.execution_plan[0]
    ops = sorted({f"{o.name}.{o.overload}" if o.overload else o.name for o in plan.operators})
    with open(os.path.join(out_dir, "expected.json"), "w") as f:
        json.dump({"description": f"{what}, exported with transformers' convert_and_export_with_cache (static KV "
                   "cache, one token per call), to_edge and to_executorch (portable, fp32), eager greedy tokens",
                   "max_new_tokens": TINY_NEW_TOKENS, "bos": bos, "eos": eos, "operators": ops, "cases": cases},
                  f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True, help="output folder for the tiny Llama program")
    ap.add_argument("--recipe", default="portable", choices=["portable", "xnnpack"],
                    help="optimum-executorch recipe (xnnpack: zoo/llm/tiny_llama_xnnpack)")
    ap.add_argument("--quant", default=None, choices=["8da4w"],
                    help="8da4w: optimum-executorch's --qlinear 8da4w --qembedding 8w (zoo/llm/tiny_llama_8da4w)")
    ap.add_argument("--arch", default="llama", choices=["llama", "qwen"],
                    help="qwen: a Qwen3-style model and tokenizer (zoo/llm/tiny_qwen, with --recipe xnnpack)")
    ap.add_argument("--integration", default="optimum", choices=["optimum", "transformers"],
                    help="transformers: transformers.integrations.executorch, portable (zoo/llm/tiny_qwen_hf)")
    a = ap.parse_args()
    if a.integration == "transformers":
        export_tiny_hf(a.model, a.arch)
    else:
        export_tiny_llama(a.model, a.recipe, a.quant, a.arch)
