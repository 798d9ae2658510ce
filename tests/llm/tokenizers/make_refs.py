"""Tiny tokenizers for the C tokenizer tests, and their reference outputs.

  python make_refs.py --train   train the tokenizers into data/ (locally, from
                                the text below and the repository's README;
                                nothing from a hub), then write the references
  python make_refs.py --train-spm  retrain only the sentencepiece models
  python make_refs.py           rewrite data/*.ref from the committed tokenizers

Each .ref file holds one line per corpus entry: the input bytes (hex), the
ids the reference implementation gives (`tokenizers`, `tiktoken`,
`sentencepiece`, run on the input decoded as UTF-8 with U+FFFD replacements,
as a Python caller would), and the bytes of decode(ids) (hex). The corpus has
unicode of many scripts, odd whitespace and invalid UTF-8."""

import argparse
import base64
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))

GPT2_PAT = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
LLAMA3_PAT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
              r"\s*[\r\n]+|\s+(?!\S)|\s+")
SPECIALS = ["<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>"]

TRAIN_EXTRA = """\
The quick brown fox jumps over the lazy dog. It's 2026; we'll run 12345 tokens/s, don't we?
Le cœur a ses raisons que la raison ne connaît point. Ça coûte 3,50 € à Zürich.
Привет, мир! Съешь же ещё этих мягких французских булок, да выпей чаю.
日本語のテキストです。東京は晴れ。中文文本也很重要。한국어 문장입니다.
Ελληνικά γράμματα: αβγδε. עברית מימין לשמאל. العربية من اليمين.
emoji 😀🎉👍🏽 and symbols ∑∫√ ≠ ≤ ≥ → ← ♥ ★ — “quotes” ‘single’ «guillemets»
	tabs	and  spaces   and
newlines\r\nwindows line ends\r\n and trailing spaces   
def f(x):\n    return x * 2  # code, with [brackets] {braces} (parens) <angles>
    if the  value   is    the   answer:\n        return the value\n\n\n    else:\r\n\r\n        pass\n\n
IT'S THEY'RE WE'VE I'M YOU'LL HE'D 'SOUND 'REALLY they'really it'sound
Numbers: 123 1234 12345 123456 1234567 2026 1000000 3.14159 42 4242 424242 99 999 9999
"""

CORPUS = [
    b"",
    b"hello world",
    b"Hello, World! It's a test; they're here, we've done it, I'm sure, you'll see, he'd go.",
    b"IT'S LOUD: THEY'RE SHOUTING, WE'VE HEARD, I'M DEAF.",
    b"numbers 1 12 123 1234 12345678 3.14159 1,000,000",
    b"   leading spaces and trailing   ",
    b"tabs\tand\ttabs\t\tdouble",
    b"line one\nline two\r\nline three\n\n\nend\n",
    b" \n \n  x",
    b"caf\xc3\xa9 na\xc3\xafve r\xc3\xa9sum\xc3\xa9 \xc3\x9cber stra\xc3\x9fe",
    "Привет, мир! Как дела?".encode(),
    "日本語のテキストです。東京は晴れ。".encode(),
    "中文文本也很重要，对吧？".encode(),
    "한국어 문장입니다".encode(),
    "العربية من اليمين إلى اليسار".encode(),
    "emoji 😀🎉👍🏽 family 👨‍👩‍👧‍👦 flags 🇫🇷🇯🇵".encode(),
    "combining: e\u0301 a\u0308 n\u0303 Å".encode(),
    "math ∑∫√ ≠ ≤ ≥ → ← ♥ ★ — “quotes” ‘single’".encode(),
    "nbsp\u00a0here, ideographic\u3000space, thin\u2009space, line\u2028sep".encode(),
    b"def f(x):\n    return x * 2  # code [brackets] {braces} <angles>",
    b"special <|begin_of_text|>inside<|eot_id|> text<|end_of_text|>",
    b"invalid \xff\xfe bytes",
    b"truncated \xc3",
    b"truncated mid \xe6\x97 sequence",
    b"overlong \xc0\xaf and \xe0\x80\xaf",
    b"surrogate \xed\xa0\x80 half",
    b"beyond \xf4\x90\x80\x80 max",
    b"lone continuation \x80\x80\xbf x",
    b"nul\x00byte",
    b"\xf0\x9f\x98",
    b"a" * 300,
    ("word " * 40).encode(),
    b"x" + b"\xe2\x80\x8b" * 5 + b"zero width",
    b"the   the    the     value\n\n\nreturn\r\n\r\n  the",
    b"    if the  value:\n        return the value\n\n    else:\n",
    b"'SOUND 'REALLY THEY'REALLY it'sound I'M",
    b"\t the \t\t value \n the",
]


SPECIALS_CORPUS = [
    b"<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nhello<|eot_id|>",
    b"<|start_header_id|>assistant<|end_header_id|>\n\n<|python_tag|>x = 1<|eom_id|>",
    b"<|image|><|finetune_right_pad_id|><|step_id|><|reserved_special_token_0|><|reserved_special_token_1|>",
    b"<|reserved_special_token_2|> <|reserved_special_token_247|><|reserved_special_token_248|>",
    b"<|reserved_special_token_9|><|reserved_special_token_99|>< |eot_id|><|eot_id|<|eot_id|>>",
    b"<|end_of_text|>",
]


