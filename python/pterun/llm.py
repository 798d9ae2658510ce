"""Text generation with libpterun_llm, shaped like ExecuTorch's
``executorch.extension.llm.runner.TextLLMRunner``::

    from pterun.llm import GenerationConfig, TextLLMRunner
    runner = TextLLMRunner("model.pte", "tokenizer.json")
    runner.generate("Once upon a time", GenerationConfig(max_new_tokens=32, temperature=0),
                    token_callback=lambda text: print(text, end=""))

The extension (``pterun._llm``) links the same libraries as ``pterun._pterun``:
one runtime, one operator registry, one thread pool per process.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional

from . import _llm


@dataclass
class GenerationConfig:
    """ExecuTorch's fields (echo, max_new_tokens, seq_len, temperature,
    warming, num_bos, num_eos) and the sampler's (top_k, top_p,
    repetition_penalty, seed). temperature <= 0 is greedy."""

    echo: bool = True
    max_new_tokens: int = -1
    warming: bool = False
    seq_len: int = -1
    temperature: float = 0.8
    num_bos: int = 0
    num_eos: int = 0
    top_k: int = 0
    top_p: float = 1.0
    repetition_penalty: float = 1.0
    seed: int = 0

    def resolve_max_new_tokens(self, max_context_len: int, num_tokens_occupied: int) -> int:
        room = max_context_len - num_tokens_occupied
        if self.seq_len > 0:
            room = min(room, self.seq_len - num_tokens_occupied)
        if self.max_new_tokens > 0:
            room = min(room, self.max_new_tokens)
        return max(room, 0)


class Stats:
    """What a generate measured (ExecuTorch's count names, times in ms)."""

    def __init__(self, d: Dict[str, Any]) -> None:
        self.num_prompt_tokens: int = d["num_prompt_tokens"]
        self.num_generated_tokens: int = d["num_generated_tokens"]
        self.prefill_calls: int = d["prefill_calls"]
        self.model_load_ms: float = d["load_ms"]
        self.prefill_ms: float = d["prefill_ms"]
        self.time_to_first_token_ms: float = d["ttft_ms"]
        self.decode_ms: float = d["decode_ms"]
        self.prompt_tokens_per_s: float = d["prompt_tokens_per_s"]
        self.generated_tokens_per_s: float = d["generated_tokens_per_s"]
        self.peak_rss_bytes: int = d["peak_rss_bytes"]
        self.stopped_at_eos: bool = d["stopped_at_eos"]

    def __repr__(self) -> str:
        return (f"Stats(prompt={self.num_prompt_tokens} tokens at {self.prompt_tokens_per_s:.1f} tok/s, "
                f"generated={self.num_generated_tokens} at {self.generated_tokens_per_s:.1f} tok/s, "
                f"ttft={self.time_to_first_token_ms:.2f} ms)")


class TextLLMRunner:
    """A program (.pte, optional .ptd) and its tokenizer (tokenizer.json,
    tiktoken or sentencepiece .model)."""

    def __init__(self, model_path: str, tokenizer_path: str, data_path: Optional[str] = None) -> None:
        self._r = _llm.Runner(str(model_path), str(tokenizer_path), None if data_path is None else str(data_path))
        self.last_tokens: List[int] = []

    def generate(self, prompt: str, config: Optional[GenerationConfig] = None,
                 token_callback: Optional[Callable[[str], None]] = None,
                 stats_callback: Optional[Callable[[Stats], None]] = None) -> str:
        """Generate from prompt, continuing the conversation unless reset();
        text goes to token_callback as it comes. Returns the generated text
        (the generated ids are in last_tokens)."""
        c = config or GenerationConfig()
        meta = self._r.metadata()
        pieces: List[str] = []

        def collect(text: str) -> None:
            pieces.append(text)
            if token_callback is not None:
                token_callback(text)

        max_new = c.resolve_max_new_tokens(meta["max_seq_len"], 0) if c.seq_len > 0 or c.max_new_tokens > 0 else 0
        ids, stats = self._r.generate(prompt, max_new, float(c.temperature), int(c.top_k), float(c.top_p),
                                      float(c.repetition_penalty), int(c.seed), bool(c.echo), collect)
        self.last_tokens = ids
        if stats_callback is not None:
            stats_callback(Stats(stats))
        return "".join(pieces)

    def stop(self) -> None:
        self._r.stop()

    def reset(self) -> None:
        self._r.reset()

    def get_vocab_size(self) -> int:
        return int(self._r.metadata()["vocab_size"])

    def metadata(self) -> Dict[str, Any]:
        """The program's metadata methods, as the runner read them."""
        return self._r.metadata()

    def encode(self, text: str) -> List[int]:
        return self._r.encode(text)

    def __repr__(self) -> str:
        m = self._r.metadata()
        return f"TextLLMRunner(vocab_size={m['vocab_size']}, max_seq_len={m['max_seq_len']})"


__all__ = ["GenerationConfig", "Stats", "TextLLMRunner"]