def text_of(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def train_text() -> str:
    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    return TRAIN_EXTRA * 3 + "123 456 789 12 34 56 78 90 1234 5678 \n" * 20 + readme[:20000]


def train() -> None:
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

    os.makedirs(DATA, exist_ok=True)
    text = train_text()
    # chunks that keep their line ends, so whitespace runs with newlines merge too
    lines = [text[i:i + 400] for i in range(0, len(text), 400)]
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    # GPT-2 style: ByteLevel pre-tokenizer with its own regex
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(lines, trainers.BpeTrainer(vocab_size=800, initial_alphabet=alphabet,
                                                       special_tokens=["<|endoftext|>"], show_progress=False))
    tok.save(os.path.join(DATA, "gpt2_bpe.json"))
    # Llama-3 style: Split on its pattern, then ByteLevel without regex; added specials
    tok = Tokenizer(models.BPE(ignore_merges=True))
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(LLAMA3_PAT), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=False)])
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(lines, trainers.BpeTrainer(vocab_size=800, initial_alphabet=alphabet,
                                                       special_tokens=SPECIALS, show_progress=False))
    tok.save(os.path.join(DATA, "llama3_bpe.json"))
    # tiktoken: the Llama-3 style ranks (ids in merge order), specials after
    vocab = tok.get_vocab()
    byte_of = {c: b for b, c in _bytes_to_unicode().items()}
    with open(os.path.join(DATA, "llama3.tiktoken"), "w") as f:
        n = 0
        for t, i in sorted(vocab.items(), key=lambda kv: kv[1]):
            if t in SPECIALS:
                continue
            f.write(f"{base64.b64encode(bytes(byte_of[c] for c in t)).decode()} {n}\n")
            n += 1
    train_spm()


def train_spm() -> None:
    import sentencepiece as spm

    # sentencepiece: BPE with byte fallback, unigram without (unknown -> <unk>).
    # The model records its trainer's input and prefix: relative names, run
    # from data/, so that no folder of the machine that trained it is kept.
    txt = "spm_train.txt"
    cwd = os.getcwd()
    os.chdir(DATA)
    try:
        with open(txt, "w", encoding="utf-8") as f:
            f.write(train_text())
        for kind, extra in (("bpe", dict(byte_fallback=True, vocab_size=500)),
                            ("unigram", dict(byte_fallback=False, vocab_size=400))):
            spm.SentencePieceTrainer.train(input=txt, model_prefix=f"spm_{kind}", model_type=kind,
                                           normalization_rule_name="identity", character_coverage=0.98,
                                           hard_vocab_limit=False, num_threads=1, user_defined_symbols=["<|eot_id|>"],
                                           minloglevel=2, **extra)
            os.remove(f"spm_{kind}.vocab")
        os.remove(txt)
    finally:
        os.chdir(cwd)


def _bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


def write_ref(name: str, encode, decode, corpus=CORPUS) -> None:
    with open(os.path.join(DATA, name + ".ref"), "w") as f:
        for raw in corpus:
            ids = encode(text_of(raw))
            out = decode(ids)
            f.write(f"{raw.hex()}\t{' '.join(map(str, ids))}\t{out.hex()}\n")


def refs() -> None:
    from tokenizers import Tokenizer
    import sentencepiece as spm
    import tiktoken

    for name in ("gpt2_bpe", "llama3_bpe"):
        tok = Tokenizer.from_file(os.path.join(DATA, name + ".json"))
        write_ref(name, lambda t: tok.encode(t, add_special_tokens=False).ids,
                  lambda ids: tok.decode(ids, skip_special_tokens=False).encode("utf-8"))
    ranks = {}
    with open(os.path.join(DATA, "llama3.tiktoken")) as f:
        for line in f:
            t, r = line.split()
            ranks[base64.b64decode(t)] = int(r)
    specials = {s: len(ranks) + i for i, s in enumerate(SPECIALS)}
    enc = tiktoken.Encoding("llama3_tiny", pat_str=LLAMA3_PAT, mergeable_ranks=ranks, special_tokens=specials)
    write_ref("llama3_tiktoken", lambda t: enc.encode(t, allowed_special="all"),
              lambda ids: enc.decode_bytes(ids))
    # Llama-3's 256 specials the way ExecuTorch's own tokenizer package adds
    # them to a tiktoken file (pte_llm_tokenizer_add_llama3_specials)
    from pytorch_tokenizers.tiktoken import TiktokenTokenizer
    tt = TiktokenTokenizer(os.path.join(DATA, "llama3.tiktoken"))
    write_ref("llama3_tiktoken_specials", lambda t: tt.encode(t, bos=False, eos=False, allowed_special="all"),
              lambda ids: tt.model.decode_bytes(ids), CORPUS + SPECIALS_CORPUS)
    for kind in ("bpe", "unigram"):
        sp = spm.SentencePieceProcessor(model_file=os.path.join(DATA, f"spm_{kind}.model"))
        write_ref(f"spm_{kind}", lambda t: sp.encode(t), lambda ids: sp.decode(ids).encode("utf-8"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", action="store_true")
    ap.add_argument("--train-spm", action="store_true")
    a = ap.parse_args()
    if a.train:
        train()
    elif a.train_spm:
        train_spm()
    refs()


if __name__ == "__main__":
    sys.exit(main())
